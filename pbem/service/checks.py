"""Checks of an installation, each one line: the settings and every part they name
(the database and its schema, the broker, the SMTP relay, the IMAP mailbox when one
is set), the signs of life of the scheduler and the workers, and the outbox's
backlog and failures. `pbem doctor` prints them; any other reader (a readiness
answer) may run the ones it needs. A check never raises: trouble is its answer.

Each says ok, warn (worth a look, nothing is broken yet) or FAIL (something the
server needs is missing or broken), and what to do about it."""

from __future__ import annotations

import contextlib
import imaplib
import smtplib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.pool import NullPool

from pbem import logs
from pbem.config import DEV_SECRET_KEY, Settings
from pbem.events import timestamp
from pbem.store import heartbeats, migrate
from pbem.store.database import Database
from pbem.store.tables import Outbox, core_table

OK, WARN, FAIL = "ok", "warn", "FAIL"
TIMEOUT = 3.0  # seconds any one part may take to answer
OUTBOX = core_table(Outbox)
OVERDUE = timedelta(minutes=15)  # a mail due this long ago and still pending is late
SECRET_KEY_SHORTEST = 32
BROKER_SCHEMES = ("filesystem", "redis", "rediss", "amqp", "amqps", "pyamqp")


@dataclass(frozen=True)
class Check:
    """One check's answer: its name, ok/warn/FAIL, what it found, what to do."""

    name: str
    status: str
    detail: str
    advice: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def _one_line(error: BaseException) -> str:
    said = " ".join(str(error).split()) or type(error).__name__
    return logs.redact(f"{type(error).__name__}: {said}")[:300]


def secret_key(settings: Settings) -> Check:
    """Set, not the development one, and long enough (outside dev mode)."""
    name = "secret key"
    if settings.dev:
        return Check(name, WARN, "dev mode: a throwaway key signs the links", "never in production")
    key = settings.secret_key
    if not key:
        return Check(name, FAIL, "PBEM_SECRET_KEY is not set", "set it to a long random value")
    if key == DEV_SECRET_KEY:
        return Check(
            name, FAIL, "PBEM_SECRET_KEY is the development key", "set a long random value"
        )
    if len(key) < SECRET_KEY_SHORTEST:
        return Check(
            name,
            WARN,
            f"PBEM_SECRET_KEY has {len(key)} characters",
            f"use {SECRET_KEY_SHORTEST} or more random ones (changing it ends every link)",
        )
    return Check(name, OK, "set")


def database(settings: Settings, db: Database) -> Check:
    """Reachable, and its schema at the migrations' head."""
    name, shown = "database", settings.shown_database_url()
    if db.dialect == "sqlite":
        path = db.engine.url.database or ""
        if path and path != ":memory:" and not Path(path).exists():
            return Check(name, FAIL, f"{shown}: no such file", "run `pbem db upgrade`")
    probe = db.engine
    if db.dialect == "postgresql":  # a host that never answers: give up in time
        wait = {"connect_timeout": max(1, int(TIMEOUT))}
        probe = create_engine(db.engine.url, connect_args=wait, poolclass=NullPool)
    try:
        with probe.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as error:
        return Check(name, FAIL, f"{shown} cannot be reached: {_one_line(error)}", _db_advice())
    finally:
        if probe is not db.engine:
            probe.dispose()
    try:
        migrate.require_current(db)
    except migrate.OutOfDate as error:
        said = str(error).removesuffix(": run `pbem db upgrade`")
        return Check(name, FAIL, f"{shown}: {said}", "run `pbem db upgrade`")
    except Exception as error:
        return Check(name, FAIL, f"{shown}: {_one_line(error)}", _db_advice())
    return Check(name, OK, f"{shown}, schema {migrate.current_revision(db)}")


def _db_advice() -> str:
    return "check PBEM_DATABASE_URL and that the database server runs"


def broker_problem(url: str, instance_dir: Path | None = None, timeout: float = TIMEOUT) -> str:
    """What is wrong with the broker at `url` (its scheme, or reaching it), or ""."""
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme not in BROKER_SCHEMES:
        return (
            f"{scheme or url[:20]!r} is not a broker this server speaks"
            " (filesystem://, redis://host:port/db, amqp://...)"
        )
    if scheme == "filesystem":
        folder = (instance_dir or Path("instance")) / "broker"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / ".doctor"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as error:
            return f"the broker folder {folder} cannot be written: {_one_line(error)}"
        return ""
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=timeout, transport_options={}) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=max(1, int(timeout)))
    except Exception as error:
        return f"cannot be reached: {_one_line(error)}"
    return ""


def broker(settings: Settings) -> Check:
    """A broker this server speaks, and reachable."""
    shown = _hide_password(settings.broker_url)
    if not settings.broker_url:
        return Check("broker", FAIL, "PBEM_BROKER_URL is not set", "filesystem:// or redis://...")
    problem = broker_problem(settings.broker_url, settings.instance_dir)
    if problem:
        return Check("broker", FAIL, f"{shown}: {problem}", "check PBEM_BROKER_URL")
    return Check("broker", OK, shown)


def _hide_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()


def smtp(settings: Settings, timeout: float = TIMEOUT) -> Check:
    """The relay greets, answers EHLO and NOOP."""
    name, url = "smtp", settings.smtp_url
    parts = urlsplit(url)
    if parts.scheme != "smtp" or not parts.hostname:
        return Check(name, FAIL, f"{url[:80]!r} is no smtp://host:port", "check PBEM_SMTP_URL")
    where = f"{parts.hostname}:{parts.port or 25}"
    try:
        with smtplib.SMTP(parts.hostname, parts.port or 25, timeout=timeout) as client:
            code, _ = client.ehlo()
            if code != 250:
                code, _ = client.helo()
            noop, _ = client.noop()
    except (OSError, smtplib.SMTPException) as error:
        advice = "check PBEM_SMTP_URL and the relay"
        return Check(name, FAIL, f"{where}: {_one_line(error)}", advice)
    if code != 250 or noop != 250:
        return Check(name, FAIL, f"{where} answered {code}/{noop}", "check the relay's logs")
    return Check(name, OK, f"{where} answers")


def imap(environ: Mapping[str, str], timeout: float = TIMEOUT) -> Check | None:
    """A login to the mailbox `pbem imap-poll` reads (PBEM_IMAP_HOST, _PORT, _USER,
    _PASSWORD, _SSL), when PBEM_IMAP_HOST is set; None otherwise."""
    host = environ.get("PBEM_IMAP_HOST", "")
    if not host:
        return None
    name, user = "imap", environ.get("PBEM_IMAP_USER", "")
    use_ssl = environ.get("PBEM_IMAP_SSL", "1").lower() not in ("0", "false", "no", "off")
    try:
        port = int(environ.get("PBEM_IMAP_PORT") or (993 if use_ssl else 143))
    except ValueError:
        return Check(name, FAIL, "PBEM_IMAP_PORT is no number", "set it to the IMAP port")
    where = f"{user}@{host}:{port}"
    client_type = imaplib.IMAP4_SSL if use_ssl else imaplib.IMAP4
    try:
        client = client_type(host, port, timeout=timeout)
        try:
            client.login(user, environ.get("PBEM_IMAP_PASSWORD", ""))
        finally:
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                client.logout()
    except (OSError, imaplib.IMAP4.error) as error:
        return Check(name, FAIL, f"{where}: {_one_line(error)}", "check the PBEM_IMAP_* settings")
    return Check(name, OK, f"{where} logs in")


def scheduler(settings: Settings, db: Database, now: datetime) -> Check:
    """The leader's heartbeat is recent, and its last sweep went through."""
    name, fresh = "scheduler", recent_scheduler(settings.sweep_seconds)
    try:
        found = heartbeats.last_beat(db, "scheduler")
        last = heartbeats.sweeps(db, limit=1)
    except Exception as error:
        return Check(name, FAIL, f"cannot be read: {_one_line(error)}", _db_advice())
    if found is None:
        return Check(name, FAIL, "no heartbeat yet", "start `pbem scheduler` (exactly one)")
    age = found.age(now).total_seconds()
    if age > fresh.total_seconds():
        return Check(
            name,
            FAIL,
            f"last heartbeat {age:.0f} s ago from {found.holder}",
            f"start `pbem scheduler`, or read its log: it sweeps every {settings.sweep_seconds} s",
        )
    if last and last[0].error:
        return Check(
            name,
            WARN,
            f"{found.holder} beats, its last sweep failed: {last[0].error[:200]}",
            "read the scheduler's log",
        )
    return Check(name, OK, f"{found.holder}, last heartbeat {age:.0f} s ago")


def recent_scheduler(sweep_seconds: int) -> timedelta:
    """How old the scheduler's heartbeat may be and still count as recent."""
    return timedelta(seconds=max(3 * sweep_seconds, 60))


def workers(settings: Settings, db: Database, now: datetime) -> Check:
    """At least one worker beats; none says its broker is away; none is stale."""
    name = "workers"
    fresh = timedelta(seconds=max(3 * settings.heartbeat_seconds, 45))
    try:
        found = heartbeats.beats(db, "worker:")
    except Exception as error:
        return Check(name, FAIL, f"cannot be read: {_one_line(error)}", _db_advice())
    alive = [b for b in found if b.age(now) <= fresh]
    stale = [b for b in found if b.age(now) > fresh]
    cut_off = [b for b in alive if b.state.get("broker", "ok") != "ok"]
    if not alive:
        said = f"none beats ({len(stale)} stopped beating)" if stale else "no worker has beaten"
        return Check(name, FAIL, said, "start `pbem worker` (one or more)")
    detail = f"{len(alive)} beating"
    if cut_off:
        why = cut_off[0].state.get("broker")
        return Check(
            name, WARN, f"{detail}; {len(cut_off)} cannot reach the broker ({why})", "check it"
        )
    if stale:
        return Check(
            name,
            WARN,
            f"{detail}; {len(stale)} stopped beating without a clean stop",
            "a worker died or its host is away; it is forgotten at its next clean stop",
        )
    return Check(name, OK, detail)


def outbox(db: Database, now: datetime) -> list[Check]:
    """The backlog (pending mails due, and those due long ago), and the failures."""
    due_now = timestamp(now)
    late = timestamp(now - OVERDUE)
    pending = OUTBOX.c.status == "pending"
    try:
        with db.reading() as conn:
            due = conn.execute(
                select(func.count()).where(pending, OUTBOX.c.next_attempt_at <= due_now)
            ).scalar_one()
            overdue = conn.execute(
                select(func.count()).where(pending, OUTBOX.c.next_attempt_at <= late)
            ).scalar_one()
            failed = conn.execute(
                select(func.count()).where(OUTBOX.c.status == "failed")
            ).scalar_one()
    except Exception as error:
        bad = Check("outbox", FAIL, f"cannot be read: {_one_line(error)}", _db_advice())
        return [bad]
    minutes = int(OVERDUE.total_seconds() // 60)
    if overdue:
        backlog = Check(
            "outbox backlog",
            WARN,
            f"{due} mails due, {overdue} of them for more than {minutes} minutes",
            "are the scheduler and the workers running? is the SMTP relay taking mail?",
        )
    else:
        backlog = Check("outbox backlog", OK, f"{due} mails due")
    if failed:
        failures = Check(
            "outbox failures", WARN, f"{failed} mails given up on", "see `pbem mail failures`"
        )
    else:
        failures = Check("outbox failures", OK, "none")
    return [backlog, failures]


def everything(
    settings: Settings,
    db: Database,
    now: datetime,
    environ: Mapping[str, str],
) -> list[Check]:
    """Every check, in the order a person would fix them. The checks that read the
    database are skipped (as one FAIL) when it cannot be read."""
    found = [secret_key(settings), database(settings, db), broker(settings), smtp(settings)]
    mailbox = imap(environ)
    if mailbox is not None:
        found.append(mailbox)
    if found[1].status == FAIL:
        return found
    found += [scheduler(settings, db, now), workers(settings, db, now), *outbox(db, now)]
    return found


def passed(found: list[Check]) -> bool:
    """True when no check failed (a warning does not fail)."""
    return all(check.status != FAIL for check in found)
