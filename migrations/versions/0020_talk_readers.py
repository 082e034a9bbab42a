"""talk_readers: who may read a private line of table talk

A game whose press is "private" lets a seat say a line to some seats only (a
TableTalk with `to`): its sayer and those seats each get a row here, and every
chat page, poll and count reads only the lines its reader has a row for, or that
have no rows at all. New, and empty: every line said before is public.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "talk_readers",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", "seat", name=op.f("pk_talk_readers")),
    )


def downgrade() -> None:
    op.drop_table("talk_readers")
