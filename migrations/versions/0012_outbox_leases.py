"""outbox leases: a row's lease (handed out, or being sent) apart from when it is due

`next_attempt_at` keeps only when a row is due (written, or backing off); the new
`leased_until` says until when a hand-out or a sender holds it. A row waiting behind
another to the same address then tells a row in flight from one backing off, and a
sender renews its lease while it works, so that a dead sender's rows come back in
seconds. A row being sent when this runs keeps its lease as it was.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(
            sa.Column("leased_until", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True)
        )
    outbox = sa.table(
        "outbox", sa.column("status"), sa.column("next_attempt_at"), sa.column("leased_until")
    )
    op.execute(
        outbox.update()
        .where(outbox.c.status == "sending")
        .values(leased_until=outbox.c.next_attempt_at)
    )


def downgrade() -> None:
    outbox = sa.table(
        "outbox", sa.column("status"), sa.column("next_attempt_at"), sa.column("leased_until")
    )
    op.execute(
        outbox.update()
        .where(outbox.c.status == "sending", outbox.c.leased_until.is_not(None))
        .values(next_attempt_at=outbox.c.leased_until)
    )
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("leased_until")
