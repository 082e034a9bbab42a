"""A game's state at any seq: the latest snapshot at or before it, plus a fold of the
events after it through the game's rules. Snapshots are a cache: dropping them
changes nothing but speed."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, delete, select

from pbem.games import Game

from . import log
from .events import MOVES, UNDO_DONE, Envelope
from .tables import Snapshot


class _UndoneBelowBase(Exception):
    """An undo in the tail reaches back before the snapshot the fold started from."""

    def __init__(self, back_to: int) -> None:
        self.back_to = back_to


def initial_state(game: Game, created: dict[str, Any]) -> Any:
    """The state GameCreated describes."""
    return game.setup([p["name"] for p in created["players"]], created["setup"])


class Folder:
    """Folds events one at a time onto a base state, remembering the states after
    each move so that an undo can step back to any of them."""

    def __init__(self, game: Game, base_seq: int, base: Any) -> None:
        self.game = game
        self.base_seq = base_seq
        self.stack = [(base_seq, base)]

    @property
    def state(self) -> Any:
        return self.stack[-1][1]

    def push(self, event: Envelope) -> Any:
        """The state after `event`. Moves are trusted: they were checked before they
        were stored."""
        if event.type in MOVES:
            action = self.game.parse(event.payload["action"])
            self.stack.append((event.seq, self.game.perform(self.state, action)))
        elif event.type == UNDO_DONE:
            back_to = event.payload["back_to"]
            if back_to < self.base_seq:
                raise _UndoneBelowBase(back_to)
            while self.stack[-1][0] > back_to:
                self.stack.pop()
        return self.state


def fold(game: Game, base_seq: int, base: Any, tail: list[Envelope]) -> Any:
    """The state after folding `tail` onto `base` (the state at `base_seq`)."""
    folder = Folder(game, base_seq, base)
    for event in tail:
        folder.push(event)
    return folder.state


def state_at(session: Session, game: Game, game_id: str, seq: int) -> Any:
    """fold(events[:seq]) for the game, from the best snapshot."""
    created = log.created(session, game_id)
    limit = seq
    while True:
        snapshot = session.exec(
            select(Snapshot)
            .where(
                Snapshot.game_id == game_id,
                Snapshot.seq <= limit,
                Snapshot.engine_version == game.version,
            )
            .order_by(col(Snapshot.seq).desc())
        ).first()
        if snapshot is None:
            base_seq, base = 1, initial_state(game, created.payload)
        else:
            base_seq, base = snapshot.seq, game.load_state(snapshot.state)
        tail = log.events(session, game_id, after=base_seq, upto=seq)
        try:
            return fold(game, base_seq, base, tail)
        except _UndoneBelowBase as undone:
            limit = min(undone.back_to, base_seq - 1)


def keep_snapshot(
    session: Session, game: Game, game_id: str, seq: int, state: Any, every: int
) -> None:
    """Store the state at `seq` (the new head): kept for good when seq is a multiple
    of `every`; otherwise it replaces the previous head's snapshot."""
    session.exec(
        delete(Snapshot).where(
            col(Snapshot.game_id) == game_id,
            col(Snapshot.seq) < seq,
            col(Snapshot.seq) % every != 0,
        )
    )
    session.add(
        Snapshot(
            game_id=game_id, seq=seq, engine_version=game.version, state=game.dump_state(state)
        )
    )
