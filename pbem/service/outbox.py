"""The outbox: notices the events call for, each waiting to be delivered on its
channel (e-mail today) to its address.

A row is pending until it is due (`next_attempt_at`); the sweep then hands it to a
worker under a short hand-out lease (`leased_until`, HANDED). A sender claims it: the
claim stores its delivery id (for e-mail the Message-ID; once), counts the attempt
and takes a lease of LEASE, which the sender renews while it works (`renew`). The
row is then marked sent as soon as the channel took it, or pending again with a
later due time (backing off), or failed for good after MAX_ATTEMPTS (however its
attempts ended, a crash included). A lease that runs out (the sender or the worker
died, the task was lost with the broker) makes the row the sweep's again, within
seconds: the only way a notice goes twice is a crash between the channel taking it
and the row being marked, and then it goes with the same delivery id.

Each person's notices arrive in the order they were written: a row waits behind an
earlier row to the same address on the same channel that is being retried, and,
of the same game, behind any earlier row that is due, handed out or being sent."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, exists, func, or_, select, update

from pbem.events import timestamp
from pbem.store.database import Database, Statement

from . import digests, rows, seen
from .addresses import NotAnAddress, checked_address
from .notices import Channel
from .rows import Record

OUTBOX = rows.OUTBOX
MAX_ATTEMPTS = 8
# How long a sender may go without renewing its lease before the sweep takes the
# row back (a live sender renews it every RENEW_EVERY).
LEASE = timedelta(seconds=30)
RENEW_EVERY = timedelta(seconds=10)
# How long a row handed to the workers may wait in the broker's queue before the
# sweep hands it out again (its task lost with the broker, or its worker dead).
HANDED = timedelta(seconds=60)
_ROW = select(OUTBOX).where(OUTBOX.c.id == bindparam("id"))
# A worker runs these for every notice: prebuilt (see Statement).
_SENT = Statement(
    update(OUTBOX)
    .where(OUTBOX.c.id == bindparam("row"))
    .values(status="sent", sent_at=bindparam("at"), last_error=None, leased_until=None)
)


def _ahead(ahead: Any, row: Any) -> list[Any]:
    """Where `ahead` is an earlier row than `row` to its address on its channel that
    `row` must wait behind: one being retried (it failed at least once), or one of
    the same game that is due, handed out or being sent. A row of the same game that
    is not due yet and was never tried (talk gathered for a few minutes) is no
    reason to wait. `now` is a bound parameter."""
    now: Any = bindparam("now")
    retried = or_(
        and_(ahead.c.status == "pending", ahead.c.attempts > 0),
        and_(
            ahead.c.status == "sending",
            or_(ahead.c.attempts > 1, ahead.c.last_error.is_not(None)),
        ),
    )
    same_game_in_flight = and_(
        ahead.c.game_id == row.c.game_id,
        or_(
            ahead.c.status == "sending",
            ahead.c.next_attempt_at <= now,
            ahead.c.leased_until > now,
        ),
    )
    return [
        # in flight or retried: few rows, found through the (status, ...) index
        ahead.c.status.in_([bindparam("p", "pending"), bindparam("s", "sending")]),
        ahead.c.id < row.c.id,
        ahead.c.channel == row.c.channel,
        func.lower(ahead.c.address) == func.lower(row.c.address),
        or_(retried, same_game_in_flight),
    ]


_AHEAD = OUTBOX.alias("ahead")
_BLOCKER = (
    select(_AHEAD.c.status, _AHEAD.c.attempts, _AHEAD.c.next_attempt_at, _AHEAD.c.leased_until)
    .where(OUTBOX.c.id == bindparam("id"), *_ahead(_AHEAD, OUTBOX))
    .order_by(_AHEAD.c.next_attempt_at.desc())
    .limit(1)
)


@functools.cache
def _claim_at_once(channels: tuple[str, ...]) -> Statement:
    """A claim in one statement when nothing stands in the way (most claims): the row
    pending with attempts left, of one of `channels`, no earlier row to its address
    it must wait behind. Its delivery id (`id_<n>`: from the adapter of
    `channels[n]`) is stored the first time only. No row back: the claim's longer way
    says why."""
    new_id = case(
        {name: bindparam(f"id_{n}") for n, name in enumerate(channels)}, value=OUTBOX.c.channel
    )
    return Statement(
        update(OUTBOX)
        .where(
            OUTBOX.c.id == bindparam("row"),
            OUTBOX.c.status == "pending",
            OUTBOX.c.attempts < MAX_ATTEMPTS,
            OUTBOX.c.channel.in_([bindparam(f"c_{n}", name) for n, name in enumerate(channels)]),
            ~exists().where(*_ahead(_AHEAD, OUTBOX)),
        )
        .values(
            status="sending",
            attempts=OUTBOX.c.attempts + 1,
            leased_until=bindparam("lease"),
            delivery_id=func.coalesce(OUTBOX.c.delivery_id, new_id),
        )
        .returning(*OUTBOX.c)
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
        ones whose time has come and that no hand-out holds, and ones whose sender's
        lease ran out. Each is held for HANDED, so that a row waiting in the queue is
        not handed out twice; `release` gives them back when they could not be
        handed out."""
        now = now or self.clock()
        at = timestamp(now)
        free = or_(OUTBOX.c.leased_until.is_(None), OUTBOX.c.leased_until <= at)
        with self.db.writing() as conn:
            due = (
                conn.execute(
                    select(OUTBOX.c.id)
                    .where(
                        OUTBOX.c.status.in_(("pending", "sending")),
                        or_(
                            and_(OUTBOX.c.status == "pending", OUTBOX.c.next_attempt_at <= at),
                            OUTBOX.c.status == "sending",
                        ),
                        free,
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
                    .values(status="pending", leased_until=timestamp(now + HANDED))
                )
            return list(due)

    def release(self, row_ids: Iterable[int]) -> None:
        """Give back rows `take_due` handed out that never reached a worker (the
        broker was away): the next sweep hands them out again, not only once their
        hand-out lease has run out. A row a worker took meanwhile is left alone."""
        ids = list(row_ids)
        if not ids:
            return
        with self.db.writing() as conn:
            conn.execute(
                update(OUTBOX)
                .where(
                    OUTBOX.c.id.in_(ids),
                    OUTBOX.c.status == "pending",
                    OUTBOX.c.leased_until.is_not(None),
                )
                .values(leased_until=None)
            )

    def renew(self, row_ids: Iterable[int]) -> int:
        """A sender's heartbeat: the rows it holds (handed to it, or being sent by it)
        are held for another LEASE. How many it still holds."""
        ids = list(row_ids)
        if not ids:
            return 0
        now = self.clock()
        with self.db.writing() as conn:
            renewed = conn.execute(
                update(OUTBOX)
                .where(
                    OUTBOX.c.id.in_(ids),
                    OUTBOX.c.status.in_(("pending", "sending")),
                    OUTBOX.c.leased_until.is_not(None),
                )
                .values(leased_until=timestamp(now + LEASE))
            ).rowcount
        return int(renewed or 0)

    def claim(
        self,
        row_id: int,
        delivery_id: Callable[[], str] | None = None,
        *,
        channels: Mapping[str, Channel] | None = None,
    ) -> Record | None:
        """The row, ready to send: it was pending; now it is sending under a lease,
        its delivery id stored (a new one only the first time: from `delivery_id`,
        or from the adapter of the row's channel in `channels`), its attempt counted.
        A row of a channel `channels` has no adapter for fails at once, saying so.
        None when it is not pending (sent, being sent, given up), when it has had
        all its attempts (it is failed now), or when it waits behind an earlier
        notice to the same address (see the module's docstring): it is due again
        at once when that one is in flight, else when that one is due."""
        now = self.clock()
        at = timestamp(now)
        with self.db.writing() as conn:
            if channels:  # most claims: one statement
                names = tuple(sorted(channels))
                ids = {f"id_{n}": channels[name].delivery_id() for n, name in enumerate(names)}
                lease = timestamp(now + LEASE)
                at_once = _claim_at_once(names)
                params = {"row": row_id, "lease": lease, "now": at, **ids}
                found: Record | None = at_once.first(conn, params)
                if found is not None:
                    return found
            row = conn.execute(_ROW.with_for_update(), {"id": row_id}).first()
            if row is None or row.status != "pending":
                return None
            if row.attempts >= MAX_ATTEMPTS:  # its sender died during the last attempt
                why = f"given up after {MAX_ATTEMPTS} attempts (the last one never finished)"
                _change(
                    conn,
                    row_id,
                    status="failed",
                    leased_until=None,
                    last_error=row.last_error or why,
                )
                return None
            channel = None if channels is None else channels.get(row.channel)
            if channels is not None and channel is None:
                known = ", ".join(sorted(channels)) or "none"
                why = f"no adapter delivers the channel {row.channel!r} (this server has: {known})"
                _change(
                    conn,
                    row_id,
                    status="failed",
                    leased_until=None,
                    last_error=_storable(why, 2000),
                )
                return None
            blocker = conn.execute(_BLOCKER, {"id": row_id, "now": at}).first()
            if blocker is not None:
                in_flight = (
                    blocker.status == "sending"
                    or blocker.attempts == 0
                    or (blocker.leased_until is not None and blocker.leased_until > at)
                )
                due = at if in_flight else max(blocker.next_attempt_at, at)
                _change(conn, row_id, next_attempt_at=due, leased_until=None)
                return None
            changes = {
                "status": "sending",
                "attempts": row.attempts + 1,
                "leased_until": timestamp(now + LEASE),
            }
            if row.delivery_id is None:
                new_id = channel.delivery_id if channel is not None else delivery_id
                if new_id is None:
                    raise ValueError("a claim needs a delivery_id or the channels")
                changes["delivery_id"] = new_id()
            claimed = update(OUTBOX).where(OUTBOX.c.id == row_id).values(changes)
            return conn.execute(claimed.returning(*OUTBOX.c)).first()

    def moot(self, row: Record) -> str | None:
        """Why a claimed row tells its reader nothing new, read now (None: it goes;
        see pbem.service.seen)."""
        with self.db.reading() as conn:
            return seen.moot(conn, row)

    def sent(self, row_id: int) -> None:
        with self.db.writing() as conn:
            _SENT.run(conn, {"row": row_id, "at": self._now()})

    def skipped(self, row_id: int, why: str) -> None:
        """Not sent because it no longer matters (the turn it announced was played)."""
        self._set(row_id, status="skipped", leased_until=None, last_error=why[:2000])

    def failed(self, row_id: int, error: str, *, permanent: bool = False) -> str:
        """A failed attempt: pending again after a backoff, or failed for good after
        MAX_ATTEMPTS (or at once when trying again cannot help). Returns the status."""
        row = self.get(row_id)
        if row is None:
            raise LookupError(f"there is no outbox row {row_id}")
        if permanent or row.attempts >= MAX_ATTEMPTS:
            self._set(row_id, status="failed", leased_until=None, last_error=error[:2000])
            return "failed"
        due = timestamp(self.clock() + backoff(row.attempts))
        self._set(
            row_id,
            status="pending",
            next_attempt_at=due,
            leased_until=None,
            last_error=error[:2000],
        )
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
        """For each address with held turn notices, on each channel, one digest row
        naming their games; the held rows become digested. Returns the new digest
        rows' ids."""
        with self.db.writing() as conn:
            return digests.make(conn, self._now())

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
                game_id,
                None,
                "answer",
                seat,
                to,
                {**payload, "holder": holder},
                self._now(),
                language=rows.language(conn, game_id, seat),
            )
            if problem is not None:
                mail.update(status="failed", last_error=_storable(problem, 2000))
            return rows.add_mails(conn, [mail])[0]

    def counts(self) -> dict[str, int]:
        """How many rows are in each status."""
        with self.db.reading() as conn:
            found = conn.execute(
                select(OUTBOX.c.status, func.count()).group_by(OUTBOX.c.status)
            ).all()
            return {status: count for status, count in found}


def _change(conn: Connection, row_id: int, **values: Any) -> None:
    conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(values))


def _storable(text: str, limit: int = 320) -> str:
    """Text a column can keep whatever it holds: non-printable characters escaped,
    cut to `limit` characters."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))[:limit]
