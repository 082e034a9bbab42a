"""events kept in (game_id, seq) order, idempotency keys indexed only where given

Revision ID: 0005
Revises: 0004

On SQLite the events table becomes a WITHOUT ROWID table: its primary key
(game_id, seq) is the table itself, so a game's events lie together and a move
writes one b-tree less (no separate primary-key index). On both databases the
unique key of (game_id, idempotency_key) becomes a unique index on the events that
have a key: most events have none, and they no longer write an index entry.
The table is rebuilt on SQLite with its rows and its triggers (events are never
updated or deleted); the downgrade gives back the table of revision 0001.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_KEY = "uq_events_game_id_idempotency_key"  # the unique constraint of 0001
NEW_KEY = "uq_events_game_id_idempotency_key"  # the partial unique index, same name
COLUMNS = (
    "game_id VARCHAR(32) NOT NULL, seq INTEGER NOT NULL, type VARCHAR(40) NOT NULL, "
    "payload JSON NOT NULL, actor VARCHAR(80) NOT NULL, created_at VARCHAR(32) NOT NULL, "
    "idempotency_key VARCHAR(200), prev_hash VARCHAR(64) NOT NULL, hash VARCHAR(64) NOT NULL, "
    "CONSTRAINT pk_events PRIMARY KEY (game_id, seq)"
)
NAMES = "game_id, seq, type, payload, actor, created_at, idempotency_key, prev_hash, hash"
SQLITE_TRIGGERS = tuple(
    f"CREATE TRIGGER events_no_{verb} BEFORE {verb.upper()} ON events "
    f"BEGIN SELECT RAISE(ABORT, 'events are never {verb}d'); END"
    for verb in ("update", "delete")
)


def _rebuild_sqlite(table_options: str, key: str) -> None:
    """The events table again, with its rows, as CREATE TABLE ... `table_options`
    with `key` (a table constraint, or "" for none), and its triggers."""
    for verb in ("update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS events_no_{verb}")
    op.execute("ALTER TABLE events RENAME TO events_before_0005")
    op.execute(f"CREATE TABLE events ({COLUMNS}{key}){table_options}")
    op.execute(f"INSERT INTO events ({NAMES}) SELECT {NAMES} FROM events_before_0005")
    op.execute("DROP TABLE events_before_0005")
    for trigger in SQLITE_TRIGGERS:
        op.execute(trigger)


def _partial_key() -> None:
    op.create_index(
        NEW_KEY,
        "events",
        ["game_id", "idempotency_key"],
        unique=True,
        sqlite_where=sa.text("idempotency_key IS NOT NULL"),
        postgresql_where=sa.text("idempotency_key IS NOT NULL"),
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_sqlite(" WITHOUT ROWID", "")
    else:
        op.drop_constraint(OLD_KEY, "events", type_="unique")
    _partial_key()


def downgrade() -> None:
    op.drop_index(NEW_KEY, table_name="events")
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_sqlite("", f", CONSTRAINT {OLD_KEY} UNIQUE (game_id, idempotency_key)")
    else:
        op.create_unique_constraint(OLD_KEY, "events", ["game_id", "idempotency_key"])
