"""Which stored moves are still sealed: a seat's move its game keeps hidden from the
other seats (they learn it was made, not what) until the game's own resolution
(a Resolved event) reveals it. The chain answer and the log file leave such a move
out for everyone but the seat that made it."""

from __future__ import annotations

from sqlalchemy import Connection

from pbem.events import MOVE_TYPES, RESOLVED, Envelope
from pbem.events.kinds import TALK
from pbem.games import Rules, Sequential
from pbem.store import states


def sealed_moves(
    conn: Connection, rules: Rules, game_id: str, events: list[Envelope]
) -> dict[int, int]:
    """seq -> seat of each move in `events` (the game's events, in order, up to its
    head) that is sealed and not revealed yet: the game's `sealed` said so, and no
    Resolved came after it. A game of one seat at a time seals nothing."""
    if isinstance(rules, Sequential) or not events:
        return {}
    since = max((e.seq for e in events if e.type == RESOLVED), default=0)
    head = events[-1].seq
    if since == head:
        return {}
    found = {}
    for step in states.steps(conn, rules, game_id, after=since, upto=head, but=TALK):
        typed = step.envelope.event
        if not isinstance(typed, MOVE_TYPES) or step.move is None:
            continue
        if rules.sealed(step.before, step.move):
            found[step.envelope.seq] = typed.seat
    return found


def hidden_from(sealed: dict[int, int], seq: int, viewer: int | None) -> bool:
    """Whether the move at `seq` is sealed for `viewer` (a seat, None for anyone
    else): sealed, and not the viewer's own."""
    return seq in sealed and sealed[seq] != viewer
