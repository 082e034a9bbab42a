"""The actions of Diplomacy and how they are written: a seat's `Orders` for the
phase, and the game's own `Resolve`; their notation (one order per line) and JSON
forms, read forgivingly (any case and spacing, words for the order letters) into
the package's standard notation."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pbem.i18n import gettext as _

from ..base import NotationError
from .position import SEATS

MAX_TEXT = 4000  # characters of an action's text
MAX_ORDERS = 40  # orders in one set (a power has at most 34 units)
MAX_ORDER = 60  # characters of one order


@dataclass(frozen=True)
class Orders:
    """A seat's whole order set for the current phase (it replaces any earlier
    one), and its draw vote. `seat` is None while only parsed: `check` says whose."""

    seat: int | None
    orders: tuple[str, ...]
    draw: bool = False


class SeatOrders(Mapping[int, tuple[str, ...]]):
    """seat -> order set, immutable and hashable, in seat order."""

    def __init__(self, given: Mapping[int, tuple[str, ...]]) -> None:
        self._items = tuple(sorted((int(s), tuple(o)) for s, o in given.items()))
        self._map = dict(self._items)

    def __getitem__(self, seat: int) -> tuple[str, ...]:
        return self._map[seat]

    def __iter__(self) -> Iterator[int]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other.items())

    def __repr__(self) -> str:
        return f"SeatOrders({self._map!r})"


@dataclass(frozen=True)
class Resolve:
    """The game's own action once every power it waited on has given orders: it
    shows every order set given this phase (by seat) and has the phase resolved."""

    phase: str
    orders: Mapping[int, tuple[str, ...]]

    def __post_init__(self) -> None:
        if not isinstance(self.orders, SeatOrders):
            object.__setattr__(self, "orders", SeatOrders(self.orders))


Action = Orders | Resolve

# Words and spellings a player may use for the package's order letters.
_WORDS = {
    "ARMY": "A",
    "FLEET": "F",
    "HOLD": "H",
    "HOLDS": "H",
    "SUPPORT": "S",
    "SUPPORTS": "S",
    "CONVOY": "C",
    "CONVOYS": "C",
    "RETREAT": "R",
    "RETREATS": "R",
    "DISBAND": "D",
    "DISBANDS": "D",
    "BUILD": "B",
    "BUILDS": "B",
    "WAIVES": "WAIVE",
}
_ORDER = re.compile(r"[A-Z/ -]+")
_COAST = re.compile(r"\s*[(/]\s*([NSEW]C)(?:\s*\))?")  # STP(NC), STP (nc), STP / NC
_ARROW = re.compile(r"->|=>|\u2192|-")
_SPLIT = re.compile(r"[\n;,]")
_NO_ORDERS = {"HOLD", "HOLDS", "NO ORDERS", "NONE"}
_DRAW = {"DRAW", "VOTE DRAW"}
_RESOLVE = re.compile(r"\s*resolve\s+([A-Za-z0-9]{1,12})\s*", re.I | re.A)
_SEAT_LINE = re.compile(r"\s*([0-9]{1,2})\s*:(.*)", re.A | re.S)


def normalize(order: str) -> str:
    """An order in the package's spelling: upper case, single spaces, "-" between
    words, coasts as "/NC", the order letters for their words."""
    text = _ARROW.sub(" - ", _COAST.sub(r"/\1", order.upper()))
    words = [_WORDS.get(w, w) for w in text.split()]
    said = " ".join(words)
    if not said or len(said) > MAX_ORDER or not _ORDER.fullmatch(said):
        raise NotationError(
            _(
                'cannot read the order "%(order)s": write e.g. "A PAR - BUR"',
                order=order[:MAX_ORDER],
            )
        )
    return said


def _text(value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        shown = type(value).__name__ if not isinstance(value, str) else value[:40]
        raise NotationError(
            _(
                "orders are text of at most %(most)s characters, not %(shown)s",
                most=MAX_TEXT,
                shown=shown,
            )
        )
    return value


def _order_list(given: object) -> tuple[str, ...]:
    if not isinstance(given, list) or len(given) > MAX_ORDERS:
        raise NotationError(_("orders are a list of at most %(most)s orders", most=MAX_ORDERS))
    if not all(isinstance(o, str) and len(o) <= MAX_TEXT for o in given):
        raise NotationError(_('each order is a string, e.g. "A PAR - BUR"'))
    return tuple(normalize(o) for o in given)


def parse_orders(text: str) -> Orders:
    """Orders from their notation: one order per line (or separated by ";" or ","),
    "hold" (or nothing) for none, and a line "draw" for a draw vote."""
    orders: list[str] = []
    draw = False
    for line in _SPLIT.split(_text(text)):
        said = " ".join(line.split()).upper()
        if not said or said in _NO_ORDERS:
            continue
        if said in _DRAW:
            draw = True
            continue
        orders.append(normalize(line))
    if len(orders) > MAX_ORDERS:
        raise NotationError(_("orders are a list of at most %(most)s orders", most=MAX_ORDERS))
    return Orders(None, tuple(orders), draw)


def _resolve_text(text: str) -> Resolve:
    first, *lines = _text(text).split("\n")
    match = _RESOLVE.fullmatch(first)
    if match is None:
        raise NotationError(_("a resolution starts with a line: resolve PHASE"))
    orders: dict[int, tuple[str, ...]] = {}
    for line in lines:
        if not line.strip():
            continue
        seat_line = _SEAT_LINE.fullmatch(line)
        if seat_line is None or int(seat_line[1]) not in SEATS or int(seat_line[1]) in orders:
            raise NotationError(_("each line of a resolution is SEAT: ORDER; ORDER"))
        orders[int(seat_line[1])] = parse_orders(seat_line[2]).orders
    return Resolve(match[1].upper(), orders)


def _seat(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEATS:
        raise NotationError(_("a seat is a number from 1 to 7"))
    return value


def _from_json(value: Mapping[str, Any]) -> Action:
    kind = value.get("type")
    if kind == "orders" and set(value) <= {"type", "seat", "orders", "draw"}:
        draw = value.get("draw", False)
        if not isinstance(draw, bool):
            raise NotationError(_('"draw" is true or false'))
        return Orders(_seat(value.get("seat")), _order_list(value.get("orders", [])), draw)
    if kind == "resolve" and set(value) == {"type", "phase", "orders"}:
        phase, given = value["phase"], value["orders"]
        if not isinstance(phase, str) or not 0 < len(phase) <= 12 or not isinstance(given, Mapping):
            raise NotationError(
                _('a resolution is {"type": "resolve", "phase": ..., "orders": {...}}')
            )
        orders: dict[int, tuple[str, ...]] = {}
        for seat, listed in given.items():
            number = (
                int(seat) if isinstance(seat, str) and seat.isdigit() and len(seat) < 3 else None
            )
            if number not in SEATS:
                raise NotationError(_("a seat is a number from 1 to 7"))
            orders[number] = _order_list(listed)
        return Resolve(phase.upper(), orders)
    raise NotationError(
        _('an action is {"type": "orders", "orders": [...], "draw": false} or a resolution')
    )


def parse(value: str | Mapping[str, Any]) -> Action:
    """An action from its notation or JSON form; raises NotationError."""
    if isinstance(value, Mapping):
        return _from_json(value)
    text = _text(value)
    if _RESOLVE.match(text.split("\n", 1)[0]):
        return _resolve_text(text)
    return parse_orders(text)


def format_action(action: Action) -> str:
    """The notation: an order per line ("hold" for none, a last line "draw" for a
    draw vote); a resolution as "resolve PHASE" and a line "SEAT: ORDER; ORDER" for
    each seat that gave orders."""
    if isinstance(action, Resolve):
        lines = [f"{seat}: {'; '.join(orders)}".rstrip() for seat, orders in action.orders.items()]
        return "\n".join([f"resolve {action.phase}", *lines])
    lines = list(action.orders) or ["hold"]
    return "\n".join([*lines, "draw"] if action.draw else lines)


def to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Resolve):
        return {
            "type": "resolve",
            "phase": action.phase,
            "orders": {str(seat): list(orders) for seat, orders in action.orders.items()},
        }
    doc: dict[str, Any] = {"type": "orders", "orders": list(action.orders), "draw": action.draw}
    if action.seat is not None:
        doc["seat"] = action.seat
    return doc
