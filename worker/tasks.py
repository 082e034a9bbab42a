"""The tasks. Each takes ids, never objects, and is idempotent: a mail goes once
(its row's state says whether it went), a bot's or a timeout's move only if the
game is still at the seq it was asked for. Their parts come from the Celery app
that runs them, which the composition root of the worker process built."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from pbem.mail.compose import Composer
from pbem.mail.deliver import Sender, Smtp, deliver
from pbem.service import BadRequest, NotFound, Stale

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
    """Send outbox rows, in this order (the mails of one move go in the order the
    move wrote them); says what became of each. One row's trouble never stops the
    others: a row this task could not finish (its database went away, say) is left
    to the sweep, which takes it back when its lease runs out."""
    parts = _parts(self)
    composer = Composer(parts.service, parts.settings)
    outcomes = []
    with Sender(Smtp.from_url(parts.settings.smtp_url)) as sender:
        for row_id in row_ids:
            try:
                outcomes.append(deliver(parts.outbox, composer, sender, row_id))
            except Exception:
                log.exception("mail %s: not finished; the sweep will take it back", row_id)
                sender.close()
                outcomes.append("error")
            log.info("mail %s: %s", row_id, outcomes[-1])
    return outcomes


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
