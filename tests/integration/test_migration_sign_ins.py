"""Migration 0004 (the sign-ins of My games) goes up and down on SQLite and PostgreSQL,
and a database at 0004 is what the models declare."""

from __future__ import annotations

import sqlalchemy as sa

from pbem.store import migrate
from pbem.store.database import Database

from support import migrate_to


def _tables(database: Database) -> set[str]:
    return set(sa.inspect(database.engine).get_table_names())


def _indexes(database: Database) -> set[str]:
    return {i["name"] for i in sa.inspect(database.engine).get_indexes("sign_ins")}


def test_the_sign_ins_migration_goes_down_and_up_again(database):
    migrate_to(database, "0004", "downgrade")
    assert migrate.current_revision(database) == "0004"
    assert "sign_ins" in _tables(database)
    assert _indexes(database) == {"ix_sign_ins_session_sha256"}

    migrate_to(database, "0003", "downgrade")
    assert migrate.current_revision(database) == "0003"
    assert "sign_ins" not in _tables(database)
    assert {"seat_sessions", "outbox", "events"} <= _tables(database)

    migrate_to(database, "0004", "upgrade")
    assert migrate.current_revision(database) == "0004"
    assert _indexes(database) == {"ix_sign_ins_session_sha256"}
    migrate.upgrade(database)
    assert migrate.differences(database) == []
