"""What the Diplomacy tests share: seven names, positions set up through the package
(units and centres placed by hand), and a phase played through the rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from diplomacy import Game as PackageGame

from pbem.games.diplomacy import GAME, DipState, Orders
from pbem.games.diplomacy.position import POWERS, Position, from_package

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus"]


def seat(power: str) -> int:
    return POWERS.index(power) + 1


def placed(
    phase: str,
    units: Mapping[str, Sequence[str]] | None = None,
    centres: Mapping[str, Sequence[str]] | None = None,
    clear: bool = False,
) -> Position:
    """A position of the standard map: the opening one with the given powers' units
    and centres replaced (every power's cleared first with `clear`)."""
    game = PackageGame()
    if clear:
        game.clear_units()
        game.clear_centers()
    for power, listed in (units or {}).items():
        game.set_units(power, list(listed), reset=True)
    for power, listed in (centres or {}).items():
        game.set_centers(power, list(listed), reset=True)
    game.set_current_phase(phase)
    return from_package(game)


def state_at(position: Position) -> DipState:
    return DipState(
        names=tuple(NAMES),
        position=position,
        pending=tuple(None for _ in POWERS),
        draws=tuple(False for _ in POWERS),
    )


def give(state: DipState, seat_: int, text: str, draw: bool = False) -> DipState:
    """The state after the seat's orders, written as a player would."""
    action = GAME.parse(text)
    assert isinstance(action, Orders)
    checked = GAME.check(state, Orders(action.seat, action.orders, draw or action.draw), seat_)
    return GAME.perform(state, checked)


def resolve(state: DipState) -> DipState:
    """The state after the due resolution (checked as the game takes it)."""
    due = GAME.resolution(state)
    assert due is not None, f"waiting on {sorted(GAME.active(state))}"
    return GAME.perform(state, GAME.check(state, GAME.parse(GAME.format(due))))


def phase(state: DipState, orders: Mapping[int, str] | None = None, draw: Any = ()) -> DipState:
    """The state after one phase: the given seats' orders, every other active seat
    holding (its defaults), the seats in `draw` voting for a draw."""
    given = dict(orders or {})
    for s in sorted(GAME.active(state)):
        state = give(state, s, given.get(s, ""), draw=s in draw)
    return resolve(state)
