"""The outbox: mails the events call for, waiting to be delivered. Whoever delivers
claims a row (its Message-ID is stored before it is sent), then marks it sent, or
failed with a time to try again, or failed for good."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Row, and_, bindparam, func, select, update

from pbem.store.database import Database
from pbem.store.events import timestamp

from . import rows

OUTBOX = rows.OUTBOX
_DUE = (
    select(OUTBOX.c.id)
    .where(OUTBOX.c.status == "pending", OUTBOX.c.next_attempt_at <= bindparam("now"))
    .order_by(OUTBOX.c.id)
    .limit(bindparam("limit"))
)
_ROW = select(OUTBOX).where(OUTBOX.c.id == bindparam("id"))


class Outbox:
    def __init__(self, database: Database, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.clock = clock

    def due(self, limit: int = 100) -> list[int]:
        """Ids of the pending rows whose time has come, oldest first."""
        with self.db.reading() as conn:
            now = timestamp(self.clock())
            return list(conn.execute(_DUE, {"now": now, "limit": limit}).scalars())

    def get(self, row_id: int) -> Row | None:
        with self.db.reading() as conn:
            return conn.execute(_ROW, {"id": row_id}).first()

    def claim(self, row_id: int, message_id: Callable[[], str]) -> Row | None:
        """The row, ready to send: pending, with its Message-ID stored (a new one only
        the first time) and its attempt counted. None when it is not pending."""
        with self.db.writing() as conn:
            row = conn.execute(_ROW.with_for_update(), {"id": row_id}).first()
            if row is None or row.status != "pending":
                return None
            changes = {"attempts": row.attempts + 1}
            if row.message_id is None:
                changes["message_id"] = message_id()
            conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(changes))
            return conn.execute(_ROW, {"id": row_id}).first()

    def sent(self, row_id: int) -> None:
        self._set(row_id, status="sent", sent_at=timestamp(self.clock()), last_error=None)

    def failed(self, row_id: int, error: str, retry_after: timedelta | None) -> None:
        """A failed attempt: try again after `retry_after`, or never (None)."""
        if retry_after is None:
            self._set(row_id, status="failed", last_error=error[:2000])
        else:
            due = timestamp(self.clock() + retry_after)
            self._set(row_id, next_attempt_at=due, last_error=error[:2000])

    def _set(self, row_id: int, **values: object) -> None:
        with self.db.writing() as conn:
            conn.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(values))

    def failures(self) -> list[Row]:
        """Rows given up on, for people to look at."""
        with self.db.reading() as conn:
            return list(conn.execute(select(OUTBOX).where(OUTBOX.c.status == "failed")).all())

    def ask_for_games(self, email: str, window: timedelta) -> bool:
        """Queue a mail listing the games `email` plays, unless one was queued for it
        within `window` (or it plays none). Says whether a mail was queued; callers
        must not tell the asker (the page is the same either way)."""
        address = email.strip().lower()
        now = self.clock()
        with self.db.writing() as conn:
            seats = conn.execute(
                select(rows.SEATS.c.game_id, rows.SEATS.c.seat).where(
                    func.lower(rows.SEATS.c.email) == address, rows.SEATS.c.controller == "human"
                )
            ).all()
            if not seats:
                return False
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
                return False
            payload = {"seats": [[s.game_id, s.seat] for s in seats]}
            mail = rows.new_mail(None, None, "my_games", None, address, payload, timestamp(now))
            rows.add_mails(conn, [mail])
            return True
