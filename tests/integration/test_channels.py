"""The notification port: a channel is one adapter given to the composition root.
A tiny chat adapter (it keeps what it is handed in a list) gets its notices through
the real outbox, the scheduler's hand-out, the broker and a Celery worker; each row
goes to the adapter of its channel, a row of a channel nobody delivers fails at
once saying so, and an adapter's failures are the outbox's usual ones."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.events import timestamp
from pbem.service import PlayerSpec, rows
from pbem.service.delivery import deliver
from pbem.service.notices import DeliveryFailed, Moot
from pbem.service.sweep import Work
from pbem.store import migrate
from worker.scheduler import hand_out


class Chat:
    """A chat channel for tests: what it delivers lands in `said`; `trouble` makes
    its next deliveries raise."""

    name = "chat"

    def __init__(self) -> None:
        self.said: list[tuple[str, str, dict, str]] = []
        self.trouble: Exception | None = None
        self.closed = 0
        self.warmed = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def delivery_id(self) -> str:
        return f"chat-{next(self._ids)}"

    def deliver(self, row) -> None:
        if self.trouble is not None:
            raise self.trouble
        with self._lock:
            self.said.append((row.kind, row.address, dict(row.payload), row.delivery_id))

    def close(self) -> None:
        self.closed += 1

    def warm(self) -> None:
        self.warmed += 1


@pytest.fixture
def chat_parts(tmp_path, clock):
    chat = Chat()
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path / "instance")},
        database_url=f"sqlite:///{tmp_path / 'chat.sqlite3'}",
        secret_key="chat-secret",
        broker_url="filesystem://",
        smtp_url="smtp://127.0.0.1:9",  # nothing listens: no notice here goes by mail
    )
    parts = build(settings, clock, channels=[chat])
    migrate.upgrade(parts.database)
    yield parts, chat
    parts.database.dispose()


def _write(parts, clock, *notices) -> list[int]:
    """Outbox rows (channel, kind, address, payload), as the service writes them."""
    mails = [
        rows.new_mail(None, None, kind, None, to, payload, timestamp(clock()), channel=channel)
        for channel, kind, to, payload in notices
    ]
    with parts.database.writing() as conn:
        return rows.add_mails(conn, mails)


def _wait(condition, what: str, timeout: float = 30.0) -> None:
    """Wait for the worker thread to do something (not for a clock)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_chat_channel_gets_its_notices_through_the_outbox_the_broker_and_a_worker(
    chat_parts, clock
):
    parts, chat = chat_parts
    ids = _write(
        parts,
        clock,
        ("chat", "my_games", "@ann:chat.example", {"seats": []}),
        ("chat", "digest", "@ben:chat.example", {"seats": []}),
    )
    with start_worker(parts.celery, pool="solo", perform_ping_check=False, loglevel="WARNING"):
        hand_out(
            parts.celery, Work(mails=ids), parts.outbox
        )  # what the scheduler does with a sweep
        _wait(lambda: len(chat.said) == 2, "the chat notices")
        _wait(lambda: [parts.outbox.status(i) for i in ids] == ["sent", "sent"], "sent")

    assert chat.said == [
        ("my_games", "@ann:chat.example", {"seats": []}, "chat-1"),
        ("digest", "@ben:chat.example", {"seats": []}, "chat-2"),
    ]
    assert [parts.outbox.get(i).delivery_id for i in ids] == ["chat-1", "chat-2"]
    assert chat.closed >= 1  # the task let go of what it held
    assert chat.warmed == 1  # it was made ready once, as the worker started


def test_each_row_goes_to_the_adapter_of_its_channel_and_an_unknown_channel_fails_at_once(
    chat_parts, clock
):
    parts, chat = chat_parts
    pager, said = _write(
        parts,
        clock,
        ("pager", "my_games", "555-0100", {"seats": []}),
        ("chat", "my_games", "@ann:chat.example", {"seats": []}),
    )
    task = parts.celery.tasks["pbem.deliver"]

    assert task.apply(args=[[pager, said]]).get() == ["failed", "sent"]

    row = parts.outbox.get(pager)
    assert row.status == "failed"
    assert row.last_error == (
        "no adapter delivers the channel 'pager' (this server has: chat, email, push)"
    )
    assert [kind for kind, *_ in chat.said] == ["my_games"]


def test_an_adapters_failures_are_retried_given_up_or_skipped_as_any_mail(chat_parts, clock):
    parts, chat = chat_parts
    ids = _write(parts, clock, *[("chat", "my_games", f"@p{n}:x", {"seats": []}) for n in range(3)])
    troubles = [
        (DeliveryFailed("the chat server is away", permanent=False), "pending"),
        (DeliveryFailed("no such chat user", permanent=True), "failed"),
        (Moot("nothing to say any more"), "skipped"),
    ]
    for row_id, (trouble, status) in zip(ids, troubles, strict=True):
        chat.trouble = trouble
        assert deliver(parts.outbox, parts.channels, row_id) == status
        assert parts.outbox.get(row_id).last_error == str(trouble)
    retried = parts.outbox.get(ids[0])
    assert (retried.attempts, retried.next_attempt_at) == (
        1,
        timestamp(clock() + timedelta(minutes=1)),
    )
    chat.trouble = None
    clock.advance(minutes=1)
    assert deliver(parts.outbox, parts.channels, ids[0]) == "sent"
    assert chat.said == [("my_games", "@p0:x", {"seats": []}, "chat-1")]  # the same id


def test_a_notice_retried_on_one_channel_does_not_hold_back_another_channels(chat_parts, clock):
    parts, chat = chat_parts
    first, second = _write(
        parts,
        clock,
        ("chat", "my_games", "ann@example.com", {"seats": []}),
        ("chat", "my_games", "ann@example.com", {"seats": []}),
    )
    other = _write(parts, clock, ("email", "my_games", "ann@example.com", {"seats": []}))[0]
    chat.trouble = DeliveryFailed("away")
    assert deliver(parts.outbox, parts.channels, first) == "pending"
    chat.trouble = None
    # the next chat notice to the address waits behind the one being retried ...
    assert deliver(parts.outbox, parts.channels, second) == "pending"
    # ... an e-mail to the same address does not: it is claimed (and, with no seat
    # of ann's left to list, skipped as moot rather than sent)
    assert deliver(parts.outbox, parts.channels, other) == "skipped"


def test_digests_are_made_for_each_channel_and_address(chat_parts, clock):
    parts, _ = chat_parts
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"seed": "digest"},
    )
    game = created.game_id
    held = [
        rows.new_mail(game, 7, "your_turn", 1, to, {}, timestamp(clock()), channel=channel)
        for channel, to in (("email", "ann@example.com"), ("chat", "ann@example.com"))
    ]
    held.append(rows.new_mail(game, 9, "your_turn", 1, "ann@example.com", {}, timestamp(clock())))
    with parts.database.writing() as conn:
        rows.add_mails(conn, [{**mail, "status": "held"} for mail in held])

    digests = [parts.outbox.get(i) for i in parts.outbox.make_digests()]

    assert [(d.kind, d.channel, d.address, d.payload) for d in digests] == [
        ("digest", "email", "ann@example.com", {"seats": [[game, 1]]}),
        ("digest", "chat", "ann@example.com", {"seats": [[game, 1]]}),
    ]
