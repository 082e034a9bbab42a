"""Undo, history and idempotency under attack: no undo of a finished game, no peek at
the next tiles through an undo against bots, nothing an undo hid again shown by the
history, and an idempotency key that answers only its own seat."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.service import BadRequest, Forbidden, PlayerSpec
from pbem.store import log

from support import SHORT, outbox, token, two_players

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def nim(service, players=2, pile=10):
    return service.create_game(
        [PlayerSpec(f"P{i}", f"p{i}@example.com") for i in range(1, players + 1)],
        None,
        {"pile": pile},
        game="nim",
    )


def types(service, game_id):
    with service.db.read() as s:
        return [e.type for e in log.events(s, game_id)]


def head(service, game_id):
    return service.state_at(game_id)["seq"]


# -- no undo once the game has ended ------------------------------------------------


def test_a_finished_game_cannot_be_reopened_by_an_undo(service):
    setup = {**SHORT, "supply": SHORT["supply"][:9]}  # one tile left: over after a round
    created = two_players(service, setup)
    for seat in (1, 2):
        service.submit_action(created.game_id, token(created, seat), "money L")
    assert service.state_at(created.game_id)["status"] == "finished"
    seq = head(service, created.game_id)
    for seat in (1, 2):
        with pytest.raises(BadRequest, match="the game is over"):
            service.undo(created.game_id, token(created, seat))
        with pytest.raises(BadRequest, match="the game is over"):
            service.answer_undo(created.game_id, token(created, seat), True)
    doc = service.state_at(created.game_id)
    assert (doc["seq"], doc["status"]) == (seq, "finished")


def test_a_request_pending_when_the_game_ends_lapses_and_cannot_be_agreed(service):
    setup = {**SHORT, "supply": SHORT["supply"][:9]}
    created = two_players(service, setup)
    service.submit_action(created.game_id, token(created, 1), "money L")
    service.undo(created.game_id, token(created, 1))  # drew a tile: Ben must agree
    service.submit_action(created.game_id, token(created, 2), "money L")  # the last move
    assert service.state_at(created.game_id)["status"] == "finished"
    assert types(service, created.game_id)[-2:] == ["UndoLapsed", "ActionTaken"]
    with pytest.raises(BadRequest, match="the game is over"):
        service.answer_undo(created.game_id, token(created, 2), True)
    assert service.state_at(created.game_id)["status"] == "finished"


# -- never past hidden information without every person's consent -------------------


def test_against_bots_alone_an_undo_past_a_drawn_tile_is_refused(service):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Bot", bot="greedy")], None, SHORT
    )
    service.submit_action(created.game_id, token(created, 1), "money L")  # draws Y03
    service.play_bots(created.game_id)  # the bot's move draws another
    seq = head(service, created.game_id)
    with pytest.raises(BadRequest, match="a bot never agrees") as refused:
        service.undo(created.game_id, token(created, 1))
    assert "shown since (a tile drawn from the supply)" in refused.value.message
    doc = service.state_at(created.game_id, seat=1)
    assert doc["seq"] == seq and doc["supply"] == 2
    assert "UndoDone" not in types(service, created.game_id)


def test_an_undo_past_a_bots_draw_waits_for_every_person_but_not_the_bot(service):
    created = service.create_game(
        [
            PlayerSpec("Ann", "ann@example.com"),
            PlayerSpec("Ben", "ben@example.com"),
            PlayerSpec("Bot", bot="greedy"),
        ],
        None,
        {**SHORT, "secrets": {"1": "O3", "2": "O5", "3": "O1"}},
    )
    service.submit_action(created.game_id, token(created, 1), "money L")
    service.submit_action(created.game_id, token(created, 2), "money R")
    service.play_bots(created.game_id)
    request = service.undo(created.game_id, token(created, 2))
    assert request.type == "UndoRequested" and request.payload["back_to"] == 2
    done = service.answer_undo(created.game_id, token(created, 1), True)
    assert done.type == "UndoDone" and done.payload["agreed"] == [1]
    assert service.state_at(created.game_id)["turn"] == 2


def test_an_undo_of_a_last_move_that_drew_a_tile_needs_the_other_person(service):
    created = two_players(service, SHORT)
    service.submit_action(created.game_id, token(created, 1), "money L")
    assert service.undo(created.game_id, token(created, 1)).type == "UndoRequested"


# -- a pending request lapses, and both sides are told ----------------------------------


def test_a_move_while_an_undo_request_waits_closes_it_with_an_event(service):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    request = service.undo(created.game_id, token(created, 1))
    assert service.pending_undo(created.game_id, 2) == {
        "asked_by": 1,
        "back_to": 1,
        "move": "take 2; 8 left",  # the move taken back, in the game's words
        "later": 1,
    }
    service.submit_action(created.game_id, token(created, 1), "take 1", request.seq)
    assert types(service, created.game_id)[-2:] == ["UndoLapsed", "ActionTaken"]
    lapsed = [row for row in outbox(service, created.game_id) if row[1] == "undo_lapsed"]
    assert sorted(row[2] for row in lapsed) == [1, 2]
    assert service.pending_undo(created.game_id, 2) is None
    with pytest.raises(BadRequest, match="no undo request is waiting"):
        service.answer_undo(created.game_id, token(created, 2), True)
    assert service.state_at(created.game_id)["pile"] == 6


@pytest.mark.parametrize("how", ["bot", "timeout"])
def test_a_bots_move_or_a_timeout_while_a_request_waits_closes_it(service, how):
    created = service.create_game(
        [
            PlayerSpec("Ann", "ann@example.com"),
            PlayerSpec("Ben", "ben@example.com"),
            PlayerSpec("Cy", "cy@example.com")
            if how == "timeout"
            else PlayerSpec("B", bot="greedy"),
        ],
        {"hours_per_turn": 24},
        {**SHORT, "secrets": {"1": "O3", "2": "O5", "3": "O1"}},
    )
    game_id = created.game_id
    service.submit_action(game_id, token(created, 1), "money L")
    service.submit_action(game_id, token(created, 2), "money R")
    request = service.undo(game_id, token(created, 2))  # drew a tile: asks Ann (and Cy)
    assert request.type == "UndoRequested"
    if how == "bot":
        service.play_bots(game_id)
    else:
        service.time_out(game_id, 3, request.seq)
    assert types(service, game_id)[-2:] == [
        "UndoLapsed",
        "ActionTaken" if how == "bot" else "TurnTimedOut",
    ]
    assert service.pending_undo(game_id, 1) is None
    with pytest.raises(BadRequest, match="no undo request is waiting"):
        service.answer_undo(game_id, token(created, 1), True)
    told = sorted(row[2] for row in outbox(service, game_id) if row[1] == "undo_lapsed")
    assert told == ([1, 2] if how == "bot" else [1, 2, 3])


def test_a_request_not_answered_within_48_hours_lapses(service, clock):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    service.undo(created.game_id, token(created, 1))
    clock.advance(hours=47)
    assert service.undo_requests_waiting() == [created.game_id]
    assert service.lapse_overdue_undo(created.game_id) is False
    clock.advance(hours=2)
    assert service.lapse_overdue_undo(created.game_id) is True
    assert service.undo_requests_waiting() == []
    assert types(service, created.game_id)[-1] == "UndoLapsed"
    with pytest.raises(BadRequest, match="no undo request is waiting"):
        service.answer_undo(created.game_id, token(created, 2), True)
    lapsed = [row for row in outbox(service, created.game_id) if row[1] == "undo_lapsed"]
    assert sorted(row[2] for row in lapsed) == [1, 2]


def test_an_overdue_request_is_not_agreed_even_before_a_sweep(service, clock):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    service.undo(created.game_id, token(created, 1))
    clock.advance(hours=49)
    with pytest.raises(BadRequest, match="lapsed"):
        service.answer_undo(created.game_id, token(created, 2), True)
    assert service.state_at(created.game_id)["pile"] == 7
    assert types(service, created.game_id)[-1] == "UndoLapsed"


def test_the_undo_lapsed_mail_is_written_for_both_sides(web):
    from pbem.mail.compose import Composer
    from pbem.store.tables import Outbox

    _, parts = web
    created = nim(parts.service)
    service = parts.service
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    service.undo(created.game_id, token(created, 1))
    service.submit_action(created.game_id, token(created, 1), "take 1")
    composer = Composer(service, parts.settings)
    with parts.database.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.kind == "undo_lapsed")).all()
    texts = {}
    for row in rows:
        mail = composer.compose(row)
        texts[row.seat] = mail.get_body(("plain",)).get_content()
        assert "lapsed" in mail["Subject"]
    assert "Your request to take back a move lapsed" in texts[1]
    assert "P1's request to take back a move lapsed" in texts[2]
    assert "moved on" in texts[1] and "moved on" in texts[2]


# -- the page says what would be taken back, and asks to confirm ----------------------


def _client(app, game_id, tok):
    client = app.test_client()
    client.get(f"/g/{game_id}/{tok}")
    return client


def test_the_undo_button_lists_the_moves_and_asks_to_confirm_without_javascript(web):
    app, parts = web
    created = two_players(parts.service, SHORT)
    game_id = created.game_id
    parts.service.submit_action(game_id, token(created, 1), "money L")
    parts.service.submit_action(game_id, token(created, 2), "money R")
    client = _client(app, game_id, token(created, 1))
    csrf = CSRF.search(client.get(f"/g/{game_id}").get_data(as_text=True)).group(1)
    seq = head(parts.service, game_id)
    asked = client.post(f"/g/{game_id}/undo", data={"csrf_token": csrf})
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert head(parts.service, game_id) == seq  # nothing happened yet
    assert "Take back these moves?" in page
    assert "You played Burger Bar (Y01) from L1 as money" in page
    assert "Ben played Burger Bar (Y02) from R1 as money" in page
    assert 'name="confirm" value="yes"' in page
    done = client.post(f"/g/{game_id}/undo", data={"csrf_token": csrf, "confirm": "yes"})
    assert done.status_code == 302
    assert types(parts.service, game_id)[-1] == "UndoRequested"


def test_the_undo_confirm_page_says_when_it_cannot_be_done(web):
    app, parts = web
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Bot", bot="greedy")], None, SHORT
    )
    game_id = created.game_id
    parts.service.submit_action(game_id, token(created, 1), "money L")
    parts.service.play_bots(game_id)
    client = _client(app, game_id, token(created, 1))
    csrf = CSRF.search(client.get(f"/g/{game_id}").get_data(as_text=True)).group(1)
    answer = client.post(f"/g/{game_id}/undo", data={"csrf_token": csrf}, follow_redirects=True)
    assert "a bot never agrees" in answer.get_data(as_text=True)
    assert "UndoDone" not in types(parts.service, game_id)


# -- history shows nothing the current state hides --------------------------------------


def _undone_draw(service):
    """Ann draws Y03 into L4, Ben builds it; then both agree to take it all back:
    Y03 is in the supply again, hidden from everyone."""
    created = two_players(service, SHORT, public=True)
    game_id = created.game_id
    service.submit_action(game_id, token(created, 1), "money L")  # draws Y03
    service.submit_action(game_id, token(created, 2), "build L4 at 0,2")  # places Y03
    service.undo(game_id, token(created, 1))
    service.answer_undo(game_id, token(created, 2), True)
    assert service.state_at(game_id)["dispenser"]["L"] == ["Y01", "B01", "G01", "R13"]
    return created


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9-]+", text))


HIDDEN_AGAIN = {"Y03", "B03"}  # drawn in the undone moves, in the supply again


@pytest.mark.parametrize("viewer", [None, 1, 2])
def test_the_state_at_an_undone_seq_hides_what_is_hidden_now(service, viewer):
    created = _undone_draw(service)
    game_id = created.game_id
    for seq in range(1, head(service, game_id) + 1):
        doc = service.state_at(game_id, seq, viewer)
        assert not HIDDEN_AGAIN & _words(str(doc)), (seq, viewer)
        assert not HIDDEN_AGAIN & _words(service.describe(game_id, seq, viewer)), (seq, viewer)


def test_the_history_page_hides_tiles_an_undo_put_back(web):
    app, parts = web
    created = _undone_draw(parts.service)
    game_id = created.game_id
    last = head(parts.service, game_id)
    for viewer in (None, 1, 2):
        client = _client(app, game_id, token(created, viewer)) if viewer else app.test_client()
        for at in range(1, last + 1):
            page = client.get(f"/g/{game_id}/history?at={at}").get_data(as_text=True)
            assert not HIDDEN_AGAIN & _words(page), (viewer, at)
        page = client.get(f"/g/{game_id}").get_data(as_text=True)
        assert not HIDDEN_AGAIN & _words(page), viewer
        exported = client.get(f"/api/games/{game_id}/log").get_data(as_text=True)
        assert not HIDDEN_AGAIN & _words(exported), viewer


def test_pbem_game_show_at_an_undone_seq_hides_what_is_hidden_now(web, tmp_path):
    from pbem.cli import main

    _, parts = web
    created = _undone_draw(parts.service)
    env = {
        "PBEM_DATABASE_URL": parts.settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "cli"),
    }
    for at in (2, 3):
        args = ["game", "show", created.game_id, "--at", str(at)]
        result = CliRunner().invoke(main, args, env=env)
        assert result.exit_code == 0, result.output
        assert not HIDDEN_AGAIN & _words(result.output), at


# -- an idempotency key answers only its own seat ------------------------------------


def test_an_idempotency_key_never_answers_another_caller(web):
    app, parts = web
    created = two_players(parts.service, SHORT)
    game_id = created.game_id
    client = app.test_client()

    def post(tok, action, key="move-1"):
        return client.post(
            f"/api/games/{game_id}/actions",
            json={"action": action, "idempotency_key": key},
            headers={"Authorization": f"Bearer {tok}"},
        )

    first = post(token(created, 1), "money L")
    assert (first.status_code, first.json["seat"]) == (201, 1)
    assert post("garbage-token", "money L").status_code == 403
    theirs = post(token(created, 2), "money R")
    assert (theirs.status_code, theirs.json["seat"], theirs.json["action"]) == (201, 2, "money R")
    assert theirs.json["seq"] == first.json["seq"] + 1
    again = post(token(created, 1), "money L")
    assert (again.status_code, again.json["seq"]) == (201, first.json["seq"])
    assert head(parts.service, game_id) == first.json["seq"] + 1


def test_a_dead_token_with_a_used_key_is_refused(service):
    created = two_players(service, SHORT)
    service.submit_action(created.game_id, token(created, 1), "money L", 1, "move-1")
    service.replace_seat(created.game_id, 1, "human", name="Cy", email="cy@example.com")
    with pytest.raises(Forbidden):
        service.submit_action(created.game_id, token(created, 1), "money L", 1, "move-1")


@pytest.mark.parametrize(
    "key", ["", "a\x00b", "\x00", "line\nbreak", "tab\there", "esc\x1b[0m", "x" * 201, 7]
)
def test_an_idempotency_key_is_1_to_200_printable_characters(service, key):
    created = two_players(service, SHORT)
    with pytest.raises(BadRequest, match="idempotency key"):
        service.submit_action(created.game_id, token(created, 1), "money L", 1, key)
    assert head(service, created.game_id) == 1


def test_a_long_unicode_key_is_kept_and_answers_again(service):
    created = two_players(service, SHORT)
    key = "ключ-" * 40  # 200 characters
    first = service.submit_action(created.game_id, token(created, 1), "money L", 1, key)
    again = service.submit_action(created.game_id, token(created, 1), "money L", 1, key)
    assert again.replayed and again.seq == first.seq == 2
    assert service.earlier_answer(created.game_id, key, token(created, 1)).seq == 2
    assert service.earlier_answer(created.game_id, key, token(created, 2)) is None
