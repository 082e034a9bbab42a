"""Delivering the outbox's rows: claim a row (its delivery id stored first), hand it
to the adapter of its channel, and mark it sent the moment the channel took it;
while a task works through its rows, a heartbeat renews their leases, so that the
rows of a sender that died come back to the sweep within seconds."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from types import TracebackType

from .notices import Channel, DeliveryFailed, Moot
from .outbox import RENEW_EVERY, Outbox

log = logging.getLogger(__name__)
# How often, and how long apart, marking a delivered row sent is tried again when the
# database does not answer: a row left unmarked goes again (the same message) once
# its lease has run out.
MARK_TRIES, MARK_PAUSE = 5, 1.0


class Deliveries:
    """Delivers rows one after another, each through the adapter of its channel:
    claim it, hand it over, mark it, each row in its own transactions, so that a row
    the channel took is marked sent before the next one is begun."""

    def __init__(self, outbox: Outbox, channels: Mapping[str, Channel]) -> None:
        self.outbox = outbox
        self.channels = channels
        self._unmarked: list[int] = []  # delivered, not marked: the database was away

    def deliver(self, row_id: int) -> str:
        """What became of the row: sent, skipped (not pending, or moot), pending (to
        be tried again later, or waiting behind an earlier notice to the same
        address) or failed (given up). A notice that cannot be written fails at
        once, with its reason; it never raises into the next one's way."""
        outbox = self.outbox
        row = outbox.claim(row_id, channels=self.channels)
        if row is None:
            status = outbox.status(row_id)
            return status if status in ("pending", "failed") else "skipped"
        try:
            known = outbox.moot(row)  # the game ended, or the page showed it
        except Exception as error:  # the database is away: tried again later
            return outbox.failed(row_id, f"{type(error).__name__}: {error}")
        try:
            if known is not None:
                raise Moot(known)
            self.channels[row.channel].deliver(row)
        except Moot as why:
            outbox.skipped(row_id, str(why))
            return "skipped"
        except DeliveryFailed as error:
            return outbox.failed(row_id, error.reason, permanent=error.permanent)
        except Exception as error:  # trying again cannot help: it fails now
            text = f"this notice cannot be written: {type(error).__name__}: {error}"
            return outbox.failed(row_id, text, permanent=True)
        try:
            outbox.sent(row_id)
        except Exception:
            log.warning("notice %s: sent, not yet marked; trying again", row_id, exc_info=True)
            self._unmarked.append(row_id)
        return "sent"

    def finish(self) -> None:
        """Mark the rows delivered that could not be marked at once, trying a few
        times; one still unmarked raises (it stays sending, and the sweep takes it
        back when its lease has run out: the same message again)."""
        for attempt in range(MARK_TRIES):
            left = []
            for row_id in self._unmarked:
                try:
                    self.outbox.sent(row_id)
                except Exception:
                    left.append(row_id)
            self._unmarked = left
            if not left:
                return
            if attempt + 1 < MARK_TRIES:
                time.sleep(MARK_PAUSE)
        raise RuntimeError(f"notices {self._unmarked} were sent and could not be marked")


class Heartbeat:
    """While a task works through its rows (as a `with` block): renews the leases of
    the rows not yet done every RENEW_EVERY, from a thread of its own. A row is done
    (`done`) once it is sent, failed, skipped or waiting again."""

    def __init__(self, outbox: Outbox, row_ids: Iterable[int], every: float | None = None) -> None:
        self.outbox = outbox
        self.every = RENEW_EVERY.total_seconds() if every is None else every
        self._held = set(row_ids)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="outbox-heartbeat", daemon=True)

    def done(self, row_id: int) -> None:
        with self._lock:
            self._held.discard(row_id)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            with self._lock:
                held = sorted(self._held)
            if not held:
                continue
            try:
                self.outbox.renew(held)
            except Exception as error:  # the sweep takes them back; the sends go on
                log.warning("could not renew the leases of notices %s: %s", held, error)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()


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
