"""open tables: games waiting for players, and the mailed links that take a seat

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        "open_tables",
        sa.Column("id", text(length=32), nullable=False),
        sa.Column("game", text(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("setup", sa.JSON(), nullable=True),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("wanted", sa.Integer(), nullable=False),
        sa.Column("creator", text(length=320), nullable=False),
        sa.Column("status", text(length=16), nullable=False),
        sa.Column("game_id", text(length=32), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", text(length=32), nullable=False),
        sa.Column("expires_at", text(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_open_tables")),
    )
    op.create_index(
        op.f("ix_open_tables_status_expires_at"), "open_tables", ["status", "expires_at"]
    )
    op.create_index(op.f("ix_open_tables_creator"), "open_tables", ["creator"])
    op.create_table(
        "open_joins",
        sa.Column("id_sha256", text(length=64), nullable=False),
        sa.Column("table_id", text(length=32), nullable=False),
        sa.Column("name", text(length=200), nullable=False),
        sa.Column("address", text(length=320), nullable=False),
        sa.Column("language", text(length=8), nullable=False),
        sa.Column("created_at", text(length=32), nullable=False),
        sa.Column("used_at", text(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_open_joins")),
    )
    op.create_index(op.f("ix_open_joins_table_id"), "open_joins", ["table_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_open_joins_table_id"), table_name="open_joins")
    op.drop_table("open_joins")
    op.drop_index(op.f("ix_open_tables_creator"), table_name="open_tables")
    op.drop_index(op.f("ix_open_tables_status_expires_at"), table_name="open_tables")
    op.drop_table("open_tables")
