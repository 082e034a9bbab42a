"""A game's state at any seq: the head's state kept in its games row, or the latest
checkpoint snapshot at or before the seq plus a fold of the events after it through
the game's rules (`fold`). Both are caches: the events alone decide."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from pbem.events import TALK, Envelope, GameCreated
from pbem.games import Rules as Game

from . import log
from .database import Statement
from .fold import Fold, Step, UndoneBeforeBase, fold
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
_HEAD_ROW = Statement(_HEAD)  # every cold load of a game reads it
_KEEP = insert(SNAPSHOTS)


def initial_state(game: Game, created: Mapping[str, Any] | GameCreated) -> Any:
    """The state GameCreated (its payload or its event) describes."""
    if isinstance(created, GameCreated):
        return game.setup([p.name for p in created.players], created.setup)
    return game.setup([p["name"] for p in created["players"]], created["setup"])


class Folder(Fold):
    """The fold one event at a time (`push` answers the state after it)."""

    def push(self, event: Envelope) -> Any:
        return self.step(event).after


def state_at(conn: Connection, game: Game, game_id: str, seq: int) -> Any:
    """fold(events[:seq]) for the game, from the best cached state."""
    head = _HEAD_ROW.first(conn, {"g": game_id})
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
        walk = Fold(game, base_seq, base)
        try:
            # talk folds to nothing: a long chat since the checkpoint is not read
            for event in log.events(conn, game_id, after=base_seq, upto=seq, but=TALK):
                walk.step(event)
            return walk.state
        except UndoneBeforeBase as undone:
            limit = min(undone.back_to, base_seq - 1)


def steps(
    conn: Connection,
    game: Game,
    game_id: str,
    *,
    after: int = 0,
    upto: int | None = None,
    but: tuple[str, ...] = (),
) -> Iterator[Step]:
    """The game's events with after < seq <= upto, each with the rules state before
    and after it (an undo back before `after` restores that state from the store):
    what history, a stale answer and a replay page walk. `but`: types of events
    that change no state (talk), left out unread."""
    base = max(after, 1)
    events = log.events(conn, game_id, after=after, upto=upto, but=but)

    def restore(seq: int) -> Any:
        return state_at(conn, game, game_id, seq)

    return fold(game, events, base, restore(base), restore=restore)


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
