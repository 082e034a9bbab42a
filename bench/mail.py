"""Benchmark of mail delivery: the mails of new games (each player's invitation, the
first seat's turn mail) delivered per second by a real Celery worker (disk broker,
SQLite) into a local aiosmtpd server, against a raw smtplib loop sending the same
mails (written out once each) to the same server.

    python bench/mail.py [--games N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import os
import smtplib
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter as Tally
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

from aiosmtpd.controller import Controller
from sqlalchemy import select

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.mail.compose import Composer
from pbem.service import PlayerSpec
from pbem.service.outbox import OUTBOX
from pbem.service.sweep import Sweeper
from pbem.store import migrate
from worker.scheduler import hand_out


class Counter:
    """An aiosmtpd handler that only counts what it accepts."""

    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server, session, envelope) -> str:
        self.count += 1
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """The processor time a process has used so far (Linux), or NaN elsewhere: less
    at the mercy of other load on the machine than the wall clock."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-mail-bench-"))
    counter = Counter()
    port = free_port()
    smtp = Controller(counter, hostname="127.0.0.1", port=port)
    smtp.start()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": f"sqlite:///{folder / 'mail.sqlite3'}",
        "PBEM_BROKER_URL": "filesystem://",
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{port}",
        "PBEM_SECRET_KEY": "bench",
        "PBEM_INSTANCE_DIR": str(folder / "instance"),
    }
    settings = load_settings(env)
    parts = build(settings)
    migrate.upgrade(parts.database)
    celery = parts.celery
    # The games are created by parts with no broker, so nothing is queued yet: the
    # sweep hands everything out at once, inside the measurement.
    quiet = build(load_settings({**env, "PBEM_BROKER_URL": ""}))
    for number in range(args.games):
        quiet.service.create_game(
            [
                PlayerSpec("Ann", f"ann{number}@example.com"),
                PlayerSpec("Ben", f"ben{number}@x.org"),
            ],
            None,
            {"seed": f"bench {number}"},
        )
    composer = Composer(parts.service, settings)
    with parts.database.reading() as conn:
        rows = conn.execute(select(OUTBOX).order_by(OUTBOX.c.id)).all()
    queued = len(rows)
    kinds = Tally(row.kind for row in rows)
    # the same mails the worker sends (each row's), written out once, for the raw loops
    written = [
        composer.write(SimpleNamespace(**{**row._mapping, "delivery_id": composer.message_id()}))
        for row in rows
    ]

    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pbem.cli",
            "worker",
            "--concurrency",
            str(args.concurrency),
            "--loglevel",
            "WARNING",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(3)  # the worker's start, kept out of the measurement
    cpu_before = _cpu_seconds(worker.pid)
    started = time.perf_counter()
    later = datetime.now(UTC) + timedelta(seconds=1)
    sweeper = Sweeper(parts.service, parts.outbox, lambda: later)
    mails = 0
    while True:  # a sweep hands out at most its limit of rows: sweep until all are out
        work = sweeper.sweep()
        if not work.mails:
            break
        hand_out(celery, work)
        mails += len(work.mails)
    if mails != queued:
        raise SystemExit(f"{queued} mails were queued, but the sweeps handed out {mails}")
    while counter.count < mails:
        time.sleep(0.01)
    worker_seconds = time.perf_counter() - started
    cpu = _cpu_seconds(worker.pid) - cpu_before
    worker.terminate()
    worker.wait()

    counter.count = 0
    started = time.perf_counter()
    for mail in written:
        with smtplib.SMTP("127.0.0.1", port) as connection:
            connection.sendmail(mail.sender, list(mail.recipients), mail.data)
    raw_seconds = time.perf_counter() - started
    started = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", port) as connection:
        for mail in written:
            connection.sendmail(mail.sender, list(mail.recipients), mail.data)
    one_connection = time.perf_counter() - started
    smtp.stop()

    told = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    print(f"{mails} mails ({told}) of {args.games} games")
    print(f"  worker: a thread pool of {args.concurrency}; disk broker; SQLite")
    print(f"  worker delivery               {mails / worker_seconds:8,.0f} mails per second")
    print(f"  raw smtplib, one connection each  {mails / raw_seconds:8,.0f} mails per second")
    print(f"  raw smtplib, one connection       {mails / one_connection:8,.0f} mails per second")
    print(f"  worker processor time             {1000 * cpu / mails:8.1f} ms per mail")
    ratio = raw_seconds / worker_seconds
    print(f"  ratio (worker / raw, a connection each)  {ratio:6.2f}  (aim: at least 0.5)")


if __name__ == "__main__":
    main()
