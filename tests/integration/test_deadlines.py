"""Deadlines, reminders, timeouts, vacations and mail preferences, decided from the
database by the sweep with an injected clock: two sweeps at once send one reminder
and time a turn out once."""

from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.service import PlayerSpec
from pbem.service.outbox import LEASE, Outbox, backoff
from pbem.service.sweep import Sweeper
from pbem.store.tables import Game
from pbem.store.tables import Outbox as OutboxRow

from support import SHORT


@pytest.fixture
def outbox(database, clock):
    return Outbox(database, clock)


@pytest.fixture
def sweeper(service, outbox, clock):
    return Sweeper(service, outbox, clock)


def game(service, **options):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, "reminders": [24, 2], **options},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def deadline(service, game_id):
    with service.db.read() as s:
        return s.get(Game, game_id).deadline_at


def kinds(service, game_id):
    """The mails after the opening ones (the invitations and the first turn's)."""
    with service.db.read() as s:
        rows = s.exec(select(OutboxRow).where(OutboxRow.game_id == game_id).order_by(OutboxRow.id))
        opening = ("invitation", "your_turn")
        return [
            (f"{r.kind} {r.payload['hours']:g}" if r.kind == "reminder" else r.kind, r.seat)
            for r in rows
            if not (r.seq == 1 and r.kind in opening)
        ]


def test_each_turn_has_its_deadline_from_when_it_started(service, clock):
    game_id, tokens = game(service)
    assert deadline(service, game_id) == "2026-11-03T12:00:00.000000Z"
    clock.advance(hours=5)
    service.submit_action(game_id, tokens[1], "money L", 1)
    assert deadline(service, game_id) == "2026-11-03T17:00:00.000000Z"
    service.set_mail_preference(game_id, tokens[1], "digest")  # not a move: same clock
    assert deadline(service, game_id) == "2026-11-03T17:00:00.000000Z"


def test_a_game_without_hours_per_turn_has_no_deadline(service):
    game_id, _ = game(service, hours_per_turn=None)
    assert deadline(service, game_id) is None


def test_reminders_go_once_each_even_with_two_schedulers(service, sweeper, outbox, clock):
    game_id, _ = game(service)
    other = Sweeper(service, outbox, clock)
    clock.advance(hours=23)
    sweeper.sweep()
    assert kinds(service, game_id) == []
    clock.advance(hours=1)  # 24 hours left
    sweeper.sweep()
    other.sweep()
    sweeper.sweep()
    assert kinds(service, game_id) == [("reminder 24", 1)]
    clock.advance(hours=22)  # 2 hours left
    other.sweep()
    sweeper.sweep()
    assert kinds(service, game_id) == [("reminder 24", 1), ("reminder 2", 1)]


def test_a_turn_past_its_deadline_is_handed_out_once_and_timed_out_once(service, sweeper, clock):
    game_id, _ = game(service)
    clock.advance(hours=47)
    assert sweeper.sweep().time_outs == []
    clock.advance(hours=1)
    work = sweeper.sweep()
    assert work.time_outs == [(game_id, 1, 1)]
    service.time_out(*work.time_outs[0])
    with pytest.raises(Exception, match="moved on"):  # a second sweep's task: nothing
        service.time_out(*work.time_outs[0])
    state = service.state_at(game_id)
    assert (state["seq"], state["turn"]) == (2, 2)
    assert deadline(service, game_id) == "2026-11-05T12:00:00.000000Z"  # Ben's clock


def test_a_vacation_stops_the_clock_and_tells_the_others(service, clock):
    game_id, tokens = game(service, vacation_days=5)
    clock.advance(hours=10)
    service.take_vacation(game_id, tokens[1], 3)
    # 38 hours were left when the clock stopped; it starts again in 3 days
    assert deadline(service, game_id) == "2026-11-06T12:00:00.000000Z"
    assert kinds(service, game_id) == [("vacation", 2)]
    assert service.seat_settings(game_id, 1)["vacation_left"] == 2
    with pytest.raises(Exception, match="you have 2 vacation days left"):
        service.take_vacation(game_id, tokens[1], 3)


def test_a_bot_to_move_is_found_by_the_sweep(service, sweeper):
    created = service.create_game(
        [PlayerSpec("Robo", bot="greedy"), PlayerSpec("Ann", "a@x.org")], None, SHORT
    )
    assert sweeper.sweep().bots == [(created.game_id, 1, 1)]


@pytest.mark.parametrize(
    ("preference", "expected"),
    [
        ("every", [("your_turn", 1, "pending")]),
        ("digest", [("your_turn", 1, "held")]),
        ("none", []),
    ],
)
def test_turn_mails_follow_the_players_preference(service, preference, expected):
    game_id, tokens = game(service)
    service.set_mail_preference(game_id, tokens[1], preference)
    service.submit_action(game_id, tokens[2 - 1], "money L", 2)
    service.submit_action(game_id, tokens[2], "money R", 3)
    with service.db.read() as s:
        rows = s.exec(
            select(OutboxRow).where(
                OutboxRow.game_id == game_id, OutboxRow.seat == 1, OutboxRow.seq > 1
            )
        ).all()
    assert [(r.kind, r.seat, r.status) for r in rows if r.kind == "your_turn"] == expected


def test_the_digest_gathers_held_mails_per_address(service, outbox):
    game_id, tokens = game(service)
    other_id, other_tokens = game(service)
    for g, t in ((game_id, tokens), (other_id, other_tokens)):
        service.set_mail_preference(g, t[1], "digest")
        service.submit_action(g, t[1], "money L", 2)
        service.submit_action(g, t[2], "money R", 3)
    (digest_id,) = outbox.make_digests()
    row = outbox.get(digest_id)
    assert (row.kind, row.address) == ("digest", "ann@example.com")
    assert row.payload == {"seats": [[game_id, 1], [other_id, 1]]}
    assert outbox.make_digests() == []  # nothing held any more


def test_a_claimed_row_is_sent_once_and_a_dead_senders_row_is_taken_back(service, outbox, clock):
    game(service)
    first, *_ = outbox.take_due()
    assert outbox.take_due() == []  # handed out: not again within the lease
    claimed = outbox.claim(first, lambda: "<one@pbem>")
    assert (claimed.status, claimed.attempts, claimed.delivery_id) == ("sending", 1, "<one@pbem>")
    assert outbox.claim(first, lambda: "<two@pbem>") is None  # a second task: nothing
    clock.advance(seconds=LEASE.total_seconds() + 1)  # the sender died holding it
    assert first in outbox.take_due()
    again = outbox.claim(first, lambda: "<three@pbem>")
    assert (again.attempts, again.delivery_id) == (2, "<one@pbem>")  # the same Message-ID
    outbox.sent(first)
    assert outbox.claim(first, lambda: "<four@pbem>") is None


def test_failures_back_off_then_are_given_up_and_listed(service, outbox, clock):
    game(service)
    row_id = outbox.take_due()[0]
    delays = []
    for attempt in range(1, 9):
        clock.advance(hours=7)
        outbox.take_due()
        outbox.claim(row_id, lambda: "<x@pbem>")
        status = outbox.failed(row_id, "451 try later")
        delays.append(backoff(attempt).total_seconds() / 60)
        if attempt < 8:
            assert status == "pending"
    assert status == "failed"
    assert delays == [1, 2, 4, 8, 16, 32, 64, 128]
    assert [r.id for r in outbox.failures()] == [row_id]
