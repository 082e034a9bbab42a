"""The schema: Alembic migrations create what the models declare, on SQLite and
PostgreSQL, and the database itself refuses to change or delete an event."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from pbem.store import migrate
from pbem.store.database import Database

from support import two_players

ROOT = Path(__file__).resolve().parents[2]


def test_the_migrations_create_exactly_what_the_models_declare(database):
    assert migrate.differences(database) == []
    assert migrate.current_revision(database) == "0002"


def test_upgrading_an_up_to_date_database_changes_nothing(database):
    migrate.upgrade(database)
    assert migrate.current_revision(database) == "0002"
    assert migrate.differences(database) == []


def test_a_database_that_is_not_migrated_is_refused_with_the_command_to_run(tmp_path):
    empty = Database(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    with pytest.raises(migrate.OutOfDate, match="run `pbem db upgrade`"):
        migrate.require_current(empty)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET actor = 'mallory' WHERE seq = 1",
        "DELETE FROM events WHERE seq = 1",
    ],
)
def test_the_database_refuses_to_update_or_delete_an_event(service, statement):
    two_players(service)
    with pytest.raises(DatabaseError, match="events are never"), service.db.write() as s:
        s.connection().execute(text(statement))


def test_the_developers_alembic_config_works_from_any_folder(tmp_path):
    heads = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", ROOT / "alembic.ini", "heads"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PBEM_INSTANCE_DIR": str(tmp_path)},
    )
    assert heads.returncode == 0, heads.stderr
    assert heads.stdout.split() == ["0002", "(head)"]
