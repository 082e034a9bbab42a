"""The production shape on one PostgreSQL database and one Redis: two gunicorn web
servers, two Celery workers, the scheduler and a real SMTP server. Two games are
played through the JSON API, each move sent to the other web server than the one
before, each player moving only once their turn mail has come. The games end where
their moves take them, every mail arrives once (no Message-ID twice, as many mails
as the outbox sent), each turn's mail arrives (no more, no fewer) and each game's
chain, fetched from the other server, holds."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import redis
import requests
from aiosmtpd.controller import Controller
from sqlalchemy import select
from test_worker import REDIS_URL, Mailbox, _redis_for, eventually

from pbem.service.rows import OUTBOX
from pbem.store.chain import check
from pbem.store.database import Database

from support import SHORT, free_port

ROOT = Path(__file__).resolve().parents[2]
ADMIN_KEY = "topology-admin-key"
THREAD = re.compile(r"<game-(\w+)-seat-(\d+)@")

pytestmark = pytest.mark.slow  # seven processes, two games played by mail


def _seat_of(mail) -> tuple[str, int]:
    """The game and seat a mail is about, from its thread (References)."""
    found = THREAD.search(str(mail["References"] or ""))
    assert found, f"a game mail names its thread: {mail['References']!r}"
    return found[1], int(found[2])


@pytest.fixture
def site(database_url, tmp_path, worker_id):
    """Two web servers, two workers and a scheduler on one database and one Redis."""
    if not REDIS_URL:
        if os.environ.get("CI"):
            pytest.fail("CI must run the Redis tests: set PBEM_TEST_REDIS_URL")
        pytest.skip("the topology needs PBEM_TEST_REDIS_URL")
    broker = _redis_for(worker_id)
    redis.Redis.from_url(broker).flushdb()
    mailbox = Mailbox()
    smtp_port = free_port()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    ports = [free_port(), free_port()]
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_BROKER_URL": broker,
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
        "PBEM_SECRET_KEY": "topology-secret",
        "PBEM_ADMIN_KEY": ADMIN_KEY,
        "PBEM_BASE_URL": "http://pbem.test",
        "PBEM_SWEEP_SECONDS": "1",
    }
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config" / "gunicorn.conf.py")]
    worker = [sys.executable, "-m", "pbem.cli", "worker", "--concurrency", "2"]
    commands = [
        (f"web{n}", [*gunicorn, "-w", "1", "-b", f"127.0.0.1:{port}", "pbem.web.app:create_app()"])
        for n, port in enumerate(ports)
    ]
    commands += [("worker0", worker), ("worker1", worker)]
    commands += [("scheduler", [sys.executable, "-m", "pbem.cli", "scheduler"])]
    logs = tmp_path / "logs"
    logs.mkdir()
    processes = []
    try:
        for name, command in commands:
            # each its own instance folder (gunicorn's control socket lives there)
            own = {**env, "PBEM_INSTANCE_DIR": str(tmp_path / name)}
            with open(logs / f"{name}.log", "wb") as log:
                processes.append(
                    subprocess.Popen(
                        command,
                        env=own,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        bases = [f"http://127.0.0.1:{port}" for port in ports]

        def answering() -> bool:
            try:
                return all(requests.get(b + "/api/openapi.json", timeout=10).ok for b in bases)
            except requests.RequestException:
                return False

        eventually(answering, "both web servers to answer")
        database = Database(database_url)
        yield type("Site", (), {"bases": bases, "mailbox": mailbox, "database": database})()
        database.dispose()
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        smtp.stop()


def _turn_mails(mailbox) -> Counter:
    """Each seat's mails that told it its turn (the first mover's invitation too)."""
    return Counter(
        _seat_of(m)
        for m in list(mailbox.messages)
        if m["X-Pbem-Kind"] == "your_turn" or m["Subject"].endswith("it is your turn")
    )


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_two_web_servers_and_two_workers_play_games_to_their_ends(site):
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    games = {}
    for n, (game, setup) in enumerate([("nim", {"pile": 9}), ("mall", SHORT)]):
        players = [{"name": f"P{n}a", "email": f"p{n}a@example.com"}]
        players += [{"name": f"P{n}b", "email": f"p{n}b@example.com"}]
        body = {"game": game, "players": players, "setup": setup}
        made = requests.post(site.bases[n % 2] + "/api/games", json=body, headers=admin)
        assert made.status_code == 201, made.text
        answer = made.json()
        games[answer["id"]] = {s["seat"]: s["token"] for s in answer["seats"]}
    turns: Counter = Counter()  # (game, seat) -> turns begun
    moves = 0
    playing = set(games)
    while playing:
        for game_id in sorted(playing):
            tokens = games[game_id]
            bearer = {"Authorization": f"Bearer {tokens[1]}"}
            state = requests.get(f"{site.bases[moves % 2]}/api/games/{game_id}", headers=bearer)
            doc = state.json()
            if doc["turn"] is None:
                playing.discard(game_id)
                continue
            seat = doc["turn"]
            turns[game_id, seat] += 1  # each pass moves: each read is a new turn
            # the player moves once their turn mail has come, as by mail
            eventually(
                lambda g=game_id, s=seat: _turn_mails(site.mailbox)[g, s] >= turns[g, s],
                f"the turn mail of seat {seat} of {game_id}",
            )
            own = {"Authorization": f"Bearer {tokens[seat]}"}
            base = site.bases[moves % 2]
            legal = requests.get(f"{base}/api/games/{game_id}/legal", headers=own).json()
            action = legal["legal"][-1]
            moved = requests.post(
                f"{site.bases[(moves + 1) % 2]}/api/games/{game_id}/actions",
                json={"action": action, "expected_seq": legal["seq"]},
                headers=own,
            )
            assert moved.status_code == 201, moved.text
            moves += 1
    assert moves >= 6

    def all_delivered() -> bool:
        with site.database.reading() as conn:
            found = conn.execute(select(OUTBOX.c.status)).scalars().all()
        return all(status in ("sent", "skipped") for status in found)

    eventually(all_delivered, "every mail to be delivered")
    with site.database.reading() as conn:
        sent = conn.execute(
            select(OUTBOX.c.delivery_id, OUTBOX.c.kind).where(OUTBOX.c.status == "sent")
        ).all()
    eventually(lambda: len(site.mailbox.messages) >= len(sent), "the last mails to arrive")
    ids = [m["Message-ID"] for m in site.mailbox.messages]
    assert len(ids) == len(set(ids)) == len(sent)  # each mail once
    assert sorted(ids) == sorted(row.delivery_id for row in sent)
    assert _turn_mails(site.mailbox) == +turns  # one per turn, for the seat whose turn it was
    over = Counter(_seat_of(m)[0] for m in site.mailbox.messages if m["X-Pbem-Kind"] == "game_over")
    assert over == {game_id: 2 for game_id in games}
    for n, (game_id, tokens) in enumerate(games.items()):
        own = {"Authorization": f"Bearer {tokens[1]}"}
        seen = [requests.get(f"{b}/api/games/{game_id}", headers=own).json() for b in site.bases]
        assert seen[0]["seq"] == seen[1]["seq"] and seen[0]["turn"] is None
        answer = requests.get(f"{site.bases[n % 2]}/api/games/{game_id}/chain", headers=own)
        found = check(answer.json(), seen[1]["head_hash"])
        assert found.problems == [] and found.events == seen[0]["seq"]
