"""chain commitments: the salt of each event of a version 2 hash chain, and the
version of each game's chain

Every existing event has no salt and every existing game keeps version 1: its
hashes stay what they are, and verify as before.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ALTER TABLE on both databases: on SQLite a batch would rebuild the
    # events table, and with it its triggers (events are never updated or deleted)
    op.add_column(
        "events", sa.Column("salt", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("chain", sa.Integer(), nullable=False, server_default="1"))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("chain", server_default=None, existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("chain")
    op.drop_column("events", "salt")  # SQLite 3.35 and later drop a column in place
