"""The inbox ledger: every mail that came in to play, by Message-ID (or a hash of it),
so a mail delivered twice acts once, a mail that was refused stays refused, a sender
who writes too often is held back, and no address is sent more answers than the
limit. Every answer to a mail is queued here, counted per recipient."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from sqlalchemy import Connection, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from pbem.events import timestamp
from pbem.store.database import Database
from pbem.store.tables import InboundMail, core_table

from . import rows

INBOUND = core_table(InboundMail)
OUTBOX = rows.OUTBOX
PER_SENDER_PER_HOUR = 30  # mails from one address acted on in an hour
ANSWERS_PER_HOUR = 30  # answers to one address in an hour, besides one note of the limit
TOO_MANY: Final = "too many"  # the status of that note, and the outcome of a mail over the limit
IN_HAND = timedelta(minutes=5)  # how long a handler may take before another one takes over
HOUR = timedelta(hours=1)
_LOCK = 7_348_190_015  # PostgreSQL advisory lock: one ledger decision at a time
_KEY_CHARS = 200  # a longer (or odd) Message-ID is kept as its SHA-256

Received = Literal["new", "duplicate", "in hand", "too many"]


def ledger_key(message_id: str) -> str:
    """The ledger's key for a Message-ID: itself when short and printable ASCII,
    else its SHA-256 (the column holds 500 characters)."""
    short = message_id and len(message_id) <= _KEY_CHARS and message_id.isascii()
    if short and message_id.isprintable() and " " not in message_id:
        return message_id
    return "sha256:" + hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()


class Inbox:
    def __init__(self, database: Database, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.clock = clock

    def _lock(self, conn: Connection) -> None:
        """Serialise the ledger's decisions (SQLite writers queue already)."""
        if self.db.dialect == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})

    def receive(
        self, message_id: str, sender: str, game_id: str, recipient: str | None = None
    ) -> Received:
        """Record the mail: "new" (act on it), "duplicate" (handled before),
        "in hand" (another handler is on it now: try again later), or "too many"
        (the sender sent, or `recipient` was answered, too often lately; recorded
        as handled)."""
        now = self.clock()
        key, sender = ledger_key(message_id), sender[:320]
        try:
            with self.db.writing() as conn:
                self._lock(conn)
                found = conn.execute(
                    select(INBOUND.c.status, INBOUND.c.received_at).where(
                        INBOUND.c.message_id == key
                    )
                ).first()
                if found is not None:
                    if found.status != "received":
                        return "duplicate"
                    if found.received_at >= timestamp(now - IN_HAND):
                        return "in hand"
                    # its handler died on it: take it over
                    conn.execute(
                        update(INBOUND)
                        .where(INBOUND.c.message_id == key)
                        .values(received_at=timestamp(now))
                    )
                    return "new"
                over = self._sent(conn, sender, now) >= PER_SENDER_PER_HOUR or (
                    recipient is not None
                    and len(self._answers(conn, recipient, now)[0]) >= ANSWERS_PER_HOUR
                )
                conn.execute(
                    insert(INBOUND).values(
                        message_id=key,
                        sender=sender,
                        game_id=game_id,
                        received_at=timestamp(now),
                        status="handled" if over else "received",
                        outcome=TOO_MANY if over else None,
                    )
                )
        except IntegrityError:  # the same mail, delivered twice at once
            return "in hand"
        return TOO_MANY if over else "new"

    def handled(self, message_id: str, outcome: str) -> None:
        """Mark the mail acted on, with what came of it."""
        with self.db.writing() as conn:
            conn.execute(
                update(INBOUND)
                .where(INBOUND.c.message_id == ledger_key(message_id))
                .values(status="handled", outcome=outcome[:32])
            )

    def refuse(
        self, message_id: str, sender: str, game_id: str | None, outcome: str = "refused"
    ) -> None:
        """Record a mail that was refused, or ignored (unless it was recorded as
        handled before); a retry of it is then a duplicate."""
        key, now = ledger_key(message_id), self.clock()
        try:
            with self.db.writing() as conn:
                found = conn.execute(
                    select(INBOUND.c.status).where(INBOUND.c.message_id == key)
                ).first()
                if found is None:
                    conn.execute(
                        insert(INBOUND).values(
                            message_id=key,
                            sender=sender[:320],
                            game_id=game_id,
                            received_at=timestamp(now),
                            status="handled",
                            outcome=outcome,
                        )
                    )
                elif found.status == "received":
                    conn.execute(
                        update(INBOUND)
                        .where(INBOUND.c.message_id == key)
                        .values(status="handled", outcome=outcome)
                    )
        except IntegrityError:  # recorded at the same moment by another handler
            pass

    def release(self, message_id: str) -> None:
        """Forget a mail whose handling failed for a passing reason (the database or
        the broker away), so that the mail server's retry is handled."""
        with self.db.writing() as conn:
            conn.execute(
                delete(INBOUND).where(
                    INBOUND.c.message_id == ledger_key(message_id),
                    INBOUND.c.status == "received",
                )
            )

    def answer(
        self, game_id: str, seat: int, to: str, payload: dict[str, Any], *, note: bool = False
    ) -> int | None:
        """Queue an answer to `to` (a seat's own address) unless `to` had
        ANSWERS_PER_HOUR answers in the last hour; a `note` of the limit goes once
        an hour at most. The outbox row's id, or None when nothing was queued."""
        now = self.clock()
        with self.db.writing() as conn:
            self._lock(conn)
            answers, notes = self._answers(conn, to, now)
            if notes if note else len(answers) >= ANSWERS_PER_HOUR:
                return None
            language = rows.language(conn, game_id, seat)
            mail = rows.new_mail(
                game_id, None, "answer", seat, to, payload, timestamp(now), language=language
            )
            return rows.add_mails(conn, [mail])[0]

    def _sent(self, conn: Connection, sender: str, now: datetime) -> int:
        """Mails from `sender` to a game's address acted on within the hour."""
        return conn.execute(
            select(func.count())
            .select_from(INBOUND)
            .where(
                INBOUND.c.sender == sender,
                INBOUND.c.game_id.is_not(None),
                INBOUND.c.outcome.is_distinct_from(TOO_MANY),
                INBOUND.c.received_at > timestamp(now - HOUR),
            )
        ).scalar_one()

    def _answers(self, conn: Connection, to: str, now: datetime) -> tuple[list[int], bool]:
        """The answers queued to `to` within the hour (besides notes of the limit),
        and whether a note of the limit went."""
        found = conn.execute(
            select(OUTBOX.c.id, OUTBOX.c.payload).where(
                OUTBOX.c.kind == "answer",
                func.lower(OUTBOX.c.address) == to.lower(),
                OUTBOX.c.created_at > timestamp(now - HOUR),
            )
        ).all()
        notes = [r.id for r in found if (r.payload or {}).get("status") == TOO_MANY]
        return [r.id for r in found if r.id not in notes], bool(notes)
