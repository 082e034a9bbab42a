"""seat sessions: a browser's hold on a seat, revocable on the server

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seat_sessions",
        sa.Column("id_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("last_seen_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_seat_sessions")),
    )
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_sessions_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_sessions_game_id"))
    op.drop_table("seat_sessions")
