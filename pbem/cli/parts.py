"""The assembled parts for the commands that need the database, or a readable refusal."""

from __future__ import annotations

import click

from pbem import logs
from pbem.bootstrap import Parts, build
from pbem.config import ConfigError
from pbem.store import migrate


def checked_parts() -> Parts:
    """The parts, or a readable refusal when the settings or the schema are wrong."""
    try:
        parts = build()
        migrate.require_current(parts.database)
    except (ConfigError, migrate.OutOfDate) as error:
        raise click.ClickException(str(error)) from None
    return parts


def logged(kind: str, parts: Parts) -> None:
    """This process's logs, as the settings say (see pbem.logs)."""
    logs.configure(kind, parts.settings.log_format, parts.settings.log_level)
