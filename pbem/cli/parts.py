"""The assembled parts for the commands that need the database, or a readable refusal."""

from __future__ import annotations

import click
from sqlalchemy.exc import InterfaceError, OperationalError

from pbem import logs
from pbem.bootstrap import InboundParts, Parts, build, build_inbound
from pbem.config import ConfigError
from pbem.store import migrate


def checked_parts() -> Parts:
    """The parts, or a readable refusal (one line, exit status 1) when the settings
    or the schema are wrong, or the database cannot be reached (a supervisor starts
    the process again)."""
    try:
        parts = build()
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    try:
        migrate.require_current(parts.database)
    except migrate.OutOfDate as error:
        raise click.ClickException(str(error)) from None
    except (OperationalError, InterfaceError) as error:
        said = str(error.orig or error).strip().splitlines()
        why = said[0][:200] if said else type(error).__name__
        shown = parts.settings.shown_database_url()
        raise click.ClickException(f"the database {shown} cannot be reached now: {why}") from None
    return parts


def logged(kind: str, parts: Parts | InboundParts) -> None:
    """This process's logs, as the settings say (see pbem.logs)."""
    logs.configure(kind, parts.settings.log_format, parts.settings.log_level)


def checked_inbound() -> InboundParts:
    """The inbound mail handler alone (see build_inbound), checked as the parts are."""
    try:
        parts = build_inbound()
        migrate.require_current(parts.database)
    except (ConfigError, migrate.OutOfDate) as error:
        raise click.ClickException(str(error)) from None
    return parts
