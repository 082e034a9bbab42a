"""The sweep: what the one scheduler finds to do, from the database alone (never
from its own memory), so that a second scheduler, or a restarted one, repeats
nothing: mails due (first sends, retries, senders that died), turns past their
deadline, reminders due, bot seats to move, undo requests left unanswered too long,
and the links people asked My games for (mailed only to an address that plays here).
A game that cannot be swept is logged and skipped; the others are swept as usual."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import exists, select, text

from pbem.events import GAME_CREATED, MOVES, UNDO_DONE, parse_timestamp, timestamp
from pbem.store.tables import Event, core_table

from . import options as game_options
from . import rows
from .notices import Kind
from .outbox import Outbox
from .service import Service
from .unit import BOT

log = logging.getLogger(__name__)
GAMES, SEATS, OUTBOX, EVENTS = rows.GAMES, rows.SEATS, rows.OUTBOX, core_table(Event)
TURN_BEGINS = (GAME_CREATED, *MOVES, UNDO_DONE)  # the events a turn begins with
BOT_SEAT = text(f"seats.controller LIKE '{BOT}%'")  # the predicate of ix_seats_bots
HUMAN = "human"
CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")  # as events.timestamp writes
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
        clocks = self._clocks()
        reminded = self._reminded(now) if clocks else set()
        moments = {0.0: timestamp(now)}  # hours -> the text of now + hours
        for found in clocks:
            try:
                self._sweep_game(work, now, moments, reminded, *found)
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
        moments: dict[float, str],
        reminded: set[tuple[str, int, str]],
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
        # Canonical timestamps sort as the moments they name: compared as text,
        # once seen to be one (a corrupt deadline fails this game's sweep, as a
        # parse would), and parsed only when acted on.
        if not CANONICAL.fullmatch(deadline):
            raise ValueError(f"the deadline {deadline[:40]!r} is not a canonical timestamp")
        if deadline <= moments[0.0]:
            parse_timestamp(deadline)
            work.time_outs.append((game_id, seat, seq))
            return
        reminders = options.get("reminders") or []
        hours_before = [game_options.checked_reminder(hours) for hours in reminders]
        for hours in hours_before:
            if (game_id, seat, f"{hours:g}") in reminded:
                continue  # queued this turn already: asking again would find it there
            at = moments.get(hours)
            if at is None:
                at = moments[hours] = timestamp(now + timedelta(hours=hours))
            if deadline <= at:
                parse_timestamp(deadline)
                if self.service.remind(game_id, seq, hours, seat):
                    work.reminders += 1

    def _clocks(self) -> list[tuple[str, int, int, str | None, dict[str, Any], str]]:
        """Each seat a game in play waits on that is a bot, or whose deadline is near
        enough for a reminder: game, seat, seq, deadline, options, who controls the
        seat (a game of several seats at once has a row for each). Two reads, neither
        of which touches a finished game: the games in play by deadline (their
        index) with the seats they wait on, and the bot seats waited on (a partial
        index of them); never every seat."""
        horizon = timestamp(self.clock() + REMINDER_HORIZON)
        columns = (
            GAMES.c.id,
            SEATS.c.seat,
            GAMES.c.head_seq,
            GAMES.c.deadline_at,
            GAMES.c.options,
            SEATS.c.controller,
        )
        waited_on = (SEATS.c.game_id == GAMES.c.id) & SEATS.c.waiting.is_(True)
        with self.service.db.reading() as conn:
            near = conn.execute(
                select(*columns)
                .join(SEATS, waited_on)
                .where(GAMES.c.status == "playing", GAMES.c.deadline_at <= horizon)
            ).all()
            bots = conn.execute(
                select(GAMES.c.id)
                .join(SEATS, SEATS.c.game_id == GAMES.c.id)
                .where(
                    BOT_SEAT,  # as the partial index says it, so that it is used
                    SEATS.c.waiting.is_(True),
                    GAMES.c.status == "playing",
                )
            ).scalars()
            found = list(near)
            seen = {r.id for r in near}
            far = sorted({game_id for game_id in bots if game_id not in seen})
            if far:  # a bot waited on with no deadline near: its game too
                found += conn.execute(
                    select(*columns).join(SEATS, waited_on).where(GAMES.c.id.in_(far))
                ).all()
        return [
            (r.id, r.seat, r.head_seq, r.deadline_at, r.options, r.controller or HUMAN)
            for r in found
        ]

    def _reminded(self, now: datetime) -> set[tuple[str, int, str]]:
        """The reminders queued for the turn now running in the games in play whose
        deadline is near, as (game, seat, hours as a reminder's topic): a reminder
        row of a seat waited on after which no turn began. Asking for them again would
        write nothing (see Service.remind), but cost a transaction each, every sweep,
        for every game between its reminder and its deadline."""
        horizon = timestamp(now + REMINDER_HORIZON)
        turn_began_since = exists().where(
            EVENTS.c.game_id == OUTBOX.c.game_id,
            EVENTS.c.type.in_(TURN_BEGINS),
            EVENTS.c.seq > OUTBOX.c.seq,
        )
        query = (
            select(OUTBOX.c.game_id, OUTBOX.c.seat, OUTBOX.c.topic)
            .join(GAMES, GAMES.c.id == OUTBOX.c.game_id)
            .join(
                SEATS,
                (SEATS.c.game_id == OUTBOX.c.game_id)
                & (SEATS.c.seat == OUTBOX.c.seat)
                & SEATS.c.waiting.is_(True),
            )
            .where(
                GAMES.c.status == "playing",
                GAMES.c.deadline_at <= horizon,
                OUTBOX.c.kind == Kind.REMINDER.value,
                ~turn_began_since,
            )
        )
        with self.service.db.reading() as conn:
            return {(row.game_id, row.seat, row.topic) for row in conn.execute(query)}

    def digest(self) -> list[int]:
        """The daily digests (once a day, at the configured hour)."""
        return self.outbox.make_digests()
