"""The inbox ledger: every mail that came in to play, by Message-ID, so a mail
delivered twice acts once and a sender who writes too often is held back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from pbem.store.database import Database
from pbem.store.events import timestamp
from pbem.store.tables import InboundMail

INBOUND = InboundMail.__table__
PER_SENDER_PER_HOUR = 30
IN_HAND = timedelta(minutes=5)  # how long a handler may take before another one takes over

Received = Literal["new", "duplicate", "too many"]


class Inbox:
    def __init__(self, database: Database, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.clock = clock

    def receive(self, message_id: str, sender: str, game_id: str) -> Received:
        """Record the mail: "new", "duplicate" (handled before, or in hand), or
        "too many" (the sender has sent too many lately)."""
        now = self.clock()
        try:
            with self.db.writing() as conn:
                found = conn.execute(
                    select(INBOUND.c.status, INBOUND.c.received_at).where(
                        INBOUND.c.message_id == message_id
                    )
                ).first()
                if found is not None:
                    stalled = found.received_at < timestamp(now - IN_HAND)
                    # received but not handled: another handler is on it, or died on it
                    return "new" if found.status == "received" and stalled else "duplicate"
                recent = conn.execute(
                    select(func.count())
                    .select_from(INBOUND)
                    .where(
                        INBOUND.c.sender == sender,
                        INBOUND.c.received_at > timestamp(now - timedelta(hours=1)),
                    )
                ).scalar_one()
                if recent >= PER_SENDER_PER_HOUR:
                    return "too many"
                conn.execute(
                    insert(INBOUND).values(
                        message_id=message_id,
                        sender=sender,
                        game_id=game_id,
                        received_at=timestamp(now),
                        status="received",
                    )
                )
        except IntegrityError:  # the same mail, delivered twice at once
            return "duplicate"
        return "new"

    def handled(self, message_id: str, outcome: str) -> None:
        """Mark the mail acted on, with what came of it."""
        with self.db.writing() as conn:
            conn.execute(
                update(INBOUND)
                .where(INBOUND.c.message_id == message_id)
                .values(status="handled", outcome=outcome)
            )
