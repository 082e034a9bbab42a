"""A phase of several seats at once has one clock, and a seat's vacation stops it:
the phase deadline moves on by the vacation's overlap, for every seat, and does
not move back when the seat away orders early; the sweep times out no one before
it. (A game of turns stops only the clock of the seat away: tests/integration/
test_deadlines.py.)"""

from __future__ import annotations

from datetime import timedelta

from pbem.events import parse_timestamp
from pbem.service import PlayerSpec
from pbem.service.outbox import Outbox
from pbem.service.sweep import Sweeper
from pbem.store.tables import Game

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus"]


def seven(service):
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES],
        {"hours_per_turn": 24, "vacation_days": 5},
        None,
        game="diplomacy",
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def deadline(service, game_id):
    with service.db.read() as s:
        return parse_timestamp(s.get(Game, game_id).deadline_at)


def test_a_vacation_stops_the_phase_clock_for_everyone(service, clock):
    game_id, tokens = seven(service)
    first = deadline(service, game_id)
    sweeper = Sweeper(service, Outbox(service.db, clock), clock)
    clock.advance(hours=2)
    service.take_vacation(game_id, tokens[3], 2)  # France is away for two days
    assert deadline(service, game_id) == first + timedelta(days=2)
    clock.advance(hours=1)
    service.take_vacation(game_id, tokens[5], 1)  # Italy for one: the longest stop counts
    assert deadline(service, game_id) == first + timedelta(days=2)
    service.submit_action(game_id, tokens[3], "A PAR - BUR", None)  # ordering while away
    assert deadline(service, game_id) == first + timedelta(days=2)  # it does not move back
    clock.advance(hours=30)  # past the phase's first deadline
    assert sweeper.sweep().time_outs == []
    clock.advance(days=2)
    timed = sorted(seat for _game, seat, _seq in sweeper.sweep().time_outs)
    assert timed == [1, 2, 4, 5, 6, 7]  # every power that had not ordered


def test_a_phase_without_a_vacation_keeps_its_clock(service, clock):
    game_id, tokens = seven(service)
    first = deadline(service, game_id)
    clock.advance(hours=2)
    service.submit_action(game_id, tokens[3], "A PAR - BUR", None)
    assert deadline(service, game_id) == first
    clock.advance(hours=23)
    sweeper = Sweeper(service, Outbox(service.db, clock), clock)
    assert len(sweeper.sweep().time_outs) == 6
