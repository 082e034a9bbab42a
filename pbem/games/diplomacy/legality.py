"""Which order sets a power may give in a position: every order one of the package's
possible orders for a location the power orders, one order per unit, no more
builds or disbands than the adjustment allows; and the possible orders by seat."""

from __future__ import annotations

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from ..base import IllegalAction
from .position import AMBIGUOUS, POWERS, Facts, Position, facts, loose_key
from .words import phase_name, power_name

WAIVE = "WAIVE"


def possible_orders(position: Position, seat: int) -> dict[str, list[str]]:
    """location -> the orders the seat's power may give there (sorted)."""
    known = facts(position)
    return {loc: list(known.possible[loc]) for loc in known.orderable[seat - 1]}


def single_orders(position: Position, seat: int) -> list[str]:
    """Every possible order of the seat, each once (WAIVE once), by location."""
    seen: dict[str, None] = {}
    for orders in possible_orders(position, seat).values():
        seen.update(dict.fromkeys(orders))
    return list(seen)


def owner(position: Position, loc: str) -> int | None:
    """The index of the power with a unit (or a dislodged unit) in `loc`."""
    for index, _power in enumerate(POWERS):
        units = (*position.units[index], *position.dislodged(index))
        if any(unit.split()[1][:3] == loc for unit in units):
            return index
    return None


def _location(order: str) -> str:
    words = order.split()
    return (words[1] if words[0] in ("A", "F") and len(words) > 1 else words[0])[:3]


def seat_of(position: Position, order: str) -> int | None:
    """The seat whose power orders the location of a normalized order, if any."""
    loc = _location(order)
    for index, locations in enumerate(facts(position).orderable):
        if loc in locations:
            return index + 1
    return None


def canonical(position: Position, seat: int, order: str) -> str:
    """The package's spelling of one normalized order of the seat; IllegalAction,
    naming the order, when it is none of the possible orders of its unit."""
    known = facts(position)
    index = seat - 1
    adjust = known.adjust[index]
    if order == WAIVE:
        if position.kind == "A" and adjust > 0:
            return WAIVE
        raise IllegalAction(_('"WAIVE" leaves out a build: only for a power that may build'))
    loc = _location(order)
    if loc not in known.orderable[index]:
        holder = owner(position, loc)
        if holder is not None and holder != index:
            raise IllegalAction(
                _(
                    '"%(order)s": the unit in %(loc)s is %(power)s\'s, not yours',
                    order=order,
                    loc=loc,
                    power=power_name(POWERS[holder]),
                )
            )
        raise IllegalAction(
            _('"%(order)s": you have nothing to order in %(loc)s', order=order, loc=loc)
        )
    if order in known.possible[loc]:
        return order
    found = known.loose[loc].get(loose_key(order))
    if found is None:
        examples = ", ".join(known.possible[loc][:3])
        raise IllegalAction(
            _(
                '"%(order)s" is not a possible order in %(loc)s; possible are e.g. %(examples)s',
                order=order,
                loc=loc,
                examples=examples,
            )
        )
    if found == AMBIGUOUS:
        choices = [o for o in known.possible[loc] if loose_key(o) == loose_key(order)]
        raise IllegalAction(
            _(
                '"%(order)s" could be %(choices)s: write which',
                order=order,
                choices=" or ".join(choices),
            )
        )
    return found


def check_orders(position: Position, seat: int, orders: tuple[str, ...]) -> tuple[str, ...]:
    """The seat's order set in the package's spelling, or IllegalAction naming the
    first order that is wrong."""
    known = facts(position)
    index = seat - 1
    if not known.orderable[index]:
        raise IllegalAction(
            _(
                "%(power)s has nothing to order in %(phase)s",
                power=power_name(POWERS[index]),
                phase=phase_name(position.phase),
            )
        )
    given: list[str] = []
    by_location: dict[str, str] = {}
    for order in orders:
        said = canonical(position, seat, order)
        if said != WAIVE:
            loc = _location(said)
            if loc in by_location:
                raise IllegalAction(
                    _(
                        '"%(order)s": %(loc)s has an order already ("%(other)s")',
                        order=said,
                        loc=loc,
                        other=by_location[loc],
                    )
                )
            by_location[loc] = said
        given.append(said)
    _check_count(known, index, given)
    return tuple(given)


def _check_count(known: Facts, index: int, given: list[str]) -> None:
    adjust = known.adjust[index]
    if adjust > 0 and len(given) > adjust:
        raise IllegalAction(
            ngettext(
                "%(power)s may build %(num)d unit, not %(given)s (%(last)s is one too many)",
                "%(power)s may build %(num)d units, not %(given)s (%(last)s is one too many)",
                adjust,
                power=power_name(POWERS[index]),
                given=len(given),
                last=given[adjust],
            )
        )
    if adjust < 0 and len(given) > -adjust:
        raise IllegalAction(
            ngettext(
                "%(power)s disbands %(num)d unit, not %(given)s (%(last)s is one too many)",
                "%(power)s disbands %(num)d units, not %(given)s (%(last)s is one too many)",
                -adjust,
                power=power_name(POWERS[index]),
                given=len(given),
                last=given[-adjust],
            )
        )
