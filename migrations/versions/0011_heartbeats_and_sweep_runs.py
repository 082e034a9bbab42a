"""heartbeats and sweep runs: each process's last sign of life, and the scheduler's sweeps

`heartbeats` holds one row per process (the scheduler, each worker) and per lease
(the scheduler's leader lock); readiness, `pbem doctor`, the metrics and the admin
page read it. `sweep_runs` keeps the newest sweeps with their counts and errors.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "heartbeats",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("beat_at", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_heartbeats")),
    )
    op.create_table(
        "sweep_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sweep_runs")),
    )
    op.create_index(op.f("ix_sweep_runs_started_at"), "sweep_runs", ["started_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_sweep_runs_started_at"), table_name="sweep_runs")
    op.drop_table("sweep_runs")
    op.drop_table("heartbeats")
