"""sign-ins: a mailed sign-in link, single-use, then the session of its browser

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_ins",
        sa.Column("id_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("session_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id_sha256", name=op.f("pk_sign_ins")),
    )
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sign_ins_session_sha256"), ["session_sha256"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_ins_session_sha256"))
    op.drop_table("sign_ins")
