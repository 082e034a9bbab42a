"""How a phase goes: which seats the game waits on, a seat's sealed orders, the
resolution once no seat is waited on, and its outcome (the phase adjudicated by the
package, a solo victory, or a draw every surviving power voted for)."""

from __future__ import annotations

from dataclasses import replace

from pbem.i18n import gettext as _

from ..base import IllegalAction
from .actions import Orders, Resolve
from .position import POWERS, SEATS, Position, facts, idle, process, victory
from .state import DipState, OrderSet, PhaseRecord

MAX_IDLE = 8  # phases in a row nobody orders (never more than one in the package)


def can_order(state: DipState, seat: int) -> bool:
    """Whether the seat's power has something to order this phase."""
    return not state.over and seat in SEATS and bool(facts(state.position).orderable[seat - 1])


def active(state: DipState) -> frozenset[int]:
    """The seats whose power has something to order and gave no orders yet."""
    if state.over:
        return frozenset()
    return frozenset(s for s in SEATS if can_order(state, s) and state.pending[s - 1] is None)


def ordered(state: DipState) -> list[int]:
    """The seats that gave orders this phase (public: that they did, not what)."""
    return [s for s in SEATS if state.pending[s - 1] is not None]


def resolution(state: DipState) -> Resolve | None:
    """The game's action once nobody is waited on: every order set given."""
    if state.over or active(state):
        return None
    given = {
        s: orders for s, orders in zip(SEATS, state.pending, strict=True) if orders is not None
    }
    return Resolve(state.position.phase, given)


def give(state: DipState, action: Orders) -> DipState:
    """The state with the seat's order set (and draw vote) sealed, replacing any
    earlier one of this phase."""
    if action.seat is None:
        raise IllegalAction(_("say which seat gives these orders"))
    index = action.seat - 1
    pending = tuple(action.orders if i == index else p for i, p in enumerate(state.pending))
    draws = tuple(action.draw if i == index else d for i, d in enumerate(state.draws))
    return replace(state, pending=pending, draws=draws)


def survivors(position: Position) -> list[int]:
    """The seats whose power owns a supply centre."""
    return [s for s in SEATS if position.centres[s - 1]]


def voters(position: Position) -> list[int]:
    """The seats a draw needs: each surviving power with a unit on the board (one
    with centres and no unit cannot order in a movement phase, so cannot vote)."""
    return [s for s in survivors(position) if position.units[s - 1] or position.retreats[s - 1]]


def draw_agreed(state: DipState) -> bool:
    """Whether every power a draw needs voted for it with its orders this phase."""
    needed = voters(state.position)
    return bool(needed) and all(
        state.pending[s - 1] is not None and state.draws[s - 1] for s in needed
    )


def _cleared(state: DipState) -> DipState:
    return replace(state, pending=tuple(None for _ in POWERS), draws=tuple(False for _ in POWERS))


def resolve(state: DipState, action: Resolve) -> DipState:
    """The state after the phase's resolution: drawn, or adjudicated by the package
    and recorded, going on through any phase in which nobody can order."""
    position = state.position
    given: tuple[OrderSet, ...] = tuple(action.orders.get(s) for s in SEATS)
    if draw_agreed(state):
        record = PhaseRecord(position.phase, tuple(None for _ in POWERS), ())
        ended = replace(state, history=(*state.history, record), previous=position)
        return replace(_cleared(ended), winners=tuple(survivors(position)), drawn=True)
    history = list(state.history)
    for _round in range(MAX_IDLE):
        orders = {POWERS[s - 1]: o for s, o in zip(SEATS, given, strict=True) if o is not None}
        done = process(position, orders)
        history.append(PhaseRecord(position.phase, given, done.results))
        position = done.position
        if done.outcome is not None:
            seats = tuple(SEATS[POWERS.index(p)] for p in done.outcome)
            solo = len(seats) == 1 and len(position.centres[seats[0] - 1]) >= victory(position.map)
            after = replace(state, position=position, history=tuple(history))
            return replace(_cleared(after), previous=state.position, winners=seats, drawn=not solo)
        if not idle(position):
            break
        given = tuple(None for _ in POWERS)
    after = replace(state, position=position, history=tuple(history), previous=state.position)
    return _cleared(after)


def end(state: DipState, seat: int) -> DipState:
    """The game ended by the seat leaving it with nobody else at the table: drawn
    among the other surviving powers (the seat's own, should none be left)."""
    others = [s for s in survivors(state.position) if s != seat]
    return _cleared(replace(state, winners=tuple(others or [seat]), drawn=True))
