"""The composition root: settings, database and service, built once for the web app,
the worker, the command line and the tests alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pbem.config import Settings, load_settings
from pbem.service import Service
from pbem.service.outbox import Outbox
from pbem.store.database import Database


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Parts:
    settings: Settings
    database: Database
    service: Service
    outbox: Outbox


def build(settings: Settings | None = None, clock: Callable[[], datetime] | None = None) -> Parts:
    """Everything a process needs, from `settings` (default: load_settings())."""
    settings = settings or load_settings()
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True
        )
    database = Database(settings.database_url, synchronous=settings.sqlite_synchronous)
    clock = clock or now
    return Parts(settings, database, Service(database, settings, clock), Outbox(database, clock))
