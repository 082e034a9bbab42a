"""Table talk: the players' chat and the spectators' chat of a game, stored as events
(history, export and import, verify keep them), never making a move stale, limited
in the service (so every entry point is), the two chats kept apart, and nothing
hidden shown through them."""

from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.events.kinds import SpectatorTalk, TableTalk
from pbem.games.mall.content import load
from pbem.service import BadRequest, Forbidden, PlayerSpec, Stale
from pbem.service.errors import TooMany
from pbem.store import log
from pbem.store.tables import Outbox

from support import SHORT, play_out, token, two_players


def _head(service, game_id: str) -> int:
    return service.state_at(game_id)["seq"]


def test_a_chat_line_is_an_event_in_the_history_and_moves_nothing(service):
    created = two_players(service, SHORT)
    game = created.game_id
    before = service.state_at(game, seat=1)
    event = service.say(game, token(created, 1), "  good luck,\n have fun  ")
    assert isinstance(event.event, TableTalk)
    assert event.event == TableTalk(1, "good luck, have fun")
    after = service.state_at(game, seat=1)
    assert after["seq"] == before["seq"] + 1
    assert {k: v for k, v in after.items() if k not in ("seq", "head_hash")} == {
        k: v for k, v in before.items() if k not in ("seq", "head_hash")
    }
    for viewer, who in ((None, "Ann"), (1, "You"), (2, "Ann")):
        said = [h for h in service.history(game, viewer) if isinstance(h.event, TableTalk)]
        assert [h.text for h in said] == [f"{who} said: good luck, have fun"]
    lines = service.table_talk(game, 2)
    assert [(line.seat, line.name, line.text) for line in lines] == [
        (1, "Ann", "good luck, have fun")
    ]
    assert service.verify(game) == []


def test_a_move_that_expected_the_seq_before_chat_lines_still_stands(service):
    created = two_players(service, SHORT)
    game = created.game_id
    seen = _head(service, game)
    service.say(game, token(created, 2), "your move")
    service.say(game, token(created, 1), "thinking")
    accepted = service.submit_action(game, token(created, 1), service.legal(game, 1)[0], seen)
    assert accepted.seq == seen + 3
    assert service.verify(game) == []


def test_chat_after_a_move_keeps_the_move_stale(service):
    created = two_players(service, SHORT)
    game = created.game_id
    seen = _head(service, game)
    service.submit_action(game, token(created, 1), service.legal(game, 1)[0], seen)
    service.say(game, token(created, 1), "your turn")
    with pytest.raises(Stale) as stale:
        service.submit_action(game, token(created, 2), service.legal(game, 2)[0], seen)
    assert [h.seq for h in stale.value.since] == [seen + 1, seen + 2]


def test_other_events_still_make_a_move_stale(service):
    created = two_players(service, SHORT)
    game = created.game_id
    seen = _head(service, game)
    service.take_vacation(game, token(created, 2), 1)
    with pytest.raises(Stale):
        service.submit_action(game, token(created, 1), service.legal(game, 1)[0], seen)


def test_a_timeout_and_a_bot_are_not_stopped_by_chat(service, clock):
    created = two_players(service, SHORT, hours_per_turn=1)
    game = created.game_id
    seen = _head(service, game)
    service.say(game, token(created, 2), "hurry up")
    accepted = service.time_out(game, 1, seen)
    assert accepted.seat == 1
    against_bot = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")], None, SHORT
    )
    game = against_bot.game_id
    played = service.submit_action(game, token(against_bot, 1), service.legal(game, 1)[0], 1)
    service.say(game, token(against_bot, 1), "your turn, Robo")
    assert service.play_bot(game, 2, played.seq).seat == 2  # the seq its task was given


def test_export_and_import_keep_the_chat_in_its_place(service):
    created = two_players(service)
    game = created.game_id
    service.say(game, token(created, 1), "hello")
    service.submit_action(game, token(created, 1), service.legal(game, 1)[0], _head(service, game))
    service.say(game, token(created, 2), "nice <b>move</b>")
    play_out(service, created)
    service.say(game, token(created, 1), "good game")
    doc = service.export_log(game)
    moves = len(doc["actions"])
    assert doc["chat"] == [
        {"after": 0, "seat": 1, "text": "hello"},
        {"after": 1, "seat": 2, "text": "nice <b>move</b>"},
        {"after": moves, "seat": 1, "text": "good game"},
    ]
    imported = service.import_log(doc)
    again = service.export_log(imported.game_id)
    assert again["chat"] == doc["chat"] and again["actions"] == doc["actions"]
    told = [h.text for h in service.history(imported.game_id)]
    assert told.index("Ann said: hello") < told.index("Ben said: nice <b>move</b>")
    assert told[-1] == "Ann said: good game"
    assert service.verify(imported.game_id) == []


def test_an_old_log_without_chat_still_imports(service):
    created = two_players(service)
    play_out(service, created)
    doc = service.export_log(created.game_id)
    doc.pop("chat", None)
    imported = service.import_log(doc)
    assert service.table_talk(imported.game_id) == []


@pytest.mark.parametrize(
    "chat",
    [
        [{"after": 10000, "seat": 1, "text": "hi"}],
        [{"after": 0, "seat": 3, "text": "hi"}],
        [{"after": 0, "seat": 1, "text": "\x00"}],
        [{"after": 0, "seat": True, "text": "hi"}],
        "hi",
    ],
)
def test_a_log_with_a_bad_chat_line_is_refused(service, chat):
    created = two_players(service)
    play_out(service, created)
    doc = {**service.export_log(created.game_id), "chat": chat}
    with pytest.raises(BadRequest, match="chat"):
        service.import_log(doc)


def test_a_seat_says_at_most_six_lines_a_minute(service, clock):
    created = two_players(service, SHORT)
    game = created.game_id
    for number in range(6):
        service.say(game, token(created, 1), f"line {number}")
    with pytest.raises(TooMany, match="6 chat lines a minute"):
        service.say(game, token(created, 1), "one more")
    service.say(game, token(created, 2), "the other seat still talks")
    clock.advance(seconds=61)
    service.say(game, token(created, 1), "a minute later")


def test_a_spectator_chats_apart_and_players_read_it_only_after_the_game(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.say(game, token(created, 1), "players only? no, spectators read this")
    event = service.spectator_says(game, "  Zoe\u202e ", "Ann will win")
    assert event.event == SpectatorTalk("Zoe", "Ann will win")
    assert event.actor == "spectator"
    assert [line.text for line in service.spectator_talk(game, None)] == ["Ann will win"]
    assert service.spectator_talk(game, 1) == []
    assert service.spectator_talk(game, 2) == []
    for viewer in (None, 1, 2):
        assert all("Ann will win" not in h.text for h in service.history(game, viewer))
        assert [line.text for line in service.table_talk(game, viewer)] == [
            "players only? no, spectators read this"
        ]
    assert "Ann will win" not in str(service.export_log(game))
    play_out(service, created)
    assert [line.name for line in service.spectator_talk(game, 1)] == ["Zoe"]


def test_a_private_game_has_no_spectator_chat(service):
    created = two_players(service, SHORT)
    with pytest.raises(Forbidden, match="private"):
        service.spectator_says(created.game_id, "Zoe", "hello")


def test_spectators_are_limited_per_game(service, clock):
    created = two_players(service, SHORT, public=True)
    for number in range(20):
        service.spectator_says(created.game_id, f"fan {number}", "hi")
    with pytest.raises(TooMany):
        service.spectator_says(created.game_id, "fan 21", "hi")


def test_a_line_is_told_as_said_and_tells_nobody_which_words_are_hidden(service):
    """A line blanked where it names something hidden from its reader would make the
    chat an oracle: Ben names every secret card there is and sees which comes back
    blanked (Ann's, O3). A line reads as it was said, to everyone who may read it,
    on every surface."""
    created = two_players(service, SHORT)
    game = created.game_id
    said = "is it " + " or ".join(sorted(load().cards)) + "?"
    assert "O3" in said
    service.say(game, token(created, 2), said)
    for viewer in (None, 1, 2):
        assert [line.text for line in service.table_talk(game, viewer)] == [said]
        assert service.history(game, viewer)[-1].text.endswith(said)
        assert [line["text"] for line in service.export_log(game, viewer)["chat"]] == [said]
        told = service.chain(game, viewer)["events"][-1]
        assert told["payload"]["text"] == said


def test_other_seats_are_mailed_the_lines_gathered_not_the_speaker(service, clock):
    created = two_players(service, SHORT)
    game = created.game_id
    for line in ("one", "two", "three"):
        service.say(game, token(created, 1), line)
    with service.db.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == game, Outbox.kind == "chat")).all()
    assert [(r.seat, r.address, r.status) for r in rows] == [(2, "ben@example.com", "pending")]
    assert rows[0].next_attempt_at > rows[0].created_at  # it waits for more lines


@pytest.mark.parametrize(("chosen", "status"), [("digest", ["held"]), ("none", [])])
def test_a_seat_that_wants_fewer_mails_gets_its_chat_as_it_chose(service, chosen, status):
    created = two_players(service, SHORT)
    game = created.game_id
    service.set_mail_preference(game, token(created, 2), chosen)
    service.say(game, token(created, 1), "hello")
    with service.db.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == game, Outbox.kind == "chat")).all()
    assert [r.status for r in rows] == status


def test_a_chat_line_is_stored_in_the_log_as_its_type(service):
    created = two_players(service, SHORT)
    service.say(created.game_id, token(created, 2), "hi")
    with service.db.read() as s:
        last = log.events(s, created.game_id)[-1]
    assert last.type == TableTalk.TYPE and last.actor == "seat:2"
    assert last.payload == {"seat": 2, "text": "hi", "v": 1}


@pytest.mark.parametrize("meanwhile", ["talk", "mail preference"])
def test_what_leaves_the_turn_as_it_was_does_not_repeat_the_reminder(service, clock, meanwhile):
    from pbem.service.outbox import Outbox as Outboxes
    from pbem.service.sweep import Sweeper

    created = two_players(service, SHORT, hours_per_turn=48, reminders=[24])
    game = created.game_id
    sweeper = Sweeper(service, Outboxes(service.db, clock), clock)
    clock.advance(hours=25)
    sweeper.sweep()
    for line in ("still there?", "take your time"):
        if meanwhile == "talk":
            service.say(game, token(created, 2), line)
        else:  # the other seat changes how it is mailed, twice
            service.set_mail_preference(
                game, token(created, 2), "digest" if "?" in line else "every"
            )
        sweeper.sweep()
    with service.db.read() as s:
        reminders = s.exec(
            select(Outbox).where(Outbox.game_id == game, Outbox.kind == "reminder")
        ).all()
    assert len(reminders) == 1


def test_a_reminder_still_goes_after_chat_and_is_moot_once_the_turn_is_played(
    service, clock, settings
):
    from pbem.mail.compose import Composer, Moot
    from pbem.service.outbox import Outbox as Outboxes
    from pbem.service.sweep import Sweeper

    created = two_players(service, SHORT, hours_per_turn=48, reminders=[24])
    game = created.game_id
    Sweeper(service, Outboxes(service.db, clock), clock).sweep()
    clock.advance(hours=25)
    service.say(game, token(created, 2), "still there?")  # before the reminder is queued
    Sweeper(service, Outboxes(service.db, clock), clock).sweep()
    service.say(game, token(created, 2), "take your time")  # after it
    with service.db.read() as s:
        (row,) = s.exec(
            select(Outbox).where(Outbox.game_id == game, Outbox.kind == "reminder")
        ).all()
    s.expunge_all()
    row.delivery_id = "<reminder@example.com>"
    composer = Composer(service, settings)
    mail = composer.compose(row)
    assert " — reminder: " in mail["Subject"] and mail["To"] == "Ann <ann@example.com>"

    state = service.state_at(game)
    move = service.legal(game, 1)[0]
    service.submit_action(game, token(created, 1), move, state["seq"])
    with pytest.raises(Moot, match="turn was played"):
        composer.compose(row)


def test_a_turn_mail_gives_a_chat_line_word_for_word(service, settings):
    from pbem.mail.compose import Composer

    created = two_players(service, SHORT)
    game = created.game_id
    said = "seat 2 is bluffing, says seat 1's friend"
    service.say(game, token(created, 1), said)
    state = service.state_at(game)
    service.submit_action(game, token(created, 1), service.legal(game, 1)[0], state["seq"])
    with service.db.read() as s:
        row = s.exec(
            select(Outbox).where(
                Outbox.game_id == game, Outbox.kind == "your_turn", Outbox.seat == 2
            )
        ).one()
    s.expunge_all()
    row.delivery_id = "<turn@example.com>"
    text = Composer(service, settings).compose(row).get_body(("plain",)).get_content()
    assert f"Ann said: {said}" in " ".join(text.split())
