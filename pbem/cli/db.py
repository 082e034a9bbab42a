"""`pbem db`: create, upgrade and rebuild the database PBEM_DATABASE_URL names."""

from __future__ import annotations

import click

from pbem.bootstrap import build
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
