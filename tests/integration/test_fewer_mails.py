"""Fewer, better mails: a round's scores ride in the next turn mail, a separate round
mail goes only to whom no turn mail goes, and each player chooses per topic (turn,
round, the rest) between every mail, a daily digest and none."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select

from pbem.events import MailPreferenceChanged, codec, mail_choices
from pbem.mail.compose import Composer
from pbem.service import BadRequest, PlayerSpec
from pbem.store.tables import Outbox

from support import csrf


def against_a_bot(service, seed: str = "h"):
    return service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")],
        None,
        {"seed": seed},
    )


def play_to_the_end(service, created) -> None:
    game = created.game_id
    while True:
        service.play_bots(game)
        state = service.state_at(game)
        if state["turn"] is None:
            return
        action = service.legal(game, 1)[0]
        service.submit_action(game, created.seats[0].token, action, state["seq"])


def rows_of(service, game_id: str) -> list[Outbox]:
    with service.db.read() as session:
        query = select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)
        return list(session.execute(query).scalars().all())


def test_a_whole_game_sends_its_player_a_turn_mail_per_round_and_no_round_mails(service):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben")], None, {"seed": "h"}
    )
    game = created.game_id
    while (state := service.state_at(game))["turn"] is not None:
        seat = state["turn"]
        action = service.legal(game, seat)[0]
        service.submit_action(game, created.seats[seat - 1].token, action, state["seq"])
    assert service.state_at(game)["round"] == 20
    sent = [r.kind for r in rows_of(service, game) if r.status == "pending"]
    # was 41: the invitation, 20 turn mails, 19 round mails, the game over; then 22;
    # now the invitation is the first turn mail
    assert Counter(sent) == {"invitation": 1, "your_turn": 19, "game_over": 1}
    assert len(sent) == 21


def test_a_whole_game_against_a_bot_sends_its_player_rounds_plus_two_mails(service):
    created = against_a_bot(service)
    play_to_the_end(service, created)
    rounds = service.state_at(created.game_id)["round"]
    sent = [r.kind for r in rows_of(service, created.game_id) if r.status == "pending"]
    # was 2 * rounds + 1 (49 for 24 rounds), then 26; now 25 for 24 rounds (the
    # invitation is the first turn mail)
    assert Counter(sent) == {"invitation": 1, "your_turn": rounds - 1, "game_over": 1}


def test_the_turn_mail_after_a_round_closed_carries_the_rounds_scores(service, settings):
    created = against_a_bot(service)
    game = created.game_id
    service.submit_action(game, created.seats[0].token, service.legal(game, 1)[0], 1)
    service.play_bots(game)  # the bot's move closes round 1
    assert service.state_at(game)["round"] == 2
    row = [r for r in rows_of(service, game) if r.kind == "your_turn"][-1]
    mail = Composer(service, settings).compose(_claimed(row))
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    assert "Round 1 is scored" in text and "Round 1 is scored" in html
    assert "1. " in text and "Ann:" in text and "Robo:" in text
    assert [r.kind for r in rows_of(service, game)].count("round_scored") == 0


def test_without_turn_mails_the_round_comes_on_its_own(service):
    created = against_a_bot(service)
    game, token = created.game_id, created.seats[0].token
    service.set_mail_preference(game, token, "turn=none,round=every,other=every")
    service.submit_action(game, token, service.legal(game, 1)[0], 2)
    service.play_bots(game)
    kinds = [(r.kind, r.status) for r in rows_of(service, game)]
    assert ("round_scored", "pending") in kinds
    # the first turn, before the choice, is told in the invitation
    assert kinds.count(("your_turn", "pending")) == 0
    assert kinds.count(("invitation", "pending")) == 1


def test_turns_in_the_digest_and_no_round_mails_at_all(service):
    created = against_a_bot(service)
    game, token = created.game_id, created.seats[0].token
    service.set_mail_preference(game, token, "turn=digest,round=none,other=every")
    service.submit_action(game, token, service.legal(game, 1)[0], 2)
    service.play_bots(game)
    later = [(r.kind, r.status) for r in rows_of(service, game) if r.seq > 2]
    assert later == [("your_turn", "held")]


@pytest.mark.parametrize(
    "said",
    ["turn=every", "turn=every,round=none,other=sometimes", "turn=every,turn=none,round=none"],
)
def test_a_choice_per_topic_names_each_topic_once_with_a_known_choice(service, said):
    created = against_a_bot(service)
    with pytest.raises(BadRequest, match="turn, round, other"):
        service.set_mail_preference(created.game_id, created.seats[0].token, said)


@pytest.mark.parametrize("word", ["every", "digest", "none"])
def test_an_old_one_word_preference_means_the_same_for_every_topic(word):
    old = codec.read("MailPreferenceChanged", {"v": 1, "seat": 2, "mail": word}, {})
    assert old == MailPreferenceChanged(seat=2, mail=word, turn=word, round=word)
    assert old.column() == word  # the seats column keeps the one word, as before


def test_the_game_page_form_sets_a_choice_per_topic(web):
    app, parts = web
    created = against_a_bot(parts.service)
    game = created.game_id
    client = app.test_client()
    client.get(f"/g/{game}/{created.seats[0].token}")
    token = csrf(client, f"/g/{game}")
    chosen = {"turn": "every", "round": "every", "other": "none", "csrf_token": token}
    answer = client.post(f"/g/{game}/mail", data=chosen)
    assert answer.status_code == 302
    chosen = mail_choices(parts.service.seat_settings(game, 1)["mail"])
    assert chosen == {"turn": "every", "round": "every", "other": "none"}
    page = client.get(f"/g/{game}").get_data(as_text=True)
    assert 'name="round"' in page and 'name="turn"' in page


def _claimed(row: Outbox):
    """The row as a sender claims it (with its Message-ID)."""

    class Claimed:
        pass

    claimed = Claimed()
    for column in Outbox.__table__.columns:
        setattr(claimed, column.name, getattr(row, column.name))
    claimed.delivery_id = "<test@example.com>"
    return claimed


def test_whoever_closed_the_round_reads_its_scores_in_their_next_turn_mail(service, settings):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"seed": "h"},
    )
    game = created.game_id
    for seat in (1, 2, 1):  # Ben's move closes round 1; Ann opens round 2
        state = service.state_at(game)
        token = created.seats[seat - 1].token
        service.submit_action(game, token, service.legal(game, seat)[0], state["seq"])
    assert service.state_at(game)["round"] == 2
    row = [r for r in rows_of(service, game) if r.kind == "your_turn"][-1]
    assert row.seat == 2
    text = Composer(service, settings).compose(_claimed(row)).get_body(("plain",)).get_content()
    assert "Round 1 is scored" in text
    assert [r.kind for r in rows_of(service, game)].count("round_scored") == 0


@pytest.mark.parametrize(
    "hostile",
    ["", "every,round=none", "=", "every\r\nBcc: x@y", "é" * 300, "digest=every", "\x00"],
)
def test_a_hostile_choice_per_topic_on_the_page_is_refused_without_a_server_error(web, hostile):
    app, parts = web
    created = against_a_bot(parts.service)
    game = created.game_id
    client = app.test_client()
    client.get(f"/g/{game}/{created.seats[0].token}")
    token = csrf(client, f"/g/{game}")
    data = {"turn": hostile, "round": "every", "other": "none", "csrf_token": token}
    answer = client.post(f"/g/{game}/mail", data=data)
    assert parts.service.seat_settings(game, 1)["mail"] == "every"  # unchanged
    if any(not c.isprintable() for c in hostile):
        assert answer.status_code == 400  # the site refuses control characters at the door
    else:
        assert answer.status_code == 302
        said = client.get(f"/g/{game}").get_data(as_text=True)
        assert "Not changed: mail is one of" in said
