"""Migration 0008 (the deadline feeds) goes up and down on SQLite and PostgreSQL,
and a database at 0008 is what the models declare."""

from __future__ import annotations

import sqlalchemy as sa

from pbem.store import migrate
from pbem.store.database import Database

from support import migrate_to


def _tables(database: Database) -> set[str]:
    return set(sa.inspect(database.engine).get_table_names())


def test_the_feeds_migration_goes_down_and_up_again(database):
    assert "feeds" in _tables(database)

    migrate_to(database, "0007", "downgrade")
    assert migrate.current_revision(database) == "0007"
    assert "feeds" not in _tables(database)
    assert {"seat_sessions", "sign_ins", "events"} <= _tables(database)

    migrate_to(database, "head", "upgrade")
    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
