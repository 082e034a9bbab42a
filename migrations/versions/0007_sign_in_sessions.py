"""sign-in sessions: a seat session names the sign-in that opened it (at most one
per sign-in and game), mailed links to sign out everywhere, and the queue of link
requests

Every existing seat session was opened by a seat link or a sign-in whose row is not
named: it keeps working as before (its sign-in column is empty).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("sign_in_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_seat_sessions_sign_in_sha256_game_id"), ["sign_in_sha256", "game_id"]
        )
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sign_ins_address"), ["address"], unique=False)
    op.create_table(
        "sign_out_links",
        sa.Column("id_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_sign_out_links")),
    )
    op.create_table(
        "link_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("language", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_link_requests")),
    )


def downgrade() -> None:
    op.drop_table("link_requests")
    op.drop_table("sign_out_links")
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_ins_address"))
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_seat_sessions_sign_in_sha256_game_id"), type_="unique"
        )
        batch_op.drop_column("sign_in_sha256")
