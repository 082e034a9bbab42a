"""feeds: the deadline feeds of My games, each behind a random id (kept as an HMAC)
and covering the seat sessions of the browser that made it

The signed feed addresses of before name their seats in the address itself and have
no row: they are answered 410 Gone.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "feeds",
        sa.Column("id_hmac", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("sessions", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id_hmac", name=op.f("pk_feeds")),
    )


def downgrade() -> None:
    op.drop_table("feeds")
