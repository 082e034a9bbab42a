"""The tasks. Each takes ids, never objects, and is idempotent: a mail goes once
(its row's state says whether it went), a bot's or a timeout's move only if the
game is still at the seq it was asked for. Their parts come from the Celery app
that runs them, which the composition root of the worker process built."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from pbem.metrics import delivered
from pbem.service import BadRequest, NotFound, Stale
from pbem.service.delivery import Deliveries, Heartbeat

from .app import DELIVER, PLAY_BOT, TIME_OUT, PbemCelery, WorkerParts

log = logging.getLogger(__name__)


def _parts(task: Task) -> WorkerParts:
    """The parts of the process running `task`."""
    app = task.app
    if not isinstance(app, PbemCelery):
        raise RuntimeError("pbem's tasks run on the Celery app of pbem.bootstrap (pbem worker)")
    return app.parts()


@shared_task(bind=True, name=DELIVER)
def deliver_mail(self: Task, row_ids: list[int]) -> list[str]:
    """Deliver outbox rows, in this order (the notices of one move go in the order
    the move wrote them), each through the adapter of its channel, each marked the
    moment it went; says what became of each. While the task works, a heartbeat
    renews the leases of the rows it holds, so that if this worker dies they are the
    sweep's again within seconds. One row's trouble never stops the others: a row
    this task could not finish (its database went away, say) is left to the sweep,
    which takes it back when its lease runs out."""
    parts = _parts(self)
    deliveries = Deliveries(parts.outbox, parts.channels)
    outcomes = []
    with Heartbeat(parts.outbox, row_ids) as heartbeat:
        try:
            for row_id in row_ids:
                try:
                    outcomes.append(deliveries.deliver(row_id))
                except Exception:
                    log.exception("notice %s: not finished; the sweep will take it back", row_id)
                    _close(parts)
                    outcomes.append("error")
                heartbeat.done(row_id)
                log.info("notice %s: %s", row_id, outcomes[-1])
                delivered(outcomes[-1])
        finally:
            try:
                deliveries.finish()
            except Exception:  # it stays sending: the sweep takes it back (the same mail)
                log.exception(
                    "notices %s: sent, not marked; the sweep will take them back", row_ids
                )
            _close(parts)
    return outcomes


def _close(parts: WorkerParts) -> None:
    """Let go of the connections this thread's deliveries opened."""
    for channel in parts.channels.values():
        try:
            channel.close()
        except Exception:
            log.exception("channel %s: could not close", channel.name)


@shared_task(bind=True, name=PLAY_BOT)
def play_bot(self: Task, game_id: str, seat: int, expected_seq: int) -> int | None:
    """A bot seat's turn, if the game is still where it was; the new seq, or None."""
    try:
        return _parts(self).service.play_bot(game_id, seat, expected_seq).seq
    except (Stale, BadRequest, NotFound) as why:
        log.info("bot turn %s/%s@%s not played: %s", game_id, seat, expected_seq, why)
        return None


@shared_task(bind=True, name=TIME_OUT)
def time_out(self: Task, game_id: str, seat: int, expected_seq: int) -> int | None:
    """A turn past its deadline, if the game is still where it was; the new seq."""
    try:
        return _parts(self).service.time_out(game_id, seat, expected_seq).seq
    except (Stale, BadRequest, NotFound) as why:
        log.info("timeout %s/%s@%s not applied: %s", game_id, seat, expected_seq, why)
        return None
