"""The composition root: everything a process runs on — settings, database, service
with its notifier, outbox, the channels that deliver its notices, inbound mail
handler, seat sessions and the Celery app —
built once, here, for the web app, the worker, the scheduler, the command line and
the tests alike. Nothing below the entry points imports this module."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from threading import Lock
from typing import TYPE_CHECKING

from pbem.config import Settings, load_settings
from pbem.mail.counted import CountedInbound
from pbem.mail.inbound import Inbound
from pbem.service import Service
from pbem.service.notices import Channel
from pbem.service.outbox import Outbox
from pbem.service.service import Notice
from pbem.service.sessions import SeatSessions
from pbem.store.database import Database

if TYPE_CHECKING:
    from worker.app import PbemCelery

log = logging.getLogger(__name__)


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
    from pbem.mail.compose import Composer
    from pbem.mail.deliver import EmailChannel
    from pbem.push.channel import PushChannel
    from pbem.service.push import Subscriptions
    from worker.app import celery_app, notifier

    settings = settings or load_settings()
    database = _database(settings)
    clock = clock or _clock(settings)
    built: list[Parts] = []  # the Celery app's tasks run on these parts, once built
    celery = celery_app(settings, lambda: built[0]) if settings.broker_url else None
    notify: Callable[[Notice], None] | None = notifier(celery) if celery else None
    service = Service(database, settings, clock, notify=notify)
    outbox = Outbox(database, clock)
    # One adapter per channel; a new channel (a webhook, a chat) is one line here.
    adapters: list[Channel] = [EmailChannel(Composer(service, settings)), *channels]
    adapters.append(PushChannel(database, settings, Subscriptions(database, clock)))
    parts = Parts(
        settings=settings,
        database=database,
        service=service,
        outbox=outbox,
        channels={adapter.name: adapter for adapter in adapters},
        inbound=CountedInbound(service, outbox, settings, clock),  # outcomes counted
        sessions=SeatSessions(database, settings.signing_key(), clock),
        celery=celery,
    )
    built.append(parts)
    return parts


@dataclass(frozen=True)
class InboundParts:
    """What handling incoming mail takes, and no more: a process that reads mail
    (`pbem inbound`, `pbem lmtp`) starts without the Celery app, the mail composer or
    the web app, and loads the Celery app only when an answer is to be handed on."""

    settings: Settings
    database: Database
    inbound: Inbound


def build_inbound(
    settings: Settings | None = None, clock: Callable[[], datetime] | None = None
) -> InboundParts:
    """The inbound mail handler on `settings` (default: load_settings())."""
    settings = settings or load_settings()
    database = _database(settings)
    clock = clock or _clock(settings)
    notify = _late_notifier(settings) if settings.broker_url else None
    service = Service(database, settings, clock, notify=notify)
    inbound = Inbound(service, Outbox(database, clock), settings, clock)
    return InboundParts(settings=settings, database=database, inbound=inbound)


def _clock(settings: Settings) -> Callable[[], datetime]:
    """The real clock; shifted only when a test asks for it (`clock_file`)."""
    return ShiftedClock(settings.clock_file) if settings.clock_file else now


def _database(settings: Settings) -> Database:
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True
        )
    return Database(settings.database_url, synchronous=settings.sqlite_synchronous)


def _late_notifier(settings: Settings) -> Callable[[Notice], None]:
    """The notifier of `build`, whose Celery app is made at the first notice (the
    first answer to hand to a worker), not when the process starts. Like it, it
    loses nothing when the broker cannot be had: the sweep finds the same work."""
    made: list[Callable[[Notice], None]] = []
    lock = Lock()

    def notify(notice: Notice) -> None:
        with lock:
            if not made:
                try:
                    from worker.app import celery_app, notifier

                    made.append(notifier(celery_app(settings)))
                except Exception as error:  # tried again at the next notice
                    log.warning("no broker for game %s's work now: %s", notice.game_id, error)
                    return
        made[0](notice)

    return notify
