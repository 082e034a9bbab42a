"""The scheduler process: every few seconds it sweeps the database and hands the
work it finds to the Celery workers (the links people asked My games for among it);
once a day it makes the digests, and forgets the seat sessions, sign-ins, links and
requests that can no longer be used. Everything it decides comes from the database,
so two of them, or a restart, repeat nothing; and of two, only one works: the one
that holds the leader lock (the lease "lead:scheduler"), while the other waits to
take over once the lease runs out. The leader writes the heartbeat "scheduler" and
a record of each sweep."""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import timedelta

from apscheduler.schedulers.blocking import BlockingScheduler
from celery import Celery

from pbem.logs import redact
from pbem.metrics import SWEEP_SECONDS
from pbem.service import Service
from pbem.service.outbox import Outbox
from pbem.service.sweep import Sweeper, Work
from pbem.store import heartbeats

from .app import DELIVER, PLAY_BOT, TIME_OUT, WorkerParts

log = logging.getLogger(__name__)
BATCH = 20  # mails per delivery task: one SMTP connection, one broker message
LEASE = "lead:scheduler"  # the leader lock
HEARTBEAT = "scheduler"
LEASE_SECONDS_LEAST = 10  # seconds, at least: a slow sweep (2 s at 100,000 games) keeps it


def holder_name() -> str:
    """This process, as heartbeats and leases name it: HOST:PID."""
    return f"{socket.gethostname()}:{os.getpid()}"


def lease_time(sweep_seconds: int) -> timedelta:
    """How long the leader holds the lock without renewing it: three sweeps, and
    never less than LEASE_SECONDS_LEAST (a slow sweep does not lose it)."""
    return timedelta(seconds=max(3 * sweep_seconds, LEASE_SECONDS_LEAST))


def hand_out(celery: Celery, work: Work, outbox: Outbox) -> None:
    """A sweep's work, as tasks. When the broker fails, the mails not yet handed
    out are given back to the outbox (`release`), so that the next sweep hands them
    out again rather than once their hand-out lease has run out."""
    for start in range(0, len(work.mails), BATCH):
        try:
            celery.send_task(DELIVER, args=[work.mails[start : start + BATCH]])
        except Exception:
            try:
                outbox.release(work.mails[start:])
            except Exception:
                log.exception("could not give back the mails the broker did not take")
            raise
    for game_id, seat, seq in work.time_outs:
        celery.send_task(TIME_OUT, args=[game_id, seat, seq])
    for game_id, seat, seq in work.bots:
        celery.send_task(PLAY_BOT, args=[game_id, seat, seq])


def _sweep(celery: Celery, sweeper: Sweeper) -> tuple[Work | None, str | None]:
    """One sweep and its hand-out: the work, or None and the error that failed it."""
    started = time.perf_counter()
    try:
        work = sweeper.sweep()
        hand_out(celery, work, sweeper.outbox)
    except Exception as error:
        log.exception("sweep failed; the next one, in a few seconds, tries again")
        return None, redact(f"{type(error).__name__}: {error}")
    SWEEP_SECONDS.observe(time.perf_counter() - started)
    if work.failed:
        log.error("%d games could not be swept: %s", len(work.failed), ", ".join(work.failed))
    return work, None


def sweep_once(celery: Celery, sweeper: Sweeper) -> Work | None:
    """One sweep and its hand-out; a sweep that fails as a whole (the database or
    the broker away) is logged and the next one tries again. None when it failed."""
    return _sweep(celery, sweeper)[0]


def make_digests(celery: Celery, sweeper: Sweeper) -> None:
    """The daily digests, as tasks; a failure is logged and tried again tomorrow."""
    try:
        hand_out(celery, Work(mails=sweeper.digest()), sweeper.outbox)
    except Exception:
        log.exception("making the digests failed")


def prune_once(service: Service) -> dict[str, int] | None:
    """The daily clean-up of seat sessions, sign-ins, links, requests and feeds that
    can no longer be used; a failure is logged and tried again tomorrow. None when
    it failed."""
    try:
        gone = service.prune()
    except Exception:
        log.exception("pruning the seat sessions, sign-ins, links, requests and feeds failed")
        return None
    log.info("pruned %s", ", ".join(f"{count} {what}" for what, count in gone.items()))
    return gone


class Scheduler:
    """One scheduler process: it sweeps while it holds the leader lock, and waits
    (asking at every interval) while another holds it."""

    def __init__(self, parts: WorkerParts, celery: Celery, holder: str | None = None) -> None:
        self.parts, self.celery = parts, celery
        self.database = parts.service.db
        self.clock = parts.service.clock
        self.sweeper = Sweeper(parts.service, parts.outbox, self.clock)
        self.holder = holder or holder_name()
        self.seconds = parts.settings.sweep_seconds
        self.ttl = lease_time(self.seconds)
        self.waiting_on: str | None = None  # the leader this one waits on, once told

    def lead(self) -> bool:
        """Whether this scheduler holds the leader lock (taken or renewed now)."""
        try:
            if heartbeats.take_lease(self.database, LEASE, self.holder, self.clock(), self.ttl):
                if self.waiting_on is not None:
                    log.info("the leader %s is gone; this scheduler leads now", self.waiting_on)
                    self.waiting_on = None
                return True
            held = heartbeats.last_beat(self.database, LEASE)
        except Exception:
            log.exception("the leader lock cannot be read; the next sweep tries again")
            return False
        leader = held.holder if held is not None else "?"
        if leader != self.waiting_on:
            log.info("another scheduler leads (%s); waiting", leader)
            self.waiting_on = leader
        return False

    def tick(self) -> Work | None:
        """A sweep if this one leads, recorded with its counts (or its error), and
        the heartbeat; None when it did not lead or the sweep failed."""
        if not self.lead():
            return None
        started, began = self.clock(), time.monotonic()
        work, error = _sweep(self.celery, self.sweeper)
        seconds = round(time.monotonic() - began, 3)
        counts = work.counts() if work is not None else {}
        if work is not None:
            log.info(
                "sweep: %d mails, %d time_outs, %d bots, %d reminders, %d failed games,"
                " %d link requests in %.3f s",
                counts["mails"],
                counts["time_outs"],
                counts["bots"],
                counts["reminders"],
                counts["failed_games"],
                counts["link_requests"],
                seconds,
            )
        try:
            heartbeats.record_sweep(self.database, self.holder, started, seconds, counts, error)
            heartbeats.beat(
                self.database,
                HEARTBEAT,
                self.holder,
                self.clock(),
                sweep_seconds=self.seconds,
                leader=True,
            )
        except Exception:
            log.exception("the sweep could not be recorded; the next one tries again")
        return work

    def digests(self) -> None:
        if self.lead():
            make_digests(self.celery, self.sweeper)

    def prune(self) -> None:
        if self.lead():
            prune_once(self.parts.service)

    def let_go(self) -> None:
        """Give the leader lock up (a clean stop): another takes over at once."""
        try:
            heartbeats.forget(self.database, LEASE, holder=self.holder)
        except Exception:
            log.exception("the leader lock could not be given up; it runs out by itself")


def run(parts: WorkerParts, celery: Celery) -> None:
    """Sweep every `sweep_seconds` while leading, and make the digests daily at
    `digest_hour`, until stopped; a clean stop gives the leader lock up."""
    me = Scheduler(parts, celery)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # not two lines a sweep
    log.info("scheduler %s: sweeping every %d s while it leads", me.holder, me.seconds)
    scheduler = BlockingScheduler(timezone="UTC")
    scheduler.add_job(me.tick, "interval", seconds=me.seconds, max_instances=1, coalesce=True)
    scheduler.add_job(me.digests, "cron", hour=parts.settings.digest_hour, minute=0)
    scheduler.add_job(me.prune, "cron", hour=parts.settings.digest_hour, minute=30)
    try:
        me.tick()
        scheduler.start()
    finally:
        me.let_go()
