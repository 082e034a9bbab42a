"""seats_seen: how far each seat's person has seen their game on its page

A notice that tells a person what their page has shown them already (a chat line
read live, a round's scores looked at) is not sent: the page records, per seat and
for the seat's holder of now, the last event it showed. New, and empty: until a
page is shown, every notice goes as before.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seats_seen",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seen_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats_seen")),
    )


def downgrade() -> None:
    op.drop_table("seats_seen")
