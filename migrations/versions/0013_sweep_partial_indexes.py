"""games and seats: partial indexes on the games with an undo request waiting and
on the bot seats

Every sweep looks for the undo requests waiting, to lapse the overdue ones, and for
the games whose seat to move is a bot. Without these indexes the first is a walk
through every game in play (or every game), the second a read of every seat,
finished games' too: with them, reads of the few rows that match.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_games_undo_requested"
WHERE = sa.text("undo_request_seq IS NOT NULL")
BOTS = "ix_seats_bots"
BOT_SEATS = sa.text("controller LIKE 'bot:%'")


def upgrade() -> None:
    op.create_index(
        INDEX,
        "games",
        ["undo_request_seq"],
        unique=False,
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )
    op.create_index(
        BOTS,
        "seats",
        ["game_id", "seat"],
        unique=False,
        sqlite_where=BOT_SEATS,
        postgresql_where=BOT_SEATS,
    )


def downgrade() -> None:
    op.drop_index(BOTS, table_name="seats")
    op.drop_index(INDEX, table_name="games")
