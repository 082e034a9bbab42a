"""outbox keyed by channel and address: a notice for any channel, e-mail one of them

Revision ID: 0003
Revises: 0002

Every existing row is an e-mail (`channel` "email"); `to_address` becomes `address`
and `message_id` the channel-neutral `delivery_id`. A reminder was the kind
"reminder-<hours>"; it is now the kind "reminder", its hours in the payload and in
`topic`, which the unique key includes so that two reminders of one turn stay apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_KEY = "uq_outbox_game_id_seq_kind_seat"
NEW_KEY = "uq_outbox_game_id_seq_kind_seat_topic_channel"
_ROWS = sa.table(
    "outbox",
    sa.column("id", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("topic", sa.String()),
    sa.column("channel", sa.String()),
    sa.column("payload", sa.JSON()),
)


def _hours(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_constraint(OLD_KEY, type_="unique")
        batch_op.alter_column(
            "to_address",
            new_column_name="address",
            existing_type=sa.String(length=320),
            existing_nullable=False,
        )
        batch_op.alter_column(
            "message_id",
            new_column_name="delivery_id",
            existing_type=sa.String(length=200),
            existing_nullable=True,
        )
        batch_op.add_column(
            sa.Column(
                "channel",
                sqlmodel.sql.sqltypes.AutoString(length=32),
                nullable=False,
                server_default="email",
            )
        )
        batch_op.add_column(
            sa.Column(
                "topic",
                sqlmodel.sql.sqltypes.AutoString(length=32),
                nullable=False,
                server_default="",
            )
        )
    connection = op.get_bind()
    reminders = connection.execute(
        sa.select(_ROWS.c.id, _ROWS.c.kind, _ROWS.c.payload).where(_ROWS.c.kind.like("reminder-%"))
    ).all()
    for row in reminders:
        text = row.kind.removeprefix("reminder-")
        hours = _hours(text)
        payload = dict(row.payload or {})
        if hours is not None:
            payload.setdefault("hours", hours)
        connection.execute(
            sa.update(_ROWS)
            .where(_ROWS.c.id == row.id)
            .values(kind="reminder", topic=text[:32], payload=payload)
        )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.alter_column("channel", server_default=None, existing_nullable=False)
        batch_op.alter_column("topic", server_default=None, existing_nullable=False)
        batch_op.create_unique_constraint(
            NEW_KEY, ["game_id", "seq", "kind", "seat", "topic", "channel"]
        )


def downgrade() -> None:
    connection = op.get_bind()
    others = connection.execute(
        sa.select(sa.func.count()).select_from(_ROWS).where(_ROWS.c.channel != "email")
    ).scalar_one()
    if others:
        raise RuntimeError(
            f"the outbox holds {others} rows of channels other than e-mail, which the"
            " old schema cannot hold: deliver or delete them before downgrading"
        )
    connection.execute(
        sa.update(_ROWS)
        .where(_ROWS.c.kind == "reminder")
        .values(kind=sa.literal("reminder-") + _ROWS.c.topic)
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_constraint(NEW_KEY, type_="unique")
        batch_op.drop_column("topic")
        batch_op.drop_column("channel")
        batch_op.alter_column(
            "address",
            new_column_name="to_address",
            existing_type=sa.String(length=320),
            existing_nullable=False,
        )
        batch_op.alter_column(
            "delivery_id",
            new_column_name="message_id",
            existing_type=sa.String(length=200),
            existing_nullable=True,
        )
        batch_op.create_unique_constraint(OLD_KEY, ["game_id", "seq", "kind", "seat"])
