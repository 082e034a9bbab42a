"""Schema migrations (Alembic, in `migrations/`): upgrade any database to the head
revision, and compare the models with what the migrations create. Alembic is loaded
only to change or compare a schema: checking that a database is at the head (which
every command that serves does first) reads the scripts' revision lines and the
version table itself, so a short-lived process such as `pbem inbound` starts
without it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, inspect, text

from pbem import resources

from . import people  # noqa: F401 - its tables join the metadata compared
from .database import Database
from .tables import SQLModel

if TYPE_CHECKING:
    from alembic.config import Config

SCRIPTS = resources.MIGRATIONS
VERSION_TABLE = "alembic_version"
# A script's own lines: `revision: str = "0011"`, `down_revision: str | None = "0010"`
_REVISION_LINE = re.compile(r"^(revision|down_revision)\b[^=\n]*=\s*(.*?)\s*$", re.M)
_ONE_ID = re.compile(r"""(?:"([^"\\]+)"|'([^'\\]+)'|(None))""")


def alembic_config(database: Database) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("sqlalchemy.url", database.url.replace("%", "%%"))
    return config


def upgrade(database: Database, revision: str = "head") -> None:
    """Create or upgrade the schema of `database` to `revision`."""
    from alembic import command

    config = alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def differences(database: Database) -> list[Any]:
    """What the models declare that the migrated database lacks (or the reverse)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        found: list[Any] = compare_metadata(context, SQLModel.metadata)
        return found


def current_revision(database: Database) -> str | None:
    from alembic.migration import MigrationContext

    with database.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    """The revision the code needs. Read from each script's `revision` and
    `down_revision` lines: the one revision no other one revises. Alembic reads
    the scripts instead when their lines do not name one such revision (a merge
    revision, a line written another way)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (SCRIPTS / "versions").glob("*.py"):
        lines = dict(_REVISION_LINE.findall(path.read_text(encoding="utf-8")))
        own, down = _one_id(lines.get("revision")), _one_id(lines.get("down_revision"))
        if not own or down is None:
            return _alembic_head()
        revisions.add(own)
        if down != "None":
            revised.add(down)
    heads = revisions - revised
    if len(heads) != 1 or not revised <= revisions:
        return _alembic_head()
    return heads.pop()


def _one_id(value: str | None) -> str | None:
    """The one revision id (or "None") a script line gives, else None."""
    found = _ONE_ID.fullmatch(value or "")
    return next((group for group in found.groups() if group), None) if found else None


def _alembic_head() -> str | None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    scripts = Config()
    scripts.set_main_option("script_location", str(SCRIPTS))
    head: str | None = ScriptDirectory.from_config(scripts).get_current_head()
    return head


def stamped_revisions(database: Database) -> list[str]:
    """The revisions the database's version table holds (none for a database
    Alembic never touched)."""
    with database.engine.connect() as connection:
        return revisions_of(connection)


def revisions_of(connection: Connection) -> list[str]:
    """The revisions the version table holds, read on `connection` (quietly: Alembic,
    which logs each time it looks, is not asked)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return []
    query = text(f"SELECT version_num FROM {VERSION_TABLE}")
    return sorted(connection.execute(query).scalars())


def require_current(database: Database) -> None:
    """Refuse to work on a database whose schema is missing or out of date."""
    head = head_revision()
    stamped = stamped_revisions(database)
    if stamped != [head]:
        current = ", ".join(stamped) or "none"
        raise OutOfDate(
            f"the database is at revision {current}, the code needs {head}: run `pbem db upgrade`"
        )


class OutOfDate(RuntimeError):
    """The schema is not the one this code needs."""
