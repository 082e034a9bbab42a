"""The sweep asks for a reminder only while the turn running has none queued: a game
between its reminder and its deadline costs a sweep nothing more (before, every
sweep asked again for every such game, a write transaction each, which found the
reminder there and wrote nothing: a third of the games in play with the default
options). A new turn, even of the same seat, is reminded again."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem.service import PlayerSpec
from pbem.service.outbox import Outbox
from pbem.service.rows import OUTBOX
from pbem.service.sweep import Sweeper

from support import SHORT


@pytest.fixture
def sweeper(service, database, clock):
    return Sweeper(service, Outbox(database, clock), clock)


@pytest.fixture
def asked(service, monkeypatch):
    """The reminders the sweep asks the service for, as (game, seq, hours)."""
    calls: list[tuple[str, int, float]] = []
    remind = service.remind

    def counted(game_id, seq, hours, seat=None):
        calls.append((game_id, seq, hours))
        return remind(game_id, seq, hours, seat)

    monkeypatch.setattr(service, "remind", counted)
    return calls


def reminders(service, game_id) -> list[tuple[int, int, str]]:
    """The game's reminder rows: seq (the event its turn began with), seat, hours."""
    with service.db.reading() as conn:
        found = conn.execute(
            select(OUTBOX.c.seq, OUTBOX.c.seat, OUTBOX.c.topic)
            .where(OUTBOX.c.game_id == game_id, OUTBOX.c.kind == "reminder")
            .order_by(OUTBOX.c.id)
        )
        return [tuple(r) for r in found]


def test_a_reminder_queued_for_this_turn_is_not_asked_for_again(service, sweeper, clock, asked):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, "reminders": [24, 2]},
        SHORT,
    )
    game_id, ann, ben = created.game_id, created.seats[0].token, created.seats[1].token
    clock.advance(hours=25)  # 23 hours left
    sweeper.sweep()
    assert asked == [(game_id, 1, 24)]
    assert reminders(service, game_id) == [(1, 1, "24")]
    asked.clear()
    sweeper.sweep()
    service.say(game_id, ben, "hurry up")  # talk is no new turn
    sweeper.sweep()
    assert asked == []
    clock.advance(hours=22)  # 1 hour left: the second reminder, only
    sweeper.sweep()
    sweeper.sweep()
    assert asked == [(game_id, 2, 2)]  # the head: the talk's seq
    assert reminders(service, game_id) == [(1, 1, "24"), (1, 1, "2")]
    asked.clear()
    service.submit_action(game_id, ann, "money L", 2)  # Ben's turn, 48 hours
    clock.advance(hours=30)
    sweeper.sweep()
    sweeper.sweep()
    assert asked == [(game_id, 3, 24)]
    assert reminders(service, game_id)[-1] == (3, 2, "24")


def test_the_same_seat_to_move_again_is_reminded_again(service, sweeper, clock, asked):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, "reminders": [24]},
        game="nim",
    )
    game_id, ann, ben = created.game_id, created.seats[0].token, created.seats[1].token
    clock.advance(hours=25)
    sweeper.sweep()
    service.submit_action(game_id, ann, service.legal(game_id, 1)[0], 1)
    service.submit_action(game_id, ben, service.legal(game_id, 2)[0], 2)
    asked.clear()
    sweeper.sweep()  # Ann's reminder of her first turn is not one of this turn
    assert asked == []
    clock.advance(hours=25)
    sweeper.sweep()
    sweeper.sweep()
    assert asked == [(game_id, 3, 24)]
    assert reminders(service, game_id) == [(1, 1, "24"), (3, 1, "24")]
