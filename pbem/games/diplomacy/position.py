"""The board between two phases as an immutable value, and the bridge to the
`diplomacy` package that adjudicates it: a package `Game` rebuilt from a position,
a position read back from one, what can be ordered in a position (cached), and one
phase processed by the package."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from diplomacy import Game as PackageGame

MAPS = ("standard",)
# The powers in the package's order: seat n plays POWERS[n - 1].
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
SEATS = tuple(range(1, len(POWERS) + 1))
COMPLETED = "COMPLETED"  # the package's phase once the game has ended

Names = tuple[str, ...]
PerPower = tuple[Names, ...]  # one entry per power, in POWERS order


@dataclass(frozen=True)
class Position:
    """Everything the package needs to go on from one phase: the phase ("S1901M"),
    and per power (in POWERS order) its units ("A PAR", "F STP/SC"), its dislodged
    units with where each may retreat, its supply centres, home centres, influence
    and civil-disorder flag, each as the package lists them; and the units the last
    movement dislodged with the site each was dislodged from, as the package keeps
    them until a retreat or adjustment phase reports them (as disbanded, if they
    did not retreat)."""

    map: str
    phase: str
    units: PerPower
    retreats: tuple[tuple[tuple[str, Names], ...], ...]
    centres: PerPower
    homes: PerPower
    influence: PerPower
    civil_disorder: tuple[int, ...]
    dislodged_by: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        """ "M" (movement), "R" (retreats), "A" (adjustments), or "-" once over."""
        return self.phase[-1] if self.phase != COMPLETED else "-"

    def dislodged(self, power: int) -> Names:
        """The dislodged units of the power at index `power`."""
        return tuple(unit for unit, _ in self.retreats[power])


def _names(value: Sequence[Any]) -> Names:
    return tuple(str(v) for v in value)


def from_package(game: Any) -> Position:
    """The position a package game stands in (its `get_state`, minus what the
    package derives: hashes, timestamps, build counts)."""
    state = game.get_state()
    return Position(
        map=str(game.map_name),
        phase=str(state["name"]),
        units=tuple(
            tuple(str(u) for u in state["units"][p] if not str(u).startswith("*")) for p in POWERS
        ),
        retreats=tuple(
            tuple((str(unit), _names(where)) for unit, where in state["retreats"][p].items())
            for p in POWERS
        ),
        centres=tuple(_names(state["centers"][p]) for p in POWERS),
        homes=tuple(_names(state["homes"][p]) for p in POWERS),
        influence=tuple(_names(state["influence"][p]) for p in POWERS),
        civil_disorder=tuple(int(state["civil_disorder"][p]) for p in POWERS),
        dislodged_by=tuple((str(unit), str(site)) for unit, site in game.dislodged.items()),
    )


def package_state(position: Position) -> dict[str, Any]:
    """The position as the package's `set_state` takes it."""
    return {
        "name": position.phase,
        "units": {
            p: [*position.units[i], *(f"*{unit}" for unit, _ in position.retreats[i])]
            for i, p in enumerate(POWERS)
        },
        "retreats": {
            p: {unit: list(where) for unit, where in position.retreats[i]}
            for i, p in enumerate(POWERS)
        },
        "centers": {p: list(position.centres[i]) for i, p in enumerate(POWERS)},
        "homes": {p: list(position.homes[i]) for i, p in enumerate(POWERS)},
        "influence": {p: list(position.influence[i]) for i, p in enumerate(POWERS)},
        "civil_disorder": {p: position.civil_disorder[i] for i, p in enumerate(POWERS)},
    }


def start(map_name: str = "standard") -> Position:
    """The opening position of a map."""
    return from_package(PackageGame(map_name=map_name))


def fresh_game(position: Position) -> Any:
    """A new package game standing in `position`, the caller's own to change."""
    game = PackageGame(map_name=position.map)
    game.set_state(package_state(position))
    game.dislodged = dict(position.dislodged_by)  # `set_state` leaves it out
    return game


AMBIGUOUS = ""  # an index entry that fits several orders


@dataclass(frozen=True)
class Facts:
    """What can be ordered in a position, per power index: the locations that take
    an order (sorted), the adjustment count (builds > 0, disbands < 0, else 0),
    and per location its possible orders (sorted) and the index that reads an
    order written loosely (unit types left out, a coast or VIA omitted)."""

    orderable: PerPower
    adjust: tuple[int, ...]
    possible: Mapping[str, Names]
    loose: Mapping[str, Mapping[str, str]]


def loose_key(order: str) -> str:
    """An order without its unit types, its VIA and the coast of its own unit:
    "F STP/SC S A MOS - LVN" -> "STP S MOS - LVN"."""
    words = [w for w in order.split() if w not in ("A", "F", "VIA")]
    if words:
        words[0] = words[0][:3]
    return " ".join(words)


@functools.lru_cache(maxsize=512)
def facts(position: Position) -> Facts:
    """The position's orderable locations and possible orders, computed once by a
    package game that nothing else sees."""
    if position.phase == COMPLETED:
        return Facts(tuple(() for _ in POWERS), tuple(0 for _ in POWERS), {}, {})
    game = fresh_game(position)
    every = game.get_all_possible_orders()
    located = game.get_orderable_locations()
    builds = game.get_state()["builds"]
    orderable = tuple(tuple(sorted(str(loc) for loc in located[p])) for p in POWERS)
    possible: dict[str, Names] = {}
    loose: dict[str, Mapping[str, str]] = {}
    for locs in orderable:
        for loc in locs:
            orders = tuple(sorted({str(o) for o in every.get(loc, ())}))
            possible[loc] = orders
            index: dict[str, str] = {}
            for order in orders:
                key = loose_key(order)
                index[key] = AMBIGUOUS if index.get(key, order) != order else order
            loose[loc] = MappingProxyType(index)
    return Facts(
        orderable=orderable,
        adjust=tuple(int(builds[p].get("count", 0)) for p in POWERS),
        possible=MappingProxyType(possible),
        loose=MappingProxyType(loose),
    )


@functools.lru_cache(maxsize=8)
def victory(map_name: str) -> int:
    """The supply centres a solo victory takes on a map (18 on the standard map)."""
    return int(PackageGame(map_name=map_name).win)


@dataclass(frozen=True)
class Processed:
    """One phase processed: the position after it, each unit's results ("bounce",
    "dislodged", ...; units without any left out), and the package's outcome once
    the game has ended (the winning powers), else None."""

    position: Position
    results: tuple[tuple[str, Names], ...]
    outcome: Names | None


def results_of(game: Any) -> tuple[tuple[str, Names], ...]:
    """The last processed phase's order results of a package game, sorted by unit."""
    found = game.result_history.last_value() if game.result_history else {}
    listed = ((str(unit), tuple(str(r) for r in said if str(r))) for unit, said in found.items())
    return tuple(sorted((unit, said) for unit, said in listed if said))


def process(position: Position, orders: Mapping[str, Sequence[str]]) -> Processed:
    """The package's adjudication of `position` with `orders` (power -> its orders,
    canonical; a power left out keeps the defaults)."""
    game = fresh_game(position)
    for power, given in orders.items():
        game.set_orders(power, list(given))
    game.process()
    outcome = _names(game.outcome[1:]) if game.is_game_done else None
    return Processed(from_package(game), results_of(game), outcome)


def idle(position: Position) -> bool:
    """Whether no power has anything to order in a running game's position."""
    return position.phase != COMPLETED and not any(facts(position).orderable)
