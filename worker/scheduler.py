"""The one scheduler process: every few seconds it sweeps the database and hands the
work it finds to the Celery workers (the links people asked My games for among it);
once a day it makes the digests, and forgets the seat sessions, sign-ins, links and
requests that can no longer be used. Everything it decides comes
from the database, so two of them, or a restart, repeat nothing."""

from __future__ import annotations

import logging

from apscheduler.schedulers.blocking import BlockingScheduler
from celery import Celery

from pbem.service import Service
from pbem.service.outbox import Outbox
from pbem.service.sweep import Sweeper, Work

from .app import DELIVER, PLAY_BOT, TIME_OUT, WorkerParts

log = logging.getLogger(__name__)
BATCH = 20  # mails per delivery task: one SMTP connection, one broker message


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
    if work.mails or work.time_outs or work.bots:
        log.info(
            "handed out %d mails, %d timeouts, %d bot turns",
            len(work.mails),
            len(work.time_outs),
            len(work.bots),
        )


def sweep_once(celery: Celery, sweeper: Sweeper) -> Work | None:
    """One sweep and its hand-out; a sweep that fails as a whole (the database or
    the broker away) is logged and the next one tries again. None when it failed."""
    try:
        work = sweeper.sweep()
        hand_out(celery, work, sweeper.outbox)
    except Exception:
        log.exception("sweep failed; the next one, in a few seconds, tries again")
        return None
    if work.failed:
        log.error("%d games could not be swept: %s", len(work.failed), ", ".join(work.failed))
    return work


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


def run(parts: WorkerParts, celery: Celery) -> None:
    """Sweep every `sweep_seconds`, and make the digests daily at `digest_hour`,
    until stopped."""
    sweeper = Sweeper(parts.service, parts.outbox, parts.service.clock)
    scheduler = BlockingScheduler(timezone="UTC")

    seconds = parts.settings.sweep_seconds
    scheduler.add_job(
        sweep_once,
        "interval",
        args=[celery, sweeper],
        seconds=seconds,
        max_instances=1,
        coalesce=True,
    )
    scheduler.add_job(
        make_digests, "cron", args=[celery, sweeper], hour=parts.settings.digest_hour, minute=0
    )
    scheduler.add_job(
        prune_once, "cron", args=[parts.service], hour=parts.settings.digest_hour, minute=30
    )
    sweep_once(celery, sweeper)
    scheduler.start()
