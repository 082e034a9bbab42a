"""`pbem db`: create, upgrade and rebuild the database PBEM_DATABASE_URL names, and
back it up or restore it from a backup."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import click

from pbem.bootstrap import Parts, build
from pbem.config import ConfigError
from pbem.store import backup as backups
from pbem.store import migrate


@click.group()
def db() -> None:
    """The database: schema and derived tables."""


@db.command()
def upgrade() -> None:
    """Create the schema, or bring it up to date."""
    parts = build()
    migrate.upgrade(parts.database)
    click.echo(f"database at revision {migrate.current_revision(parts.database)}")


@db.command()
def rebuild() -> None:
    """Recreate games, seats and snapshots from the events alone."""
    parts = build()
    migrate.require_current(parts.database)
    count = parts.service.rebuild()
    click.echo(f"rebuilt the read models and snapshots of {count} game{'' if count == 1 else 's'}")


def _parts() -> Parts:
    try:
        return build()
    except ConfigError as error:
        raise click.ClickException(str(error)) from None


@db.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def backup(file: Path) -> None:
    """Write a consistent copy of the database to FILE while the server runs."""
    parts = _parts()
    shown = parts.settings.shown_database_url()
    started = time.monotonic()
    try:
        backups.backup(parts.database, file)
        revision = backups.backup_revision(parts.database, file)
    except backups.BackupError as error:
        raise click.ClickException(str(error)) from None
    seconds = time.monotonic() - started
    click.echo(
        f"backed up {shown} (revision {revision or 'none'}) to {file}: "
        f"{file.stat().st_size:,} bytes in {seconds:.1f} s"
    )


@db.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--force", is_flag=True, help="Replace a database that holds rows (its content is lost)."
)
def restore(file: Path, force: bool) -> None:
    """Replace the database's content with the backup FILE, then bring its schema
    up to date. Stop the web app, the workers and the scheduler first."""
    parts = _parts()
    database, shown = parts.database, parts.settings.shown_database_url()
    try:
        revision = backups.backup_revision(database, file)
        alive = backups.running(database, datetime.now(UTC))
        if alive:
            raise backups.BackupError(
                f"processes are running on {shown} ({', '.join(alive)}): stop them first"
            )
        if backups.rows_held(database) and not force:
            raise backups.BackupError(
                f"{shown} is not empty: restoring replaces everything in it; add --force"
            )
        backups.restore(database, file)
    except backups.BackupError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"restored {file} (revision {revision or 'none'}) into {shown}")
    head = migrate.head_revision()
    if migrate.current_revision(database) != head:
        migrate.upgrade(database)
        click.echo(f"the backup was at revision {revision or 'none'}: upgraded to {head}")
