"""Schema migrations (Alembic, in `migrations/`): upgrade any database to the head
revision, and compare the models with what the migrations create."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from pbem import resources

from .database import Database
from .tables import SQLModel

SCRIPTS = resources.MIGRATIONS


def alembic_config(database: Database) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("sqlalchemy.url", database.url.replace("%", "%%"))
    return config


def upgrade(database: Database, revision: str = "head") -> None:
    """Create or upgrade the schema of `database` to `revision`."""
    config = alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def differences(database: Database) -> list[Any]:
    """What the models declare that the migrated database lacks (or the reverse)."""
    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        found: list[Any] = compare_metadata(context, SQLModel.metadata)
        return found


def current_revision(database: Database) -> str | None:
    with database.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision(database: Database) -> str | None:
    """The newest revision this code's migrations know."""
    return ScriptDirectory.from_config(alembic_config(database)).get_current_head()


def require_current(database: Database) -> None:
    """Refuse to work on a database whose schema is missing or out of date."""
    head = head_revision(database)
    current = current_revision(database)
    if current != head:
        raise OutOfDate(
            f"the database is at revision {current or 'none'}, the code needs {head}: "
            f"run `pbem db upgrade`"
        )


class OutOfDate(RuntimeError):
    """The schema is not the one this code needs."""
