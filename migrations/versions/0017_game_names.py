"""games: the name its creator gave the game

A game is called by the name GameCreated gives it (`name`), else by its players'
names. The column keeps the given name for the pages, lists, feeds and mails that
name the game; games created before names have none, and so are called by their
players.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("name", sa.String(length=400), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("name")
