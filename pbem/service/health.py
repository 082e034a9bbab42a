"""Readiness: whether the database answers and is at the migration this code needs,
whether the broker answers, whether the scheduler swept lately and whether every
worker reaches its broker. Each probe runs in its own thread and is waited on for
a short while, so an answer comes in about a second even when a part hangs (a
probe still hanging is waited on again by the next asker, never started twice).
What a check says names no host, address or secret: the reasons in full go to the
log."""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as Waited
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, select, text

from pbem.config import Settings
from pbem.events import parse_timestamp
from pbem.store import migrate
from pbem.store.database import Database
from pbem.store.heartbeats import HEARTBEATS

log = logging.getLogger(__name__)

WAIT = 0.8  # seconds an asker waits on the probes, together
SCHEDULER = "scheduler"
WORKERS = "worker:"
WORKER_ALIVE = 60  # seconds at least: a worker whose beat is older is gone


def worker_alive(heartbeat_seconds: int) -> int:
    """How old a worker's heartbeat may be while the worker counts as running: four
    of its beats, and never less than WORKER_ALIVE."""
    return max(4 * heartbeat_seconds, WORKER_ALIVE)


@dataclass
class Check:
    """One part's state: `ok`, and when not, `why` in a few words."""

    ok: bool
    why: str = ""
    more: dict[str, Any] = field(default_factory=dict)

    def shown(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"ok": self.ok}
        if self.why:
            shown["why"] = self.why
        return {**shown, **self.more}


def scheduler_limit(sweep_seconds: int) -> int:
    """How old the scheduler's heartbeat may be while it counts as sweeping."""
    return max(3 * sweep_seconds, 60)


def readiness(
    database: Database,
    settings: Settings,
    clock: Callable[[], datetime],
    wait: float | None = None,
) -> dict[str, Any]:
    """{"ready": bool, "checks": {part: {"ok": ..., "why": ...}}} for the database,
    the migration, the broker, the scheduler and the workers, waiting on them at
    most `wait` seconds (default WAIT)."""
    wait = WAIT if wait is None else wait
    stored = _probe(f"store {id(database)}", lambda: _store(database, settings, clock()))
    broker = _probe(f"broker {settings.broker_url}", lambda: broker_check(settings, wait))
    checks: dict[str, Check] = {}
    try:
        checks.update(stored.result(timeout=wait))
    except Exception as error:
        why = f"no answer within {wait} s" if isinstance(error, Waited) else "the check failed"
        if not isinstance(error, Waited):
            log.error("readiness: the database check failed", exc_info=error)
        away = Check(False, "unknown: the database does not answer")
        checks.update(database=Check(False, why), migration=away, scheduler=away, workers=away)
    try:
        checks["broker"] = broker.result(timeout=0.1)  # it waited as long, alongside
    except Exception as error:
        why = f"no answer within {wait} s" if isinstance(error, Waited) else "the check failed"
        checks["broker"] = Check(False, why)
    order = ("database", "migration", "broker", "scheduler", "workers")
    return {
        "ready": all(check.ok for check in checks.values()),
        "checks": {name: checks[name].shown() for name in order},
    }


_running: dict[str, Future[Any]] = {}
_lock = threading.Lock()


def _probe(key: str, work: Callable[[], Any]) -> Future[Any]:
    """`work` run in a thread of its own, unless the same probe is still running
    (a part that hangs): then that one is waited on again."""
    with _lock:
        running = _running.get(key)
        if running is not None and not running.done():
            return running
        future: Future[Any] = Future()
        _running[key] = future

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name=f"readiness {key.split()[0]}", daemon=True).start()
    return future


def _store(database: Database, settings: Settings, now: datetime) -> dict[str, Check]:
    """The database, its migration and the heartbeats, on one connection."""
    away = Check(False, "unknown: the database is unreachable")
    try:
        connection = database.engine.connect()
    except Exception as error:
        log.warning("readiness: the database is unreachable: %s", _first_line(error))
        return {
            "database": Check(False, "unreachable"),
            "migration": away,
            "scheduler": away,
            "workers": away,
        }
    with connection:
        checks = {"database": Check(True)}
        try:
            connection.execute(text("SELECT 1"))
            stamped = migrate.revisions_of(connection)
        except Exception as error:
            log.warning("readiness: the database does not answer: %s", _first_line(error))
            return {
                "database": Check(False, "does not answer"),
                "migration": away,
                "scheduler": away,
                "workers": away,
            }
        head = _head()
        checks["migration"] = (
            Check(True, more={"revision": head})
            if stamped == [head]
            else Check(False, f"at revision {', '.join(stamped) or 'none'}, the code needs {head}")
        )
        try:
            beats = _beats(connection)
        except Exception as error:  # the heartbeats table is missing before 0011
            log.warning("readiness: the heartbeats cannot be read: %s", _first_line(error))
            unread = Check(False, "the heartbeats cannot be read")
            return {**checks, "scheduler": unread, "workers": unread}
    checks["scheduler"] = _scheduler(beats.get(SCHEDULER), settings, now)
    checks["workers"] = _workers(
        {name: beat for name, beat in beats.items() if name.startswith(WORKERS)},
        now,
        worker_alive(settings.heartbeat_seconds),
    )
    return checks


@cache
def _head() -> str | None:
    """The migration this code needs (read once: the scripts do not change)."""
    config = Config()
    config.set_main_option("script_location", str(migrate.SCRIPTS))
    return ScriptDirectory.from_config(config).get_current_head()


def _beats(connection: Connection) -> dict[str, tuple[datetime, Mapping[str, Any]]]:
    """The heartbeats of the scheduler and the workers: when, and what they said."""
    rows = connection.execute(
        select(HEARTBEATS.c.name, HEARTBEATS.c.beat_at, HEARTBEATS.c.state).where(
            (HEARTBEATS.c.name == SCHEDULER)
            | HEARTBEATS.c.name.startswith(WORKERS, autoescape=True)
        )
    ).all()
    return {r.name: (parse_timestamp(r.beat_at), r.state or {}) for r in rows}


def _scheduler(
    beat: tuple[datetime, Mapping[str, Any]] | None, settings: Settings, now: datetime
) -> Check:
    if beat is None:
        return Check(False, "no heartbeat: the scheduler has not swept yet")
    at, state = beat
    every = state.get("sweep_seconds")
    every = every if isinstance(every, int | float) and every > 0 else settings.sweep_seconds
    limit = scheduler_limit(int(every))
    age = (now - at).total_seconds()
    shown = {"age_seconds": round(age, 1)}
    if age > limit:
        return Check(False, f"last heartbeat {age:.0f} s ago (at most {limit} s)", shown)
    return Check(True, more=shown)


def _workers(
    beats: Mapping[str, tuple[datetime, Mapping[str, Any]]], now: datetime, limit: int
) -> Check:
    """Every worker that beat in the last `limit` seconds reaches its broker. The
    answer counts them and names none: a worker's name holds its host and process id,
    which an unauthenticated prober has no use for (the admin page and the log name
    them)."""
    alive = {
        name: state for name, (at, state) in beats.items() if (now - at).total_seconds() <= limit
    }
    cut_off = sorted(name for name, state in alive.items() if state.get("broker") != "ok")
    shown: dict[str, Any] = {"alive": len(alive)}
    if cut_off:
        log.warning("readiness: workers that cannot reach the broker: %s", ", ".join(cut_off))
        shown["broker_unreachable"] = len(cut_off)
        return Check(
            False, f"{len(cut_off)} of {len(alive)} workers cannot reach the broker", shown
        )
    return Check(True, more=shown)


def broker_check(settings: Settings, wait: float) -> Check:
    """Whether the broker answers: Redis a PING, the disk broker a folder one can
    write in."""
    url = settings.broker_url
    if not url:
        return Check(True, "none configured: the scheduler's sweeps hand out the work")
    if url.startswith("filesystem://"):
        return _folder(settings.instance_dir / "broker")
    if url.startswith(("redis://", "rediss://")):
        import redis

        try:
            half = wait / 2  # to connect, then to answer
            client = redis.Redis.from_url(url, socket_connect_timeout=half, socket_timeout=half)
            try:
                client.ping()
            finally:
                client.close()
        except Exception as error:
            log.warning("readiness: the broker does not answer: %s", _first_line(error))
            return Check(False, "unreachable")
        return Check(True)
    return Check(True, "not checked (only Redis and the disk broker are)")


def _folder(folder: Path) -> Check:
    if not folder.is_dir():
        return Check(False, "its folder does not exist")
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".ready-"):
            pass
    except OSError as error:
        log.warning("readiness: the broker's folder: %s", _first_line(error))
        return Check(False, "its folder cannot be written")
    return Check(True)


def _first_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error) else ''}"
