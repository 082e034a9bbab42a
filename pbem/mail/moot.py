"""When a turn mail goes moot before it is sent: its turn was played since it was
written (by the seat, or a new turn or phase began)."""

from __future__ import annotations

from pbem.events import MOVE_TYPES, Resolved, UndoDone
from pbem.games import Sequential
from pbem.service.moment import Moment

TURN_PLAYED = (*MOVE_TYPES, UndoDone)  # events that end a turn mail's turn


def played_since(seq: int, seat: int, now: Moment) -> bool:
    """Whether a move (or an undo) was made after `seq`, the mail's, that ends the
    turn it announces to `seat`: one seat at a time, any move (even if the same seat
    is to move again); several at once, the seat's own move, or a new phase (the
    game's resolution, an undo), never another seat's orders."""
    if now.head[0] == seq:
        return False
    later = [e for e in now.history(seat) if e.seq > seq]
    if isinstance(now.rules, Sequential):
        return any(isinstance(e.event, TURN_PLAYED) for e in later)
    return any(
        isinstance(e.event, (Resolved, UndoDone))
        or (isinstance(e.event, MOVE_TYPES) and e.event.seat == seat)
        for e in later
    )
