"""seats.waiting: the seats a game waits on now, several at once for simultaneous moves

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(
            sa.Column("waiting", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # Every game so far waits on one seat at most: the seat to move of a game in play.
    op.execute(
        "UPDATE seats SET waiting = TRUE WHERE EXISTS (SELECT 1 FROM games WHERE "
        "games.id = seats.game_id AND games.status = 'playing' AND games.turn = seats.seat)"
    )
    # The sweep and My games look for the seats waited on in games in play.
    op.create_index(
        "ix_seats_waiting",
        "seats",
        ["game_id", "seat"],
        sqlite_where=sa.text("waiting"),
        postgresql_where=sa.text("waiting"),
    )


def downgrade() -> None:
    op.drop_index("ix_seats_waiting", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("waiting")
