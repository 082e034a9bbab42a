"""The moves an undo took back after they had shown something (something drawn, a
card shown): what they showed is hidden again, so no view tells them in the game's
words any more. The history tells who moved and that it was taken back, a
position inside them is shown as the undo left it, the chain gives their
commitments only. Decided by the log's structure, never by looking for hidden
words in a text (a text a person wrote is told as written)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from pbem.events import MOVES, TALK, Envelope, TurnTimedOut, UndoRequested, moves_in_force
from pbem.games import Rules
from pbem.i18n import gettext as _
from pbem.store import log, states

from .history import Who


@dataclass(frozen=True)
class Veil:
    """The seqs back_to < seq < undone_at: moves an undo at `undone_at` took back
    after they had shown something, and whatever else happened among them."""

    back_to: int
    undone_at: int

    def covers(self, seq: int) -> bool:
        return self.back_to < seq < self.undone_at


@dataclass(frozen=True)
class Veils:
    """Every veil of a game's log, oldest undo first."""

    veils: tuple[Veil, ...] = ()

    def covers(self, seq: int) -> bool:
        return any(v.covers(seq) for v in self.veils)

    def shown_for(self, seq: int) -> int:
        """The seq whose position stands in for `seq`'s: the seq an undo went back
        to, through every veil over it (an undo may reach back over another)."""
        while True:
            back = [v.back_to for v in self.veils if v.covers(seq)]
            if not back:
                return seq
            seq = min(back)

    def hides(self, event: Envelope) -> bool:
        """Whether `event` is a move under a veil (told without its words, its
        payload never disclosed)."""
        return event.type in MOVES and self.covers(event.seq)

    def names(self, request: UndoRequested) -> bool:
        """Whether an undo request may name the move it asked to take back: not
        one that went under a veil."""
        return not self.covers(request.back_to + 1)


def veils(conn: Connection, rules: Rules, game_id: str, seats: Iterable[int]) -> Veils:
    """The game's veils: each undo whose moves had shown someone (a spectator, or a
    seat of `seats`) something hidden from them before."""
    undos = log.undos(conn, game_id)
    if not undos:
        return Veils()  # most games: one read of the undos, and nothing more
    viewers = [None, *seats]
    found = []
    for undo in undos:
        back_to = undo.payload["back_to"]
        moves = moves_in_force(log.events(conn, game_id, upto=undo.seq - 1, but=TALK))
        state = states.state_at(conn, rules, game_id, back_to)
        for move in (m for m in moves if m.seq > back_to):
            after = rules.perform(state, rules.parse(move.payload["action"]))
            if shows_hidden(rules, state, after, viewers):
                found.append(Veil(back_to, undo.seq))
                break
            state = after
    return Veils(tuple(found))


def shows_hidden(rules: Rules, before: Any, after: Any, viewers: Iterable[int | None]) -> bool:
    """Whether going from `before` to `after` showed one of `viewers` something that
    was hidden from them: what the rules call a reveal, or anything that stopped
    being secret for one of them (something drawn, a card, the seed)."""
    if rules.reveals(before, after):
        return True
    return any(rules.secrets(before, v) - rules.secrets(after, v) for v in viewers)


def without_words(event: Envelope, who: Who) -> str:
    """A move under a veil, told without the game's words."""
    seat = event.payload.get("seat")
    if seat is None:
        return _("The game resolved a phase that was taken back since")
    if isinstance(event.event, TurnTimedOut):
        if who.mine(seat):
            return _("You ran out of time and a bot played for you (taken back since)")
        return _(
            "%(name)s ran out of time and a bot played for them (taken back since)",
            name=who.name(seat),
        )
    if who.mine(seat):
        return _("You played a move that was taken back since")
    return _("%(name)s played a move that was taken back since", name=who.name(seat))
