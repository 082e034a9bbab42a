"""The sweep isolates games: one game that cannot be swept (options stored before
they had bounds, a corrupt row) is logged, counted and skipped, and every other
game still gets its reminders, time-outs, bot turns and mails; the scheduler
process carries on after a sweep that fails as a whole."""

from __future__ import annotations

import logging

import pytest
from celery import Celery
from sqlalchemy import text, update
from sqlmodel import select

from pbem.service import PlayerSpec
from pbem.service.outbox import Outbox
from pbem.service.sweep import Sweeper
from pbem.store.tables import Game
from pbem.store.tables import Outbox as OutboxRow
from worker import scheduler

from support import SHORT

PEOPLE = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
DEADLINE = {"hours_per_turn": 48, "reminders": [24]}


@pytest.fixture
def outbox(database, clock):
    return Outbox(database, clock)


@pytest.fixture
def sweeper(service, outbox, clock):
    return Sweeper(service, outbox, clock)


def _store_options(service, game_id: str, options) -> None:
    """Write a game's options straight into its row, as a game stored before the
    options had bounds would have them."""
    with service.db.writing() as conn:
        conn.execute(
            update(Game.__table__).where(Game.__table__.c.id == game_id).values(options=options)
        )


def _reminders(service, game_id: str) -> list[str]:
    with service.db.read() as s:
        rows = s.exec(select(OutboxRow).where(OutboxRow.game_id == game_id)).all()
        return [f"{r.kind} {r.payload['hours']:g}" for r in rows if r.kind == "reminder"]


@pytest.mark.parametrize(
    "corrupt",
    [
        {"reminders": [1e9]},  # timedelta overflows
        {"reminders": [1e308]},
        {"reminders": ["soon"]},
        {"reminders": 7},
        "not an object",
    ],
    ids=[
        "huge-reminder",
        "largest-float-reminder",
        "text-reminder",
        "reminders-not-a-list",
        "text",
    ],
)
def test_one_game_that_cannot_be_swept_does_not_stop_the_others(
    service, sweeper, clock, caplog, corrupt
):
    broken = service.create_game(PEOPLE, DEADLINE, SHORT).game_id
    reminded = service.create_game(PEOPLE, DEADLINE, SHORT).game_id
    clock.advance(hours=30)  # 18 hours before both deadlines: the 24-hour reminder is due
    late = service.create_game(PEOPLE, {"hours_per_turn": 1, "reminders": []}, SHORT).game_id
    bot = service.create_game(
        [PlayerSpec("Robo", bot="greedy"), PlayerSpec("Ben", "ben@example.com")], None, SHORT
    ).game_id
    clock.advance(hours=2)  # `late` is an hour past its deadline
    if isinstance(corrupt, dict):
        corrupt = {**service.options(broken), **corrupt}
    _store_options(service, broken, corrupt)

    with caplog.at_level(logging.ERROR, logger="pbem.service.sweep"):
        work = sweeper.sweep()

    assert work.failed == [broken]
    assert (late, 1, 1) in work.time_outs
    assert (bot, 1, 1) in work.bots
    assert _reminders(service, reminded) == ["reminder 24"]
    assert work.mails  # the reminder (and every opening mail) is handed out
    assert _reminders(service, broken) == []
    logged = [r for r in caplog.records if r.name == "pbem.service.sweep"]
    assert logged and broken in logged[0].getMessage()
    assert logged[0].exc_info is not None  # with the exception and its traceback
    # The next sweep still hands out the good games' work (and skips the broken one again).
    again = sweeper.sweep()
    assert again.failed == [broken] and (late, 1, 1) in again.time_outs


def test_a_corrupt_deadline_is_skipped_too(service, sweeper, clock):
    broken = service.create_game(PEOPLE, DEADLINE, SHORT).game_id
    good = service.create_game(PEOPLE, {"hours_per_turn": 1, "reminders": []}, SHORT).game_id
    clock.advance(hours=2)
    with service.db.writing() as conn:
        conn.execute(
            text("UPDATE games SET deadline_at = '0000-not-a-time' WHERE id = :g"), {"g": broken}
        )
    work = sweeper.sweep()
    assert work.failed == [broken]
    assert work.time_outs == [(good, 1, 1)]


def test_the_scheduler_carries_on_after_a_sweep_that_fails(service, sweeper, clock, caplog):
    celery = Celery("sweep-test", broker="memory://")
    service.create_game(PEOPLE, {"hours_per_turn": 1, "reminders": []}, SHORT)
    with service.db.writing() as conn:
        conn.execute(text("ALTER TABLE games RENAME TO games_away"))
    with caplog.at_level(logging.ERROR, logger="worker.scheduler"):
        assert scheduler.sweep_once(celery, sweeper) is None  # logged, not raised
    assert any("sweep failed" in r.getMessage() for r in caplog.records)
    with service.db.writing() as conn:
        conn.execute(text("ALTER TABLE games_away RENAME TO games"))
    clock.advance(hours=2)
    work = scheduler.sweep_once(celery, sweeper)
    assert work is not None and len(work.time_outs) == 1


def test_the_sweep_lapses_an_overdue_undo_request_beside_a_broken_game(service, sweeper, clock):
    people = [PlayerSpec(f"P{i}", f"p{i}@example.com") for i in (1, 2, 3)]
    created = service.create_game(people, {"hours_per_turn": None}, {"pile": 10}, game="nim")
    game_id = created.game_id
    tokens = {s.seat: s.token for s in created.seats}
    service.submit_action(game_id, tokens[1], "take 2", 1)
    service.submit_action(game_id, tokens[2], "take 1", 2)
    assert service.undo(game_id, tokens[1]).type == "UndoRequested"
    broken = service.create_game(PEOPLE, {"hours_per_turn": 96}, SHORT).game_id
    _store_options(service, broken, "not an object")
    clock.advance(hours=47)
    assert sweeper.sweep().failed == [broken]
    with service.db.read() as s:
        assert s.get(Game, game_id).undo_request_seq is not None  # not yet overdue
    clock.advance(hours=2)
    work = sweeper.sweep()
    assert work.failed == [broken]
    with service.db.read() as s:
        assert s.get(Game, game_id).undo_request_seq is None
    assert [h.type for h in service.history(game_id)][-1] == "UndoLapsed"


@pytest.mark.parametrize("hours", [1e12, 1e308], ids=["1e12", "1e308"])
def test_a_turn_length_stored_before_the_bounds_never_breaks_a_move(service, clock, hours):
    """A game stored with a turn so long its deadline cannot be written as a date
    still plays: such a turn simply has no deadline."""
    game_id = service.create_game(PEOPLE, DEADLINE, SHORT).game_id
    _store_options(service, game_id, {**service.options(game_id), "hours_per_turn": hours})
    tokens = {s.seat: s.token for s in service.seat_links(game_id)}
    service.submit_action(game_id, tokens[1], "money L", 1)
    with service.db.read() as s:
        row = s.exec(select(Game).where(Game.id == game_id)).one()
    assert (row.head_seq, row.turn, row.deadline_at) == (2, 2, None)
