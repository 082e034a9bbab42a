"""The sweep: what the one scheduler finds to do, from the database alone (never
from its own memory), so that a second scheduler, or a restarted one, repeats
nothing: mails due (first sends, retries, senders that died), turns past their
deadline, reminders due, bot seats to move, undo requests left unanswered too long,
and the links people asked My games for (mailed only to an address that plays here).
A game that cannot be swept is logged and skipped; the others are swept as usual."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select

from pbem.store.events import parse_timestamp, timestamp

from . import options as game_options
from . import rows
from .outbox import Outbox
from .service import Service
from .unit import BOT

log = logging.getLogger(__name__)
GAMES, SEATS = rows.GAMES, rows.SEATS
REMINDER_HORIZON = timedelta(days=7)  # reminders further ahead than this are not looked for


@dataclass
class Work:
    """What a sweep hands to the workers."""

    mails: list[int] = field(default_factory=list)  # outbox row ids
    time_outs: list[tuple[str, int, int]] = field(default_factory=list)  # game, seat, seq
    bots: list[tuple[str, int, int]] = field(default_factory=list)  # game, seat, seq
    failed: list[str] = field(default_factory=list)  # games that could not be swept (logged)
    reminders: int = 0  # reminders this sweep queued (their mails are among `mails`)
    link_requests: int = 0  # My games link requests this sweep answered

    def counts(self) -> dict[str, int]:
        """How much of each there was, as the sweep record keeps it."""
        return {
            "mails": len(self.mails),
            "time_outs": len(self.time_outs),
            "bots": len(self.bots),
            "reminders": self.reminders,
            "failed_games": len(self.failed),
            "link_requests": self.link_requests,
        }


class Sweeper:
    def __init__(self, service: Service, outbox: Outbox, clock: Callable[[], datetime]) -> None:
        self.service = service
        self.outbox = outbox
        self.clock = clock

    def sweep(self) -> Work:
        """One pass: queue the reminders that are due, then collect the work. A game
        that cannot be swept (options stored before they had bounds, a corrupt row)
        is logged with its id and the exception, counted in `failed` and skipped;
        every other game is swept as usual."""
        now = self.clock()
        work = Work()
        for found in self._clocks():
            try:
                self._sweep_game(work, now, *found)
            except Exception:
                log.exception("sweep: game %s skipped, it cannot be swept", found[0])
                work.failed.append(found[0])
        for game_id in self._undo_requests():
            try:
                self.service.lapse_overdue_undo(game_id)
            except Exception:
                log.exception("sweep: game %s skipped, its undo request cannot be lapsed", game_id)
                work.failed.append(game_id)
        try:
            # their mails go out with this sweep's
            work.link_requests = len(self.service.answer_link_requests())
        except Exception:
            log.exception("sweep: the link requests could not be answered; the next sweep tries")
        work.mails = self.outbox.take_due(now)
        return work

    def _undo_requests(self) -> list[str]:
        """The games in play with an undo request waiting (it lapses when overdue)."""
        with self.service.db.reading() as conn:
            return list(
                conn.execute(
                    select(GAMES.c.id).where(
                        GAMES.c.status == "playing", GAMES.c.undo_request_seq.is_not(None)
                    )
                ).scalars()
            )

    def _sweep_game(
        self,
        work: Work,
        now: datetime,
        game_id: str,
        seat: int,
        seq: int,
        deadline: str | None,
        options: Any,
        controller: str,
    ) -> None:
        if controller.startswith(BOT):
            work.bots.append((game_id, seat, seq))
            return
        if deadline is None:
            return
        due = parse_timestamp(deadline)
        if due <= now:
            work.time_outs.append((game_id, seat, seq))
            return
        reminders = options.get("reminders") or []
        hours_before = [game_options.checked_reminder(hours) for hours in reminders]
        for hours in hours_before:
            if now >= due - timedelta(hours=hours) and self.service.remind(game_id, seq, hours):
                work.reminders += 1

    def _clocks(self) -> list[tuple[str, int, int, str | None, dict[str, Any], str]]:
        """The games in play whose seat to move is a bot, or whose deadline is near
        enough for a reminder: seat, seq, deadline, options, who controls the seat."""
        horizon = timestamp(self.clock() + REMINDER_HORIZON)
        columns = (
            GAMES.c.id,
            GAMES.c.turn,
            GAMES.c.head_seq,
            GAMES.c.deadline_at,
            GAMES.c.options,
            SEATS.c.controller,
        )
        with self.service.db.reading() as conn:
            found = conn.execute(
                select(*columns)
                .join(SEATS, and_(SEATS.c.game_id == GAMES.c.id, SEATS.c.seat == GAMES.c.turn))
                .where(
                    GAMES.c.status == "playing",
                    or_(GAMES.c.deadline_at <= horizon, SEATS.c.controller.startswith(BOT)),
                )
            ).all()
        return [
            (
                r.id,
                r.turn,
                r.head_seq,
                r.deadline_at,
                r.options,
                r.controller,
            )
            for r in found
        ]

    def digest(self) -> list[int]:
        """The daily digests (once a day, at the configured hour)."""
        return self.outbox.make_digests()
