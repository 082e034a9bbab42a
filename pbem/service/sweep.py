"""The sweep: what the one scheduler finds to do, from the database alone (never
from its own memory), so that a second scheduler, or a restarted one, repeats
nothing: mails due (first sends, retries, senders that died), turns past their
deadline, reminders due, bot seats to move."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import and_, or_, select

from pbem.store.events import parse_timestamp, timestamp

from . import rows
from .outbox import Outbox
from .service import BOT, Service

GAMES, SEATS = rows.GAMES, rows.SEATS
REMINDER_HORIZON = timedelta(days=7)  # reminders further ahead than this are not looked for


@dataclass
class Work:
    """What a sweep hands to the workers."""

    mails: list[int] = field(default_factory=list)  # outbox row ids
    time_outs: list[tuple[str, int, int]] = field(default_factory=list)  # game, seat, seq
    bots: list[tuple[str, int, int]] = field(default_factory=list)  # game, seat, seq


class Sweeper:
    def __init__(self, service: Service, outbox: Outbox, clock: Callable[[], datetime]) -> None:
        self.service = service
        self.outbox = outbox
        self.clock = clock

    def sweep(self) -> Work:
        """One pass: queue the reminders that are due, then collect the work."""
        now = self.clock()
        work = Work()
        for game_id, seat, seq, deadline, reminders, controller in self._clocks():
            if controller.startswith(BOT):
                work.bots.append((game_id, seat, seq))
            elif deadline is not None and parse_timestamp(deadline) <= now:
                work.time_outs.append((game_id, seat, seq))
            elif deadline is not None:
                for hours in reminders:
                    if now >= parse_timestamp(deadline) - timedelta(hours=hours):
                        self.service.remind(game_id, seq, hours)
        work.mails = self.outbox.take_due(now)
        return work

    def _clocks(self) -> list[tuple]:
        """The games in play whose seat to move is a bot, or whose deadline is near
        enough for a reminder: seat, seq, deadline, reminders, who controls the seat."""
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
                r.options.get("reminders") or [],
                r.controller,
            )
            for r in found
        ]

    def digest(self) -> list[int]:
        """The daily digests (once a day, at the configured hour)."""
        return self.outbox.make_digests()
