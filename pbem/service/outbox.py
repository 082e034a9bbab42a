"""The outbox: mails the events call for, waiting to be delivered.

A row is pending until a sender claims it: the claim stores its Message-ID (once),
counts the attempt and takes a lease. Then it is sent, or pending again with a
later time (backing off), or failed for good after MAX_ATTEMPTS (however its
attempts ended, a crash included). The sweep hands due rows to the workers, in the
order they were written, and takes back rows whose sender died with the lease: the
only way a mail goes twice is a crash between sending and marking it sent, and then
it goes with the same Message-ID. A row waits behind an earlier row to the same
address that is being retried, so each person's mails arrive in the order they were
written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select, update

from pbem.store.database import Database
from pbem.store.events import timestamp

from . import rows
from .addresses import NotAnAddress, checked_address
from .rows import Record

OUTBOX = rows.OUTBOX
MAX_ATTEMPTS = 8
LEASE = timedelta(minutes=5)  # how long a sender may take before the sweep retakes a row
_ROW = select(OUTBOX).where(OUTBOX.c.id == bindparam("id"))
# An earlier row to the same address that failed at least once and will be tried again.
_RETRIED_AHEAD = (
    select(OUTBOX.c.id, OUTBOX.c.next_attempt_at)
    .where(
        OUTBOX.c.id < bindparam("id"),
        func.lower(OUTBOX.c.to_address) == func.lower(bindparam("to")),
        or_(
            and_(OUTBOX.c.status == "pending", OUTBOX.c.attempts > 0),
            and_(
                OUTBOX.c.status == "sending",
                or_(OUTBOX.c.attempts > 1, OUTBOX.c.last_error.is_not(None)),
            ),
        ),
    )
    .order_by(OUTBOX.c.next_attempt_at.desc())
    .limit(1)
)


def backoff(attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failure: 1, 2, 4 ... minutes, at most
    six hours."""
    return min(timedelta(minutes=2 ** max(attempts - 1, 0)), timedelta(hours=6))


class Outbox:
    def __init__(self, database: Database, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.clock = clock

    def _now(self) -> str:
        return timestamp(self.clock())

    def get(self, row_id: int) -> Record | None:
        with self.db.reading() as conn:
            return conn.execute(_ROW, {"id": row_id}).first()

    def take_due(self, now: datetime | None = None, limit: int = 500) -> list[int]:
        """The rows to hand to workers at `now` (default: this clock's now): pending
        ones whose time has come, and ones whose sender's lease ran out. Each gets
        LEASE before it is due again, so a row waiting in the queue is not handed
        out twice."""
        now = now or self.clock()
        with self.db.writing() as conn:
            due = (
                conn.execute(
                    select(OUTBOX.c.id)
                    .where(
                        OUTBOX.c.status.in_(("pending", "sending")),
                        OUTBOX.c.next_attempt_at <= timestamp(now),
                    )
                    .order_by(OUTBOX.c.id)
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
                .scalars()
                .all()
            )
            if due:
                conn.execute(
                    update(OUTBOX)
                    .where(OUTBOX.c.id.in_(due))
                    .values(status="pending", next_attempt_at=timestamp(now + LEASE))
                )
            return list(due)

    def claim(self, row_id: int, message_id: Callable[[], str]) -> Record | None:
        """The row, ready to send: it was pending; now it is sending under a lease,
        its Message-ID stored (a new one only the first time), its attempt counted.
        None when it is not pending (sent, being sent, given up), when it has had
        all its attempts (it is failed now), or when it waits behind an earlier mail
        to the same address that is being retried (it is due after that one)."""
        now = self.clock()
        with self.db.writing() as conn:
            row = conn.execute(_ROW.with_for_update(), {"id": row_id}).first()
            if row is None or row.status != "pending":
                return None
            if row.attempts >= MAX_ATTEMPTS:  # its sender died during the last attempt
                why = f"given up after {MAX_ATTEMPTS} attempts (the last one never finished)"
                conn.execute(
                    update(OUTBOX)
                    .where(OUTBOX.c.id == row_id)
                    .values(status="failed", last_error=row.last_error or why)
                )
                return None
            ahead = conn.execute(_RETRIED_AHEAD, {"id": row_id, "to": row.to_address}).first()
            if ahead is not None:
                due = max(ahead.next_attempt_at, timestamp(now))
                conn.execute(
                    update(OUTBOX).where(OUTBOX.c.id == row_id).values(next_attempt_at=due)
                )
                return None
            changes = {
                "status": "sending",
                "attempts": row.attempts + 1,
                "next_attempt_at": timestamp(now + LEASE),
            }
            if row.message_id is None:
                changes["message_id"] = message_id()
            conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(changes))
            return conn.execute(_ROW, {"id": row_id}).first()

    def sent(self, row_id: int) -> None:
        self._set(row_id, status="sent", sent_at=self._now(), last_error=None)

    def skipped(self, row_id: int, why: str) -> None:
        """Not sent because it no longer matters (the turn it announced was played)."""
        self._set(row_id, status="skipped", last_error=why[:2000])

    def failed(self, row_id: int, error: str, *, permanent: bool = False) -> str:
        """A failed attempt: pending again after a backoff, or failed for good after
        MAX_ATTEMPTS (or at once when trying again cannot help). Returns the status."""
        row = self.get(row_id)
        if row is None:
            raise LookupError(f"there is no outbox row {row_id}")
        if permanent or row.attempts >= MAX_ATTEMPTS:
            self._set(row_id, status="failed", last_error=error[:2000])
            return "failed"
        due = timestamp(self.clock() + backoff(row.attempts))
        self._set(row_id, status="pending", next_attempt_at=due, last_error=error[:2000])
        return "pending"

    def status(self, row_id: int) -> str | None:
        """What the row is now (pending, sent, failed ...); None if there is none."""
        row = self.get(row_id)
        return None if row is None else row.status

    def _set(self, row_id: int, **values: object) -> None:
        last_error = values.get("last_error")
        if isinstance(last_error, str):  # no NUL in a text column
            values["last_error"] = last_error.replace("\x00", "\\x00")[:2000]
        with self.db.writing() as conn:
            conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(values))

    def failures(self) -> list[Record]:
        """Rows given up on, for people to look at (`pbem mail failures`)."""
        with self.db.reading() as conn:
            query = select(OUTBOX).where(OUTBOX.c.status == "failed").order_by(OUTBOX.c.id)
            return list(conn.execute(query).all())

    def make_digests(self) -> list[int]:
        """For each address with held turn mails, one digest row naming their games;
        the held rows become digested. Returns the new digest rows' ids."""
        now = self._now()
        with self.db.writing() as conn:
            held = conn.execute(
                select(OUTBOX.c.id, OUTBOX.c.to_address, OUTBOX.c.game_id, OUTBOX.c.seat)
                .where(OUTBOX.c.status == "held")
                .order_by(OUTBOX.c.id)
                .with_for_update()
            ).all()
            games: dict[str, list[list[Any]]] = {}
            for row in held:
                pair = [row.game_id, row.seat]
                if pair not in games.setdefault(row.to_address, []):
                    games[row.to_address].append(pair)
            digests = [
                rows.new_mail(None, None, "digest", None, address, {"seats": pairs}, now)
                for address, pairs in games.items()
            ]
            if held:
                ids = [row.id for row in held]
                conn.execute(update(OUTBOX).where(OUTBOX.c.id.in_(ids)).values(status="digested"))
            return rows.add_mails(conn, digests)

    def answer(self, game_id: str, seat: int, to: str, payload: dict[str, Any]) -> int:
        """Queue the answer to a player's mail, for the seat's holder of now (a link
        in it is only for them); its row id. An address no mail can be built for
        gets a row that is failed at once, saying why."""
        try:
            to, problem = checked_address(to), None
        except NotAnAddress as error:
            to, problem = _storable(to), f"this mail cannot be written: {error.message}"
        with self.db.writing() as conn:
            holder = rows.holder(conn, game_id, seat)
            mail = rows.new_mail(
                game_id, None, "answer", seat, to, {**payload, "holder": holder}, self._now()
            )
            if problem is not None:
                mail.update(status="failed", last_error=_storable(problem, 2000))
            return rows.add_mails(conn, [mail])[0]

    def ask_for_games(self, email: str, window: timedelta) -> list[int]:
        """Queue a mail listing the games `email` plays, unless one was queued for it
        within `window` (or it plays none). Returns the new row's id, if any; callers
        must not tell the asker (the page is the same either way)."""
        address = email.strip().lower()
        now = self.clock()
        with self.db.writing() as conn:
            seats = conn.execute(
                select(rows.SEATS.c.game_id, rows.SEATS.c.seat).where(
                    func.lower(rows.SEATS.c.email) == address,
                    rows.SEATS.c.controller == "human",
                )
            ).all()
            if not seats:
                return []
            recent = conn.execute(
                select(OUTBOX.c.id).where(
                    and_(
                        OUTBOX.c.kind == "my_games",
                        OUTBOX.c.to_address == address,
                        OUTBOX.c.created_at > timestamp(now - window),
                    )
                )
            ).first()
            if recent is not None:
                return []
            payload = {"seats": [[s.game_id, s.seat] for s in seats]}
            mail = rows.new_mail(None, None, "my_games", None, address, payload, timestamp(now))
            return rows.add_mails(conn, [mail])

    def counts(self) -> dict[str, int]:
        """How many rows are in each status."""
        with self.db.reading() as conn:
            found = conn.execute(
                select(OUTBOX.c.status, func.count()).group_by(OUTBOX.c.status)
            ).all()
            return {status: count for status, count in found}


def _storable(text: str, limit: int = 320) -> str:
    """Text a column can keep whatever it holds: non-printable characters escaped,
    cut to `limit` characters."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))[:limit]
