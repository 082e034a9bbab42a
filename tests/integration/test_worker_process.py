"""`pbem worker` for real, on a Redis server of the test's own (it is killed here):
the worker writes its heartbeat from a thread while it runs, saying whether its
broker answers, and removes it at a clean stop (exit 0); a worker whose Redis dies
while it holds a task ends with a non-zero exit status (Celery's own entry point
dropped the code and exited 0), so that its service manager starts it again."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import threading

import pytest
import redis
from aiosmtpd.controller import Controller

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import PlayerSpec
from pbem.store import heartbeats, migrate

from processes import Child, environment, eventually
from support import free_port

HOST = socket.gethostname()
pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


class OwnRedis:
    """A redis-server on a free port, no persistence, ours to kill."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        eventually(lambda: self._answers(client), "redis-server to start", timeout=30)

    @staticmethod
    def _answers(client: redis.Redis) -> bool:
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Holding:
    """An SMTP server that takes a mail and sits on its answer until let go."""

    def __init__(self) -> None:
        self.holding, self.release = threading.Event(), threading.Event()

    async def handle_DATA(self, server, session, envelope) -> str:
        self.holding.set()
        await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 120)
        return "250 OK"


@pytest.fixture
def own_redis():
    server = OwnRedis()
    yield server
    server.kill()


@pytest.fixture
def worker_env(tmp_path, own_redis):
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    env = environment(tmp_path, url, PBEM_BROKER_URL=own_redis.url, PBEM_HEARTBEAT_SECONDS="1")
    parts = build(load_settings(env))
    migrate.upgrade(parts.database)
    yield env, parts
    parts.database.dispose()


def _beat(parts, child: Child):
    return heartbeats.last_beat(parts.database, f"worker:{HOST}:{child.pid}")


def test_a_worker_beats_while_it_runs_and_forgets_its_beat_at_a_clean_stop(tmp_path, worker_env):
    env, parts = worker_env
    child = Child(["worker", "--concurrency", "1"], env, tmp_path, "worker")
    try:
        eventually(lambda: _beat(parts, child) is not None, "the heartbeat", child=child)
        first = _beat(parts, child)
        assert first.holder == f"{HOST}:{child.pid}" and dict(first.state) == {"broker": "ok"}
        eventually(lambda: _beat(parts, child).beat_at > first.beat_at, "the next beat")
    finally:
        status = child.stop()
    assert status == 0
    assert _beat(parts, child) is None
    lines = child.json_lines()  # every stderr line is JSON, Celery's own included
    assert any(line["logger"].startswith("celery") for line in lines)
    assert {line.get("process") for line in lines} == {"worker"}


@pytest.mark.slow  # the worker tries its broker again for about 30 s before it gives up
def test_a_worker_whose_redis_dies_while_it_holds_a_task_exits_non_zero(
    tmp_path, worker_env, own_redis
):
    env, parts = worker_env
    smtp = Holding()
    controller = Controller(smtp, hostname="127.0.0.1", port=free_port())
    controller.start()
    env["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{controller.port}"
    child = Child(["worker", "--concurrency", "1"], env, tmp_path, "worker")
    try:
        eventually(lambda: _beat(parts, child) is not None, "the heartbeat", child=child)
        parts.service.create_game(
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="random")],
            {"hours_per_turn": None},
            {"seed": "redis-dies"},
        )
        assert smtp.holding.wait(120), "the worker never took the mail"
        own_redis.kill()  # while the worker holds the task, unacknowledged
        eventually(
            lambda: (
                child.process.poll() is not None
                or _beat(parts, child).state.get("broker", "").startswith("unreachable")
            ),
            "the heartbeat to say the broker is away",
        )
        said = _beat(parts, child).state["broker"]
        assert said.startswith("unreachable: cannot be reached"), said
        smtp.release.set()
        status = child.process.wait(timeout=180)
    finally:
        smtp.release.set()
        child.kill()
        controller.stop()
    assert status != 0, child.stderr()[-3000:]
    assert any(line["level"] == "CRITICAL" for line in child.json_lines())
    assert _beat(parts, child) is not None  # no clean stop: the beat stays, and ages
