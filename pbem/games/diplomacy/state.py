"""A game of Diplomacy as an immutable value: the position, each seat's sealed order
set and draw vote for this phase, the resolved phases, the outcome; and the same
as JSON data for snapshots (`dump`, `load`: an exact round trip)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .position import POWERS, Names, Position, start

OrderSet = Names | None  # a seat's orders; None: none given (yet)


@dataclass(frozen=True)
class PhaseRecord:
    """A resolved phase: its name, every seat's order set (None for a seat that
    gave none), and each unit's results."""

    phase: str
    orders: tuple[OrderSet, ...]
    results: tuple[tuple[str, Names], ...]


@dataclass(frozen=True)
class DipState:
    """The game: players' names by seat, the position, this phase's sealed order
    sets and draw votes by seat, the resolved phases, the position the last
    resolution started from (to draw its orders on), and once over the winning
    seats (one for a solo victory) and whether the game was drawn."""

    names: Names
    position: Position
    pending: tuple[OrderSet, ...]
    draws: tuple[bool, ...]
    history: tuple[PhaseRecord, ...] = ()
    previous: Position | None = None
    winners: tuple[int, ...] | None = None
    drawn: bool = False

    @property
    def over(self) -> bool:
        return self.winners is not None


def new_state(names: Sequence[str], map_name: str) -> DipState:
    return DipState(
        names=tuple(names),
        position=start(map_name),
        pending=tuple(None for _ in POWERS),
        draws=tuple(False for _ in POWERS),
    )


# -- JSON data ----------------------------------------------------------------------


def _per_power(value: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    return {p: list(value[i]) for i, p in enumerate(POWERS)}


def dump_position(position: Position) -> dict[str, Any]:
    return {
        "map": position.map,
        "phase": position.phase,
        "units": _per_power(position.units),
        "retreats": {
            p: {unit: list(where) for unit, where in position.retreats[i]}
            for i, p in enumerate(POWERS)
        },
        "centres": _per_power(position.centres),
        "homes": _per_power(position.homes),
        "influence": _per_power(position.influence),
        "civil_disorder": {p: position.civil_disorder[i] for i, p in enumerate(POWERS)},
        "dislodged_by": dict(position.dislodged_by),
    }


def _tuples(doc: Mapping[str, Sequence[str]]) -> tuple[Names, ...]:
    return tuple(tuple(str(v) for v in doc[p]) for p in POWERS)


def load_position(doc: Mapping[str, Any]) -> Position:
    return Position(
        map=str(doc["map"]),
        phase=str(doc["phase"]),
        units=_tuples(doc["units"]),
        retreats=tuple(
            tuple(
                (str(unit), tuple(str(w) for w in where))
                for unit, where in doc["retreats"][p].items()
            )
            for p in POWERS
        ),
        centres=_tuples(doc["centres"]),
        homes=_tuples(doc["homes"]),
        influence=_tuples(doc["influence"]),
        civil_disorder=tuple(int(doc["civil_disorder"][p]) for p in POWERS),
        dislodged_by=tuple((str(u), str(site)) for u, site in doc["dislodged_by"].items()),
    )


def _orders(value: OrderSet) -> list[str] | None:
    return None if value is None else list(value)


def _order_set(value: Sequence[str] | None) -> OrderSet:
    return None if value is None else tuple(str(v) for v in value)


def dump(state: DipState) -> dict[str, Any]:
    return {
        "names": list(state.names),
        "position": dump_position(state.position),
        "pending": [_orders(p) for p in state.pending],
        "draws": list(state.draws),
        "history": [
            {
                "phase": r.phase,
                "orders": [_orders(o) for o in r.orders],
                "results": [[unit, list(said)] for unit, said in r.results],
            }
            for r in state.history
        ],
        "previous": None if state.previous is None else dump_position(state.previous),
        "winners": None if state.winners is None else list(state.winners),
        "drawn": state.drawn,
    }


def load(doc: Mapping[str, Any]) -> DipState:
    winners = doc["winners"]
    return DipState(
        names=tuple(str(n) for n in doc["names"]),
        position=load_position(doc["position"]),
        pending=tuple(_order_set(p) for p in doc["pending"]),
        draws=tuple(bool(d) for d in doc["draws"]),
        history=tuple(
            PhaseRecord(
                phase=str(r["phase"]),
                orders=tuple(_order_set(o) for o in r["orders"]),
                results=tuple((str(u), tuple(str(s) for s in said)) for u, said in r["results"]),
            )
            for r in doc["history"]
        ),
        previous=None if doc["previous"] is None else load_position(doc["previous"]),
        winners=None if winners is None else tuple(int(w) for w in winners),
        drawn=bool(doc["drawn"]),
    )
