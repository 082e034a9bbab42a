"""games: a partial index on the games with an undo request waiting

Every sweep looks for the undo requests waiting, to lapse the overdue ones. Without
this index that is a walk through every game in play (or every game): with it, a
read of the few games that have one.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_games_undo_requested"
WHERE = sa.text("undo_request_seq IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        INDEX,
        "games",
        ["undo_request_seq"],
        unique=False,
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )


def downgrade() -> None:
    op.drop_index(INDEX, table_name="games")
