"""Migration 0008 (the deadline feeds) goes up and down on SQLite and PostgreSQL,
and a database at 0008 is what the models declare."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from pbem.store import migrate
from pbem.store.database import Database


def _migrate(database: Database, revision: str, how: str) -> None:
    config = migrate.alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, how)(config, revision)


def _tables(database: Database) -> set[str]:
    return set(sa.inspect(database.engine).get_table_names())


def test_the_feeds_migration_goes_down_and_up_again(database):
    assert "feeds" in _tables(database)

    _migrate(database, "0007", "downgrade")
    assert migrate.current_revision(database) == "0007"
    assert "feeds" not in _tables(database)
    assert {"seat_sessions", "sign_ins", "events"} <= _tables(database)

    _migrate(database, "head", "upgrade")
    assert migrate.current_revision(database) == "0010"
    assert migrate.differences(database) == []
