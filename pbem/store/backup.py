"""Backups of the whole database and their restore: SQLite through its online backup
API (a consistent copy while the server writes), PostgreSQL through pg_dump's custom
format and pg_restore. A backup restores only into a database of the same kind; the
schema is brought up to this code's head afterwards (see `pbem db restore`)."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Mapping
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import delete, inspect, literal, select, table, text
from sqlalchemy.engine import make_url

from pbem.events import timestamp

from .database import Database, private_file
from .heartbeats import HEARTBEATS
from .migrate import alembic_config

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
# A process that beat more recently than this is taken to be running on the database.
RUNNING = timedelta(minutes=2)
_TABLE = re.compile(r"^\d+; \d+ \d+ TABLE \S+ (\S+) ", re.M)
_COPY = re.compile(
    r"^COPY \S*alembic_version \(version_num\) FROM stdin;\n(.*?)\n\\\.", re.M | re.S
)


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message is one line saying why."""


def backup(database: Database, path: Path) -> None:
    """Write a consistent copy of `database` to `path` (replaced whole at the end, so
    a backup interrupted halfway leaves any earlier file at `path` as it was)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        private_file(partial)  # read by its owner only, from its first byte
        if database.dialect == "sqlite":
            _sqlite_backup(_sqlite_file(database), partial)
        elif database.dialect == "postgresql":
            _pg_run(
                database,
                "pg_dump",
                ["--format=custom", "--no-owner", "--no-privileges", f"--file={partial}"],
            )
        else:
            raise BackupError(f"backups of {database.dialect} databases are not supported")
        os.replace(partial, path)
    except OSError as error:
        raise BackupError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        partial.unlink(missing_ok=True)


def backup_revision(database: Database, path: Path) -> str | None:
    """The schema revision the backup at `path` was taken at (None: before any), after
    checking it is a backup this database can take; BackupError when it is not."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupError(f"cannot read {path}: {error.strerror or error}") from None
    kind = "sqlite" if head == SQLITE_MAGIC else "postgresql" if head.startswith(PG_MAGIC) else None
    if kind is None:
        raise BackupError(f"{path} is not a backup (neither SQLite nor pg_dump's custom format)")
    if kind != database.dialect:
        raise BackupError(
            f"{path} is a {kind} backup; the database is {database.dialect}: a backup "
            f"restores only into a database of its kind"
        )
    revision = _sqlite_revision(path) if kind == "sqlite" else _pg_revision(path)
    script = ScriptDirectory.from_config(alembic_config(database))
    if revision is not None and script.get_revision(revision) is None:
        raise BackupError(
            f"{path} is at revision {revision}, which this release does not know "
            f"(a backup of a newer release): restore it with that release"
        )
    return revision


def rows_held(database: Database) -> int:
    """How many tables of the database (its schema's version aside) hold rows."""
    names = [n for n in inspect(database.engine).get_table_names() if n != "alembic_version"]
    with database.engine.connect() as conn:
        return sum(
            conn.execute(select(literal(1)).select_from(table(n)).limit(1)).first() is not None
            for n in names
        )


def running(database: Database, now: datetime) -> list[str]:
    """The processes (heartbeats and leases) that beat on the database in the last
    RUNNING: a restore under them would be lost or mixed with their writes."""
    if "heartbeats" not in inspect(database.engine).get_table_names():
        return []
    since = timestamp(now - RUNNING)
    with database.engine.connect() as conn:
        found = conn.execute(
            select(HEARTBEATS.c.name).where(HEARTBEATS.c.beat_at > since).order_by("name")
        )
        return list(found.scalars())


def restore(database: Database, path: Path) -> None:
    """Replace the content of `database` with the backup at `path` (checked first by
    `backup_revision`). The heartbeats and leases in the backup are of processes of
    that time: they are forgotten, so that a new scheduler leads at once."""
    database.dispose()  # no pooled connection of ours outlives the old content
    if database.dialect == "sqlite":
        _sqlite_restore(path, _sqlite_file(database))
    else:
        _drop_tables_not_in(database, _pg_dump_tables(path))
        _pg_run(
            database,
            "pg_restore",
            [
                "--clean",
                "--if-exists",
                "--no-owner",
                "--no-privileges",
                "--single-transaction",
                "--exit-on-error",
                str(path),
            ],
        )
    database.dispose()
    if "heartbeats" in inspect(database.engine).get_table_names():
        with database.engine.begin() as conn:
            conn.execute(delete(HEARTBEATS))


# -- SQLite -------------------------------------------------------------------------


def _sqlite_file(database: Database) -> Path:
    name = make_url(database.url).database
    if name in (None, "", ":memory:") or "mode=memory" in database.url:
        raise BackupError("an in-memory database has nothing to back up or restore into")
    return Path(name)


def _sqlite_backup(source: Path, target: Path) -> None:
    """One step of SQLite's backup API: a consistent copy of `source` as it was when
    the step began (a WAL reader; the server's writers go on meanwhile), written as a
    single file that needs no -wal beside it."""
    if not source.exists():
        raise BackupError(f"there is no database at {source}")
    try:
        with (
            closing(sqlite3.connect(source, timeout=30)) as src,
            closing(sqlite3.connect(target)) as dst,
        ):
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error as error:
        raise BackupError(f"the SQLite backup failed: {error}") from None
    with target.open("rb") as file:
        os.fsync(file.fileno())


def _sqlite_revision(path: Path) -> str | None:
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            checked = conn.execute("PRAGMA quick_check").fetchone()
            if checked is None or checked[0] != "ok":
                raise BackupError(f"{path} is damaged: {checked[0] if checked else 'unreadable'}")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "alembic_version" not in tables:
                return None
            found = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error as error:
        raise BackupError(f"{path} cannot be read as SQLite: {error}") from None
    return None if found is None else str(found[0])


def _sqlite_restore(source: Path, target: Path) -> None:
    """SQLite's backup API the other way: the target's pages replaced by the backup's
    in one step, under the target's write lock."""
    if target.exists() and source.resolve() == target.resolve():
        raise BackupError(f"{source} is the database itself")
    try:
        with (
            closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as src,
            closing(sqlite3.connect(target, timeout=30)) as dst,
        ):
            src.backup(dst)
    except sqlite3.Error as error:
        raise BackupError(f"the SQLite restore failed: {error}") from None


# -- PostgreSQL -----------------------------------------------------------------------


def _pg_dsn(database: Database) -> tuple[str, Mapping[str, str]]:
    """The libpq URL of `database` without its password, and the environment that
    gives the password (PGPASSWORD): never on a command line anyone can list."""
    url = make_url(database.url)
    plain = url.set(drivername="postgresql", password=None)
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    return plain.render_as_string(hide_password=False), env


def _pg_run(database: Database, tool: str, arguments: list[str]) -> str:
    """Run pg_dump or pg_restore on `database`; its standard output. BackupError with
    the tool's first error line when it is missing or fails."""
    program = shutil.which(tool)
    if program is None:
        raise BackupError(
            f"{tool} is not installed (it comes with the PostgreSQL client tools, "
            f"of the server's major version or newer)"
        )
    dsn, env = _pg_dsn(database)
    ran = subprocess.run(
        [program, f"--dbname={dsn}", *arguments],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if ran.returncode != 0:
        lines = [line for line in ran.stderr.splitlines() if line.strip()]
        said = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
        raise BackupError(f"{tool} failed (exit {ran.returncode}): {_quiet(said, env)}")
    return ran.stdout


def _pg_revision(path: Path) -> str | None:
    """The revision in the dump's alembic_version table, read from the dump itself."""
    found = _COPY.search(_pg_version_rows(path))
    if found is None:
        return None
    return found[1].strip() or None


def _pg_dump_tables(path: Path) -> set[str]:
    """The tables the dump holds (from its table of contents)."""
    return set(_TABLE.findall(_pg_read(path, "--list")))


def _drop_tables_not_in(database: Database, kept: set[str]) -> None:
    """Drop the target's tables the dump does not hold (a newer release's, in a
    database restored into with --force): pg_restore --clean drops only the dump's
    own, and the upgrade after the restore creates the newer tables again."""
    extra = set(inspect(database.engine).get_table_names()) - kept
    if extra:
        with database.engine.begin() as conn:
            for name in sorted(extra):
                conn.execute(text(f'DROP TABLE IF EXISTS "{name}" CASCADE'))
    database.dispose()


def _pg_version_rows(path: Path) -> str:
    """The dump's alembic_version data as SQL text (pg_restore with no database)."""
    return _pg_read(path, "--data-only", "--table=alembic_version", "--file=-")


def _pg_read(path: Path, *options: str) -> str:
    """What pg_restore prints of the dump at `path` with `options` (no database)."""
    program = shutil.which("pg_restore")
    if program is None:
        raise BackupError("pg_restore is not installed (it comes with the PostgreSQL client tools)")
    ran = subprocess.run(
        [program, *options, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if ran.returncode != 0:
        said = (ran.stderr.strip().splitlines() or [""])[0]
        raise BackupError(f"{path} cannot be read by pg_restore: {said}")
    return ran.stdout


def _quiet(line: str, env: Mapping[str, str]) -> str:
    """A tool's line with the password taken out, should it ever repeat it."""
    password = env.get("PGPASSWORD")
    return line.replace(password, "***") if password else line
