"""The worker for real: a Celery worker process on a real broker (a folder on disk,
and Redis when PBEM_TEST_REDIS_URL is set), mail to an aiosmtpd server in this
process. A whole bot-against-human game sends exactly the expected mails in order;
SMTP refusing for a while loses nothing and sends nothing twice; a worker killed in
the middle of a delivery loses nothing; two schedulers at once remind once.

Time is injected: the sweeps here run on a clock the test moves; the worker, in its
own process, only sends what it is handed."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import update
from sqlmodel import select

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.events import timestamp
from pbem.service import PlayerSpec, rows
from pbem.service.rows import GAMES
from pbem.service.sweep import Sweeper
from pbem.service.tokens import token_hash
from pbem.store.tables import Outbox
from worker.app import DELIVER
from worker.scheduler import hand_out

REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL")
SHORT_GAME = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel"],
    "secrets": {"1": "O3", "2": "O5"},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mailbox:
    """An SMTP server that keeps what it accepts; it can refuse for now (451), or
    keep a message and then sit on its answer (as a server does whose reply is lost
    when the sender dies)."""

    def __init__(self) -> None:
        self.messages: list = []
        self.refuse = False
        self.hold = threading.Event()
        self.holding = threading.Event()
        self.hold.set()

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.refuse:
            return "451 4.3.0 try again later"
        self.messages.append(
            BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        )
        if not self.hold.is_set():
            self.holding.set()
            await asyncio.get_running_loop().run_in_executor(None, self.hold.wait)
        return "250 OK"

    def kinds(self) -> list[tuple[str, str]]:
        return [(m["X-Pbem-Kind"], m["To"].addresses[0].addr_spec) for m in self.messages]


def eventually(condition, what: str, timeout: float = 60.0) -> None:
    """Wait for another process to do something (not for a clock)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _redis_for(worker_id: str) -> str:
    """A Redis database of this test process's own (parallel runs must not share a
    queue): the configured one, moved along by the xdist worker's number."""
    base, _, number = REDIS_URL.rpartition("/")
    index = int(worker_id[2:]) if worker_id.startswith("gw") else 0
    return f"{base}/{(int(number or 0) + index) % 16}"


@pytest.fixture(params=["disk broker", "redis"])
def stack(request, database_url, tmp_path, worker_id):
    """This process as the web app would be (the service, with the broker wired), a real
    worker process, and the SMTP server."""
    if request.param == "redis":
        if not REDIS_URL:
            if os.environ.get("CI"):
                pytest.fail("CI must run the Redis tests: set PBEM_TEST_REDIS_URL")
            pytest.skip("Redis tests need PBEM_TEST_REDIS_URL (.ci/run starts redis-server)")
        broker = _redis_for(worker_id)
    else:
        broker = "filesystem://"
    mailbox = Mailbox()
    smtp_port = _free_port()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_BROKER_URL": broker,
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
        "PBEM_SECRET_KEY": "worker-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        "PBEM_BASE_URL": "http://pbem.test",
    }
    settings = load_settings(env)
    parts = build(settings)
    if broker.startswith("redis"):
        import redis

        redis.Redis.from_url(broker).flushdb()
    workers: list[subprocess.Popen] = []

    def start_worker() -> subprocess.Popen:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pbem.cli",
                "worker",
                "--concurrency",
                "1",
                "--loglevel",
                "WARNING",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        workers.append(process)
        return process

    stack = type("Stack", (), {})()
    stack.parts, stack.mailbox, stack.celery = parts, mailbox, parts.celery
    stack.start_worker = start_worker
    yield stack
    for process in workers:
        if process.poll() is None:
            process.kill()
            process.wait()
    smtp.stop()
    parts.database.dispose()


def outbox_rows(parts) -> list:
    with parts.database.read() as s:
        return list(s.exec(select(Outbox).order_by(Outbox.id)).all())


def all_sent(parts) -> bool:
    return all(r.status in ("sent", "skipped") for r in outbox_rows(parts))


def test_a_bot_against_a_human_sends_exactly_the_expected_mails_in_order(stack):
    stack.start_worker()
    service = stack.parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")],
        {"hours_per_turn": None},
        SHORT_GAME,
    )
    ann = created.seats[0].token
    while True:  # Ann moves once her mail has come, as a player by mail does
        eventually(lambda: service.state_at(created.game_id)["turn"] in (1, None), "the bot")
        eventually(lambda: all_sent(stack.parts), "Ann's mail")
        state = service.state_at(created.game_id)
        if state["turn"] is None:
            break
        action = service.legal(created.game_id, 1)[0]
        service.submit_action(created.game_id, ann, action, state["seq"])
    # 12 tiles: each round draws two, so the second round's last move ends the game
    expected = [
        ("invitation", "ann@example.com"),  # which tells her first turn
        ("your_turn", "ann@example.com"),  # with the first round's scores in it
        ("game_over", "ann@example.com"),
    ]
    assert stack.mailbox.kinds() == expected
    assert [r.status for r in outbox_rows(stack.parts)] == ["sent"] * 3
    ids = [m["Message-ID"] for m in stack.mailbox.messages]
    assert ids == [r.delivery_id for r in outbox_rows(stack.parts) if r.status == "sent"]
    turns = [m for m in stack.mailbox.messages if m["X-Pbem-Kind"] == "your_turn"]
    turn = turns[0]  # the one after the bot's first move
    text = turn.get_body(("plain",)).get_content()
    assert "Since your last turn:" in text and "Robo played" in text
    assert "Your legal actions:" in text and "  money L  (" in text
    assert " from L1 as money" in " ".join(text.split())  # what taking it would do
    assert f"http://pbem.test/g/{created.game_id}/{ann}" in text
    over = stack.mailbox.messages[-1].get_body(("plain",)).get_content()
    final = service.state_at(created.game_id)
    assert f"The seed was: {final['seed']}" in over
    said = over.splitlines()
    assert said[said.index("Its SHA-256, public since the start:") + 1] == final["seed_sha256"]


def test_smtp_refusing_for_a_while_then_accepting_delivers_everything_once(stack):
    stack.mailbox.refuse = True
    stack.start_worker()
    service = stack.parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        SHORT_GAME,
    )
    # the invitations are refused (Ann's tells her first turn too)
    eventually(
        lambda: (
            [(r.kind, r.attempts, r.status) for r in outbox_rows(stack.parts)]
            == [
                ("invitation", 1, "pending"),
                ("invitation", 1, "pending"),
            ]
        ),
        "the refused attempts",
    )
    assert stack.mailbox.messages == []
    stack.mailbox.refuse = False
    later = datetime.now(UTC) + timedelta(minutes=10)  # past the backoff
    sweeper = Sweeper(service, stack.parts.outbox, lambda: later)
    hand_out(stack.celery, sweeper.sweep(), stack.parts.outbox)
    eventually(lambda: all_sent(stack.parts), "the second attempts")
    assert sorted(stack.mailbox.kinds()) == [
        ("invitation", "ann@example.com"),
        ("invitation", "ben@example.com"),
    ]
    attempts = [(r.game_id, r.attempts) for r in outbox_rows(stack.parts)]
    assert attempts == [(created.game_id, 2), (created.game_id, 2)]
    ann = [
        m["X-Pbem-Kind"]
        for m in stack.mailbox.messages
        if m["To"].addresses[0].addr_spec == "ann@example.com"
    ]
    assert ann == ["invitation"]  # once


@pytest.mark.slow  # two worker processes, one killed mid-delivery
def test_a_worker_killed_while_delivering_loses_nothing(stack):
    stack.mailbox.hold.clear()  # the server sits on the first message
    first_worker = stack.start_worker()
    service = stack.parts.service
    service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="random")],
        {"hours_per_turn": None},
        SHORT_GAME,
    )
    assert stack.mailbox.holding.wait(60), "the worker never started sending"
    first_worker.send_signal(signal.SIGKILL)
    first_worker.wait()
    stack.mailbox.hold.set()  # the server kept the message; the worker never heard back
    (row,) = [r for r in outbox_rows(stack.parts) if r.kind == "invitation"]
    assert row.status == "sending"
    stack.start_worker()
    later = datetime.now(UTC) + timedelta(minutes=10)  # past the dead worker's lease
    hand_out(
        stack.celery,
        Sweeper(service, stack.parts.outbox, lambda: later).sweep(),
        stack.parts.outbox,
    )
    eventually(lambda: all_sent(stack.parts), "the mail to go again")
    ids = [m["Message-ID"] for m in stack.mailbox.messages if m["X-Pbem-Kind"] == "invitation"]
    assert ids == [row.delivery_id, row.delivery_id]  # sent again, as the same mail


def test_two_schedulers_at_once_send_one_reminder(stack):
    stack.start_worker()
    service = stack.parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, "reminders": [24]},
        SHORT_GAME,
    )
    eventually(lambda: all_sent(stack.parts), "the invitations")
    # the turn's deadline 23 hours away, so that its reminder is due now: the
    # schedulers and the worker then share one clock (a scheduler's clock a day
    # ahead would take back the leases the worker holds on the same rows)
    with stack.parts.database.writing() as conn:
        conn.execute(
            update(GAMES)
            .where(GAMES.c.id == created.game_id)
            .values(deadline_at=timestamp(datetime.now(UTC) + timedelta(hours=23)))
        )
    schedulers = [Sweeper(service, stack.parts.outbox, service.clock) for _ in range(2)]
    barrier = threading.Barrier(2)

    def sweep(sweeper: Sweeper) -> None:
        barrier.wait()
        hand_out(stack.celery, sweeper.sweep(), stack.parts.outbox)

    threads = [threading.Thread(target=sweep, args=(s,)) for s in schedulers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for sweeper in schedulers:  # and again: nothing new
        hand_out(stack.celery, sweeper.sweep(), stack.parts.outbox)
    eventually(lambda: all_sent(stack.parts), "the reminder")
    reminders = [k for k in stack.mailbox.kinds() if k[0].startswith("reminder")]
    assert reminders == [("reminder", "ann@example.com")]
    rows = [r.game_id for r in outbox_rows(stack.parts) if r.kind.startswith("reminder")]
    assert rows == [created.game_id]


def test_a_mail_that_cannot_be_written_never_holds_up_the_rest_of_its_batch(stack):
    service = stack.parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        SHORT_GAME,
    )
    holder = token_hash(created.seats[0].token)  # the mail is for Ann, who holds seat 1
    answer = {"lines": ["ok"], "ignored": [], "in_reply_to": "", "subject": "hi", "holder": holder}
    now = timestamp(datetime.now(UTC))
    written = [  # the first as a row written before addresses were checked
        rows.new_mail(created.game_id, None, "answer", 1, "a:b@example.com", answer, now),
        rows.new_mail(created.game_id, None, "answer", 1, "ann@example.com", answer, now),
    ]
    with stack.parts.database.writing() as conn:
        poison, good = rows.add_mails(conn, written)
    stack.celery.send_task(DELIVER, args=[[poison, good]])
    stack.start_worker()
    eventually(lambda: all(r.status in ("sent", "failed") for r in outbox_rows(stack.parts)), "all")
    found = {r.id: r for r in outbox_rows(stack.parts)}
    assert found[poison].status == "failed" and found[poison].attempts == 1
    assert "cannot be written" in found[poison].last_error
    assert found[good].status == "sent"
    assert [r.status for r in found.values()].count("sent") == 3  # two invitations
