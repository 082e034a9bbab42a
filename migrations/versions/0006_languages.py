"""languages: the language a seat's person reads their mails in, and the one each
queued notice is written in

Every existing seat and notice is English, as everything was before.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("seats", "outbox")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column(
                    "language",
                    sqlmodel.sql.sqltypes.AutoString(length=8),
                    nullable=False,
                    server_default="en",
                )
            )
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column("language", server_default=None, existing_nullable=False)


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("language")
