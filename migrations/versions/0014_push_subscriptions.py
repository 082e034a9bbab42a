"""push_subscriptions: the browsers' Web Push subscriptions, each for one seat (as
long as its holder holds it) or for every seat of a signed-in address, while the
browser's session that asked lasts

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", TEXT(length=400), nullable=False),
        sa.Column("game_id", TEXT(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("holder", TEXT(length=64), nullable=True),
        sa.Column("address", TEXT(length=320), nullable=True),
        sa.Column("endpoint", TEXT(length=1024), nullable=False),
        sa.Column("endpoint_sha256", TEXT(length=64), nullable=False),
        sa.Column("p256dh", TEXT(length=100), nullable=False),
        sa.Column("auth", TEXT(length=40), nullable=False),
        sa.Column("session_sha256", TEXT(length=64), nullable=False),
        sa.Column("created_at", TEXT(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint(
            "scope", "endpoint_sha256", name=op.f("uq_push_subscriptions_scope_endpoint_sha256")
        ),
    )
    op.create_index(
        op.f("ix_push_subscriptions_game_id_seat"), "push_subscriptions", ["game_id", "seat"]
    )
    op.create_index(op.f("ix_push_subscriptions_scope"), "push_subscriptions", ["scope"])
    op.create_index(op.f("ix_push_subscriptions_address"), "push_subscriptions", ["address"])


def downgrade() -> None:
    op.drop_table("push_subscriptions")
