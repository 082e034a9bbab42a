"""What a viewer is shown of a game: the state document (`view`), the position as
text (`describe`) and one line on each action (`narrate`). A seat's pending orders
and draw vote are in what that seat is shown, never in what anyone else is."""

from __future__ import annotations

from typing import Any

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from .actions import Action, Orders, Resolve
from .legality import possible_orders
from .play import active, can_order, draw_agreed, ordered
from .position import POWERS, SEATS, Position, facts
from .state import DipState, PhaseRecord
from .words import listing, phase_name, power_name, result_name


def round_of(state: DipState) -> int:
    """The current phase's number from 1 (the last phase's once over)."""
    return len(state.history) + (0 if state.over else 1)


def _board(position: Position) -> dict[str, Any]:
    return {
        "units": {p: list(position.units[i]) for i, p in enumerate(POWERS)},
        "dislodged": {
            p: {unit: list(where) for unit, where in position.retreats[i]}
            for i, p in enumerate(POWERS)
        },
        "centres": {p: list(position.centres[i]) for i, p in enumerate(POWERS)},
        "adjustments": {p: facts(position).adjust[i] for i, p in enumerate(POWERS)},
        "influence": {p: list(position.influence[i]) for i, p in enumerate(POWERS)},
    }


def _last(state: DipState) -> dict[str, Any] | None:
    """The board the last resolution started from (public once resolved: it is
    where that phase's orders were given), to draw them on; None before any."""
    if state.previous is None:
        return None
    phase = state.previous.phase
    return {"phase": phase, "phase_name": phase_name(phase), **_board(state.previous)}


def _record(record: PhaseRecord) -> dict[str, Any]:
    return {
        "phase": record.phase,
        "phase_name": phase_name(record.phase),
        "orders": {
            POWERS[i]: list(given) for i, given in enumerate(record.orders) if given is not None
        },
        "results": {unit: list(said) for unit, said in record.results},
        "results_said": {unit: listing(map(result_name, said)) for unit, said in record.results},
    }


def view(state: DipState, seat: int | None) -> dict[str, Any]:
    """The state document for a seat (its own pending orders, draw vote and
    possible orders included) or a spectator (None)."""
    position = state.position
    doc: dict[str, Any] = {
        "game": "diplomacy",
        "status": "finished" if state.over else "playing",
        "round": round_of(state),
        "turn": None,
        "map": position.map,
        "phase": position.phase,
        "phase_name": phase_name(position.phase),
        "players": [
            {
                "seat": s,
                "name": name,
                "power": POWERS[s - 1],
                "power_name": power_name(POWERS[s - 1]),
            }
            for s, name in zip(SEATS, state.names, strict=True)
        ],
        **_board(position),
        "ordered": ordered(state),
        "waiting": sorted(active(state)),
        "history": [_record(r) for r in state.history],
        "last": _last(state),
        "winners": None if state.winners is None else list(state.winners),
        "drawn": state.drawn,
    }
    if seat in SEATS:
        assert seat is not None
        pending = state.pending[seat - 1]
        doc["my_orders"] = None if pending is None else list(pending)
        doc["my_draw"] = state.draws[seat - 1]
        doc["possible"] = possible_orders(position, seat) if can_order(state, seat) else {}
    return doc


def describe(state: DipState, seat: int | None) -> str:
    """The phase, each power's centres and units, who is waited on, the outcome;
    for a seat, its own orders given this phase."""
    position = state.position
    lines = [phase_name(position.phase)]
    for i, power in enumerate(POWERS):
        units = [*position.units[i], *(f"*{unit}" for unit, _ in position.retreats[i])]
        lines.append(
            ngettext(
                "%(power)s: %(num)d centre; %(units)s",
                "%(power)s: %(num)d centres; %(units)s",
                len(position.centres[i]),
                power=power_name(power),
                units=listing(units) or "-",
            )
        )
    if state.over:
        lines.append(outcome_line(state))
    else:
        waiting = [power_name(POWERS[s - 1]) for s in sorted(active(state))]
        lines.append(_("Waiting for orders from: %(powers)s", powers=listing(waiting) or "-"))
    pending = state.pending[seat - 1] if seat in SEATS and seat is not None else None
    if pending is not None:
        lines.append(_("Your orders: %(orders)s", orders="; ".join(pending) or "-"))
    return "\n".join(lines)


def outcome_line(state: DipState) -> str:
    winners = [power_name(POWERS[s - 1]) for s in state.winners or ()]
    if state.drawn:
        return _("Drawn among %(powers)s.", powers=listing(winners))
    return _("%(power)s wins.", power=listing(winners))


def _orders_line(seat: int, given: tuple[str, ...]) -> str:
    said = listing(given) if given else _("no orders")
    return f"{power_name(POWERS[seat - 1])}: {said}"


def _results_line(record: PhaseRecord) -> list[str]:
    by_result: dict[str, list[str]] = {}
    for unit, said in record.results:
        for result in said:
            by_result.setdefault(result, []).append(unit)
    return [f"{result_name(r)}: {listing(units)}" for r, units in by_result.items()]


def narrate(before: DipState, action: Action, after: DipState, viewer: int | None) -> str:
    """One line: a seat's orders to itself, only that they were given to anyone
    else; a resolution's orders and results to all."""
    if isinstance(action, Orders):
        power = power_name(POWERS[(action.seat or 1) - 1])
        if viewer is None or viewer != action.seat:
            return _("%(power)s gave orders", power=power)
        said = (
            _("orders: %(orders)s", orders="; ".join(action.orders))
            if action.orders
            else _("no orders: every unit keeps the default")
        )
        return said + ("; " + _("you vote for a draw") if action.draw else "")
    return _narrate_resolve(before, action, after)


def _narrate_resolve(before: DipState, action: Resolve, after: DipState) -> str:
    name = phase_name(action.phase)
    records = after.history[len(before.history) :]
    if draw_agreed(before):  # nothing was adjudicated
        powers = listing(power_name(POWERS[s - 1]) for s in after.winners or ())
        return _("%(phase)s: a draw agreed by %(powers)s", phase=name, powers=powers)
    parts = [_orders_line(seat, given) for seat, given in action.orders.items()]
    if records:
        parts += _results_line(records[0])
    line = f"{name}: " + "; ".join(parts or [_("no orders")])
    skipped = [phase_name(r.phase) for r in records[1:]]
    if skipped:
        line += "; " + _("then %(phases)s: nothing to order", phases=listing(skipped))
    if after.over:
        line += "; " + outcome_line(after)
    return line
