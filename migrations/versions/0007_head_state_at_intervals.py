"""the head state kept at intervals: games.state_seq names the seq its state is at

Revision ID: 0007
Revises: 0006

A move no longer writes the whole rules state into its games row: the row keeps
the state at `state_seq` (the game's start, every eighth event, an undo, the
end), and the state at the head is that state with the few events after it
folded (the service's state cache serves the hot path). Every existing row holds
its head's state; the upgrade gives it the state a move would have left it (that of
its last event that keeps one), so that `pbem verify` finds the rows as the events
give them. The downgrade writes the head's state back into every row whose state
is older, as revision 0006 reads it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The games' rules fold the states (imported here: as the service does).
    from pbem.store.events import GAME_CREATED, UNDO_DONE
    from pbem.store.projection import HEAD_STATE_EVERY

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("state_seq", sa.Integer(), nullable=True))
    op.execute("UPDATE games SET state_seq = head_seq")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("state_seq", existing_type=sa.Integer(), nullable=False)
    # A game being played keeps the state of its last start, undo or HEAD_STATE_EVERY-th
    # event (a finished game keeps its head's, as it has).
    conn = op.get_bind()
    kept = conn.execute(
        sa.text(
            "SELECT g.id, g.game, MAX(e.seq) FROM games g JOIN events e ON e.game_id = g.id"
            " WHERE g.status = 'playing' AND (e.seq % :every = 0 OR e.type IN (:start, :undo))"
            " GROUP BY g.id, g.game, g.head_seq HAVING MAX(e.seq) <> g.head_seq ORDER BY g.id"
        ),
        {"every": HEAD_STATE_EVERY, "start": GAME_CREATED, "undo": UNDO_DONE},
    ).all()
    for game_id, game, seq in kept:
        _keep(conn, game_id, game, seq)


def downgrade() -> None:
    conn = op.get_bind()
    behind = conn.execute(
        sa.text("SELECT id, game, head_seq FROM games WHERE state_seq <> head_seq ORDER BY id")
    ).all()
    for game_id, game, head_seq in behind:
        _keep(conn, game_id, game, head_seq)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("state_seq")


def _keep(conn: sa.Connection, game_id: str, game: str, seq: int) -> None:
    """The games row takes the state at `seq` (folded by the game's rules)."""
    from pbem.games import get
    from pbem.store import states
    from pbem.store.database import state_text

    rules = get(game)
    state = rules.dump_state(states.state_at(conn, rules, game_id, seq))
    conn.execute(
        sa.text(
            "UPDATE games SET state = :state, state_seq = :seq, engine_version = :version"
            " WHERE id = :id"
        ),
        {"state": state_text(state), "seq": seq, "version": rules.version, "id": game_id},
    )
