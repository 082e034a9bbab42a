"""events, read models, snapshots and outbox

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("prev_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_events")),
        sa.UniqueConstraint(
            "game_id", "idempotency_key", name=op.f("uq_events_game_id_idempotency_key")
        ),
    )
    _events_are_immutable()
    op.create_table(
        "games",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("turn_started_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("deadline_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("undo_request_seq", sa.Integer(), nullable=True),
        sa.Column("engine_version", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_games_status_deadline_at"), ["status", "deadline_at"], unique=False
        )

    op.create_table(
        "inbound",
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("received_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_inbound")),
    )
    with op.batch_alter_table("inbound", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbound_received_at"), ["received_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_sender"), ["sender"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=True),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("to_address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint(
            "game_id", "seq", "kind", "seat", name=op.f("uq_outbox_game_id_seq_kind_seat")
        ),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_game_id"), ["game_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_outbox_status_next_attempt_at"),
            ["status", "next_attempt_at"],
            unique=False,
        )

    op.create_table(
        "seats",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=True),
        sa.Column("token_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("token_nonce", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("controller", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("timeouts", sa.Integer(), nullable=False),
        sa.Column("mail", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("vacation_from", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("vacation_until", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("vacation_days_used", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_seats_token_sha256")),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_email"), ["email"], unique=False)

    op.create_table(
        "snapshots",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("engine_version", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_snapshots")),
    )


def _events_are_immutable() -> None:
    """Refuse UPDATE and DELETE on events in the database itself."""
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("update", "delete"):
            op.execute(
                f"CREATE TRIGGER events_no_{verb} BEFORE {verb.upper()} ON events "
                f"BEGIN SELECT RAISE(ABORT, 'events are never {verb}d'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION pbem_events_immutable() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'events are never updated or deleted'; END $$"
        )
        op.execute(
            "CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events "
            "FOR EACH ROW EXECUTE FUNCTION pbem_events_immutable()"
        )


def downgrade() -> None:
    op.drop_table("snapshots")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_email"))

    op.drop_table("seats")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_status_next_attempt_at"))
        batch_op.drop_index(batch_op.f("ix_outbox_game_id"))

    op.drop_table("outbox")
    with op.batch_alter_table("inbound", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_sender"))
        batch_op.drop_index(batch_op.f("ix_inbound_received_at"))

    op.drop_table("inbound")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_status_deadline_at"))

    op.drop_table("games")
    if op.get_bind().dialect.name != "sqlite":
        op.execute("DROP TRIGGER events_immutable ON events")
        op.execute("DROP FUNCTION pbem_events_immutable()")
    op.drop_table("events")
