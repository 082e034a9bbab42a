"""The composition root: everything a process runs on — settings, database, service
with its notifier, outbox, the channels that deliver its notices, inbound mail
handler, seat sessions and the Celery app —
built once, here, for the web app, the worker, the scheduler, the command line and
the tests alike. Nothing below the entry points imports this module."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.config import Settings, load_settings
from pbem.mail.compose import Composer
from pbem.mail.deliver import EmailChannel
from pbem.mail.inbound import Inbound
from pbem.service import Service
from pbem.service.notices import Channel
from pbem.service.outbox import Outbox
from pbem.service.service import Notice
from pbem.service.sessions import SeatSessions
from pbem.store.database import Database
from worker.app import PbemCelery, celery_app, notifier


def now() -> datetime:
    return datetime.now(UTC)


class ShiftedClock:
    """FOR TESTS ONLY (the `clock_file` setting): the real time plus the seconds written
    in a file, so that a test moves every process's time forward together. The file is
    read again only when it changes (one stat per call); a file that is missing or
    cannot be read counts as no shift."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._shift = timedelta(0)

    def __call__(self) -> datetime:
        try:
            found = os.stat(self.path)
            seen = (found.st_ino, found.st_mtime_ns, found.st_size)
        except OSError:
            seen = None
        if seen != self._seen:
            self._seen = seen
            self._shift = timedelta(seconds=self._read()) if seen else timedelta(0)
        return datetime.now(UTC) + self._shift

    def _read(self) -> float:
        try:
            with open(self.path, encoding="ascii") as file:
                seconds = float(file.read().strip() or 0)
        except (OSError, ValueError):
            return 0.0
        return seconds if math.isfinite(seconds) else 0.0


@dataclass(frozen=True)
class Parts:
    """One process's parts. `celery` is None when no broker is configured: then the
    service tells nobody after a commit and the work waits for a sweep."""

    settings: Settings
    database: Database
    service: Service
    outbox: Outbox
    channels: Mapping[str, Channel]  # the adapter of each channel, by its name
    inbound: Inbound
    sessions: SeatSessions
    celery: PbemCelery | None


def build(
    settings: Settings | None = None,
    clock: Callable[[], datetime] | None = None,
    channels: Sequence[Channel] = (),
) -> Parts:
    """Everything a process needs, from `settings` (default: load_settings()); the
    e-mail channel's adapter and any further `channels` deliver the notices."""
    settings = settings or load_settings()
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True
        )
    database = Database(settings.database_url, synchronous=settings.sqlite_synchronous)
    if clock is None:  # a shifted clock only when a test asks for one
        clock = ShiftedClock(settings.clock_file) if settings.clock_file else now
    built: list[Parts] = []  # the Celery app's tasks run on these parts, once built
    celery = celery_app(settings, lambda: built[0]) if settings.broker_url else None
    notify: Callable[[Notice], None] | None = notifier(celery) if celery else None
    service = Service(database, settings, clock, notify=notify)
    outbox = Outbox(database, clock)
    # One adapter per channel; a new channel (a webhook, a chat) is one line here.
    adapters: list[Channel] = [EmailChannel(Composer(service, settings)), *channels]
    parts = Parts(
        settings=settings,
        database=database,
        service=service,
        outbox=outbox,
        channels={adapter.name: adapter for adapter in adapters},
        inbound=Inbound(service, outbox, settings, clock),
        sessions=SeatSessions(database, settings.signing_key(), clock),
        celery=celery,
    )
    built.append(parts)
    return parts
