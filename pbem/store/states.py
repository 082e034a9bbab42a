"""A game's state at any seq: the head's state kept in its games row, or the latest
checkpoint snapshot at or before the seq plus a fold of the events after it through
the game's rules. Both are caches: the events alone decide."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from pbem.games import Game

from . import log
from .events import MOVES, UNDO_DONE, Envelope
from .tables import Game as GameRow
from .tables import Snapshot, core_table

SNAPSHOTS = core_table(Snapshot)
GAMES = core_table(GameRow)
_CHECKPOINT = (
    select(SNAPSHOTS.c.seq, SNAPSHOTS.c.state)
    .where(
        SNAPSHOTS.c.game_id == bindparam("g"),
        SNAPSHOTS.c.seq <= bindparam("limit"),
        SNAPSHOTS.c.engine_version == bindparam("version"),
    )
    .order_by(SNAPSHOTS.c.seq.desc())
    .limit(1)
)
_HEAD = select(GAMES.c.head_seq, GAMES.c.engine_version, GAMES.c.state).where(
    GAMES.c.id == bindparam("g")
)
_KEEP = insert(SNAPSHOTS)


class _UndoneBeforeBase(Exception):
    """An undo in the tail reaches back before the state the fold started from."""

    def __init__(self, back_to: int) -> None:
        self.back_to = back_to


def initial_state(game: Game, created: dict[str, Any]) -> Any:
    """The state GameCreated describes."""
    return game.setup([p["name"] for p in created["players"]], created["setup"])


class Folder:
    """Folds events one at a time onto a base state, remembering the state after
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
        were stored (`verify` checks them again)."""
        if event.type in MOVES:
            action = self.game.parse(event.payload["action"])
            self.stack.append((event.seq, self.game.perform(self.state, action)))
        elif event.type == UNDO_DONE:
            back_to = event.payload["back_to"]
            if back_to < self.base_seq:
                raise _UndoneBeforeBase(back_to)
            while self.stack[-1][0] > back_to:
                self.stack.pop()
        return self.state


def state_at(conn: Connection, game: Game, game_id: str, seq: int) -> Any:
    """fold(events[:seq]) for the game, from the best cached state."""
    head = conn.execute(_HEAD, {"g": game_id}).first()
    if head is not None and head.head_seq == seq and head.engine_version == game.version:
        return game.load_state(head.state)
    limit = seq
    while True:
        checkpoint = conn.execute(
            _CHECKPOINT, {"g": game_id, "limit": limit, "version": game.version}
        ).first()
        if checkpoint is None:
            base_seq, base = 1, initial_state(game, log.created_payload(conn, game_id))
        else:
            base_seq, base = checkpoint.seq, game.load_state(checkpoint.state)
        folder = Folder(game, base_seq, base)
        try:
            for event in log.events(conn, game_id, after=base_seq, upto=seq):
                folder.push(event)
            return folder.state
        except _UndoneBeforeBase as undone:
            limit = min(undone.back_to, base_seq - 1)


def checkpoint(conn: Connection, game: Game, game_id: str, seq: int, state: Any) -> None:
    """Keep the state at `seq` for history (the caller decides when)."""
    conn.execute(
        _KEEP,
        {
            "game_id": game_id,
            "seq": seq,
            "engine_version": game.version,
            "state": game.dump_state(state),
        },
    )
