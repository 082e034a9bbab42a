"""The outbox: notices the events call for, each waiting to be delivered on its
channel (e-mail today) to its address.

A row is pending until a sender claims it: the claim stores its delivery id (for
e-mail the Message-ID; once), counts the attempt and takes a lease. Then it is
sent, or pending again with a later time (backing off), or failed for good after
MAX_ATTEMPTS (however its attempts ended, a crash included). The sweep hands due
rows to the workers, in the order they were written, and takes back rows whose
sender died with the lease: the only way a notice goes twice is a crash between
sending and marking it sent, and then it goes with the same delivery id. A row
waits behind an earlier row to the same address on the same channel that is being
retried, so each person's notices arrive in the order they were written."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, exists, func, or_, select, update

from pbem.store.database import Database, Statement
from pbem.store.events import timestamp

from . import rows
from .addresses import NotAnAddress, checked_address
from .notices import Channel, DeliveryFailed, Moot
from .rows import Record

OUTBOX = rows.OUTBOX
MAX_ATTEMPTS = 8
LEASE = timedelta(minutes=5)  # how long a sender may take before the sweep retakes a row
_ROW = select(OUTBOX).where(OUTBOX.c.id == bindparam("id"))
# A worker runs these two for every notice: prebuilt (see Statement).
_SENT = Statement(
    update(OUTBOX)
    .where(OUTBOX.c.id == bindparam("row"))
    .values(status="sent", sent_at=bindparam("at"), last_error=None)
)


def _retried_ahead(ahead: Any, row_id: Any, channel: Any, address: Any) -> list[Any]:
    """Where `ahead` is an earlier row than `row_id` to `address` on `channel` that
    failed at least once and will be tried again."""
    return [
        # in flight or retried: few rows, found through the (status, ...) index
        ahead.c.status.in_([bindparam("p", "pending"), bindparam("s", "sending")]),
        ahead.c.id < row_id,
        ahead.c.channel == channel,
        func.lower(ahead.c.address) == func.lower(address),
        or_(
            and_(ahead.c.status == "pending", ahead.c.attempts > 0),
            and_(
                ahead.c.status == "sending",
                or_(ahead.c.attempts > 1, ahead.c.last_error.is_not(None)),
            ),
        ),
    ]


_RETRIED_AHEAD = (
    select(OUTBOX.c.id, OUTBOX.c.next_attempt_at)
    .where(*_retried_ahead(OUTBOX, bindparam("id"), bindparam("channel"), bindparam("to")))
    .order_by(OUTBOX.c.next_attempt_at.desc())
    .limit(1)
)
_AHEAD = OUTBOX.alias("ahead")


@functools.cache
def _claim_at_once(channels: tuple[str, ...]) -> Statement:
    """A claim in one statement when nothing stands in the way (most claims): the row
    pending with attempts left, of one of `channels`, no earlier row to its address
    being retried. Its delivery id (`id_<n>`: from the adapter of `channels[n]`) is
    stored the first time only. No row back: the claim's longer way says why."""
    ahead = _retried_ahead(_AHEAD, OUTBOX.c.id, OUTBOX.c.channel, OUTBOX.c.address)
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
            ~exists().where(*ahead),
        )
        .values(
            status="sending",
            attempts=OUTBOX.c.attempts + 1,
            next_attempt_at=bindparam("lease"),
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

    def claim(
        self,
        row_id: int,
        delivery_id: Callable[[], str] | None = None,
        *,
        channels: Mapping[str, Channel] | None = None,
        sent: int | None = None,
    ) -> Record | None:
        """The row, ready to send: it was pending; now it is sending under a lease,
        its delivery id stored (a new one only the first time: from `delivery_id`,
        or from the adapter of the row's channel in `channels`), its attempt counted.
        A row of a channel `channels` has no adapter for fails at once, saying so.
        None when it is not pending (sent, being sent, given up), when it has had
        all its attempts (it is failed now), or when it waits behind an earlier mail
        to the same address that is being retried (it is due after that one).
        `sent` is a row delivered just before, marked sent in the same transaction
        (one commit per notice when a worker delivers several)."""
        now = self.clock()
        with self.db.writing() as conn:
            if sent is not None:
                _SENT.run(conn, {"row": sent, "at": timestamp(now)})
            if channels:  # most claims: one statement
                names = tuple(sorted(channels))
                ids = {f"id_{n}": channels[name].delivery_id() for n, name in enumerate(names)}
                lease = timestamp(now + LEASE)
                at_once = _claim_at_once(names)
                found: Record | None = at_once.first(conn, {"row": row_id, "lease": lease, **ids})
                if found is not None:
                    return found
            row = conn.execute(_ROW.with_for_update(), {"id": row_id}).first()
            if row is None or row.status != "pending":
                return None
            if row.attempts >= MAX_ATTEMPTS:  # its sender died during the last attempt
                why = f"given up after {MAX_ATTEMPTS} attempts (the last one never finished)"
                _change(conn, row_id, status="failed", last_error=row.last_error or why)
                return None
            channel = None if channels is None else channels.get(row.channel)
            if channels is not None and channel is None:
                known = ", ".join(sorted(channels)) or "none"
                why = f"no adapter delivers the channel {row.channel!r} (this server has: {known})"
                _change(conn, row_id, status="failed", last_error=_storable(why, 2000))
                return None
            ahead = conn.execute(
                _RETRIED_AHEAD, {"id": row_id, "channel": row.channel, "to": row.address}
            ).first()
            if ahead is not None:
                _change(conn, row_id, next_attempt_at=max(ahead.next_attempt_at, timestamp(now)))
                return None
            changes = {
                "status": "sending",
                "attempts": row.attempts + 1,
                "next_attempt_at": timestamp(now + LEASE),
            }
            if row.delivery_id is None:
                new_id = channel.delivery_id if channel is not None else delivery_id
                if new_id is None:
                    raise ValueError("a claim needs a delivery_id or the channels")
                changes["delivery_id"] = new_id()
            claimed = update(OUTBOX).where(OUTBOX.c.id == row_id).values(changes)
            return conn.execute(claimed.returning(*OUTBOX.c)).first()

    def sent(self, row_id: int) -> None:
        with self.db.writing() as conn:
            _SENT.run(conn, {"row": row_id, "at": self._now()})

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
        """For each address with held turn notices, on each channel, one digest row
        naming their games; the held rows become digested. Returns the new digest
        rows' ids."""
        now = self._now()
        with self.db.writing() as conn:
            held = conn.execute(
                select(
                    OUTBOX.c.id,
                    OUTBOX.c.channel,
                    OUTBOX.c.address,
                    OUTBOX.c.game_id,
                    OUTBOX.c.seat,
                    OUTBOX.c.language,
                )
                .where(OUTBOX.c.status == "held")
                .order_by(OUTBOX.c.id)
                .with_for_update()
            ).all()
            games: dict[tuple[str, str], list[list[Any]]] = {}
            languages: dict[tuple[str, str], str] = {}  # the newest held notice's
            for row in held:
                pair = [row.game_id, row.seat]
                listed = games.setdefault((row.channel, row.address), [])
                languages[row.channel, row.address] = row.language
                if pair not in listed:
                    listed.append(pair)
            digests = [
                rows.new_mail(
                    None,
                    None,
                    "digest",
                    None,
                    address,
                    {"seats": pairs},
                    now,
                    channel=channel,
                    language=languages[channel, address],
                )
                for (channel, address), pairs in games.items()
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


class Deliveries:
    """Delivers rows one after another, each through the adapter of its channel:
    claim it (its delivery id stored first), hand it over, mark it. A row delivered
    is marked sent in the transaction that claims the next one (or by `finish`), so
    that a worker's batch costs one commit per notice."""

    def __init__(self, outbox: Outbox, channels: Mapping[str, Channel]) -> None:
        self.outbox = outbox
        self.channels = channels
        self._unmarked: int | None = None  # delivered, not yet marked sent

    def deliver(self, row_id: int) -> str:
        """What became of the row: sent, skipped (not pending, or moot), pending (to
        be tried again later, or waiting behind an earlier notice to the same
        address) or failed (given up). A notice that cannot be written fails at
        once, with its reason; it never raises into the next one's way."""
        outbox, sent, self._unmarked = self.outbox, self._unmarked, None
        try:
            row = outbox.claim(row_id, channels=self.channels, sent=sent)
        except Exception:
            if sent is not None:  # the claim failed; the delivery before it stands
                outbox.sent(sent)
            raise
        if row is None:
            status = outbox.status(row_id)
            return status if status in ("pending", "failed") else "skipped"
        try:
            self.channels[row.channel].deliver(row)
        except Moot as why:
            outbox.skipped(row_id, str(why))
            return "skipped"
        except DeliveryFailed as error:
            return outbox.failed(row_id, error.reason, permanent=error.permanent)
        except Exception as error:  # trying again cannot help: it fails now
            text = f"this notice cannot be written: {type(error).__name__}: {error}"
            return outbox.failed(row_id, text, permanent=True)
        self._unmarked = row_id
        return "sent"

    def finish(self) -> None:
        """Mark the last row delivered sent."""
        sent, self._unmarked = self._unmarked, None
        if sent is not None:
            self.outbox.sent(sent)


def deliver(outbox: Outbox, channels: Mapping[str, Channel], row_id: int) -> str:
    """Deliver one row (see Deliveries.deliver) and mark it."""
    deliveries = Deliveries(outbox, channels)
    try:
        return deliveries.deliver(row_id)
    finally:
        deliveries.finish()


def deliver_due(outbox: Outbox, channels: Mapping[str, Channel]) -> int:
    """Deliver every row that is due, in this process (what the workers do, for
    development and tests without a broker). Returns how many were sent."""
    deliveries = Deliveries(outbox, channels)
    try:
        return sum(deliveries.deliver(row_id) == "sent" for row_id in outbox.take_due())
    finally:
        deliveries.finish()
        for channel in channels.values():
            channel.close()


def _change(conn: Connection, row_id: int, **values: Any) -> None:
    conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(values))


def _storable(text: str, limit: int = 320) -> str:
    """Text a column can keep whatever it holds: non-printable characters escaped,
    cut to `limit` characters."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))[:limit]
