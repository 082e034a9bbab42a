"""/healthz and /readyz: alive while the process answers, whatever the database does;
ready only when the database answers at the current migration, the broker answers,
the scheduler beat lately and no worker is cut off from its broker, else 503 naming
each part that is down; an answer in about a second when a part hangs (the probe
is waited on, not the part); never a secret; JSON for every method. The web app
starts under gunicorn with the database away."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import health
from pbem.store import heartbeats, migrate
from pbem.web.app import create_app

from processes import gunicorn_command
from support import free_port, migrate_to

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-never-shown-4711"
ADMIN_KEY = "admin-key-never-shown-0815"


@pytest.fixture
def patient(monkeypatch):
    """Readiness waits longer on its probes: a part that answers is found to, however
    busy the machine running the tests (the hanging parts' tests wait as shipped)."""
    monkeypatch.setattr(health, "WAIT", 30.0)


def dead_postgres() -> str:
    """A PostgreSQL URL (with a password) at a port where nothing listens."""
    return f"postgresql://pbem:{PASSWORD}@127.0.0.1:{free_port()}/pbem"


def app_on(tmp_path, **overrides):
    """The web app built exactly as gunicorn builds it, on these settings."""
    values = {"secret_key": "health-secret", "admin_key": ADMIN_KEY, **overrides}
    settings = load_settings({"PBEM_INSTANCE_DIR": str(tmp_path / "instance")}, **values)
    parts = build(settings)
    app = create_app(parts)
    app.testing = True
    return app, parts


def head(database) -> str:
    """The newest migration's revision."""
    return ScriptDirectory.from_config(migrate.alembic_config(database)).get_current_head()


def ready(app) -> tuple[int, dict]:
    answer = app.test_client().get("/readyz")
    assert answer.content_type == "application/json"
    return answer.status_code, answer.json


def down(answer: dict) -> set[str]:
    return {name for name, check in answer["checks"].items() if not check["ok"]}


@pytest.mark.usefixtures("patient")
def test_with_the_database_away_the_app_starts_alive_and_not_ready(tmp_path):
    app, parts = app_on(tmp_path, database_url=dead_postgres())
    client = app.test_client()
    alive = client.get("/healthz")
    assert (alive.status_code, alive.json) == (200, {"ok": True})
    status, answer = ready(app)
    assert status == 503 and answer["ready"] is False
    assert answer["checks"]["database"] == {"ok": False, "why": "unreachable"}
    assert down(answer) == {"database", "migration", "scheduler", "workers"}
    assert answer["checks"]["broker"]["ok"]  # the disk broker needs no database
    text = client.get("/readyz").get_data(as_text=True)
    assert PASSWORD not in text and ADMIN_KEY not in text and "127.0.0.1" not in text
    parts.database.dispose()


@pytest.mark.usefixtures("patient")
def test_ready_when_every_part_answers_and_the_scheduler_beat(make_web, clock):
    app, parts = make_web()
    status, answer = ready(app)
    assert status == 503 and down(answer) == {"scheduler"}
    assert "no heartbeat" in answer["checks"]["scheduler"]["why"]
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=10)
    status, answer = ready(app)
    assert (status, answer["ready"]) == (200, True), answer
    assert answer["checks"]["migration"] == {"ok": True, "revision": head(parts.database)}
    assert answer["checks"]["workers"] == {"ok": True, "alive": 0}


@pytest.mark.usefixtures("patient")
def test_a_probe_that_finds_everything_well_writes_no_log_line(make_web, clock, caplog):
    app, parts = make_web()
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=10)
    ready(app)  # the first answer reads what it keeps
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):  # a load balancer asks every few seconds
            assert ready(app)[0] == 200
    said = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert said == [], [f"{r.name}: {r.getMessage()}" for r in said]


@pytest.mark.usefixtures("patient")
def test_a_scheduler_beat_older_than_three_sweeps_or_a_minute_is_not_ready(make_web, clock):
    app, parts = make_web()
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=10)
    clock.advance(seconds=59)
    assert ready(app)[0] == 200  # a minute at least, though 3 sweeps are 30 s
    clock.advance(seconds=2)
    status, answer = ready(app)
    assert status == 503 and down(answer) == {"scheduler"}
    assert answer["checks"]["scheduler"]["why"] == "last heartbeat 61 s ago (at most 60 s)"
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=40)
    clock.advance(seconds=119)
    assert ready(app)[0] == 200  # three sweeps of 40 s
    clock.advance(seconds=2)
    assert down(ready(app)[1]) == {"scheduler"}


@pytest.mark.usefixtures("patient")
def test_a_worker_that_cannot_reach_its_broker_makes_the_server_not_ready(make_web, clock):
    app, parts = make_web()
    db = parts.database
    heartbeats.beat(db, "scheduler", "host:1", clock(), sweep_seconds=10)
    heartbeats.beat(db, "worker:alpha:11", "alpha:11", clock(), broker="ok")
    cut_off = f"unreachable: Error 111 connecting to redis://:{PASSWORD}@10.1.2.3:6379/0"
    heartbeats.beat(db, "worker:beta:12", "beta:12", clock(), broker=cut_off)
    status, answer = ready(app)
    assert status == 503 and down(answer) == {"workers"}
    assert answer["checks"]["workers"] == {
        "ok": False,
        "why": "1 of 2 workers cannot reach the broker",
        "alive": 2,
        "broker_unreachable": 1,
    }
    assert PASSWORD not in str(answer) and "10.1.2.3" not in str(answer)
    # nor the host or process of any worker: those are for the admin page and the log
    shown = json.dumps(answer)
    assert not any(part in shown for part in ("alpha", "beta", '"11"', '"12"', ":11", ":12"))
    # a worker that stopped beating a minute ago is gone, not cut off
    clock.advance(seconds=61)
    heartbeats.beat(db, "scheduler", "host:1", clock(), sweep_seconds=10)
    heartbeats.beat(db, "worker:alpha:11", "alpha:11", clock(), broker="ok")
    status, answer = ready(app)
    assert status == 200 and answer["checks"]["workers"] == {"ok": True, "alive": 1}


@pytest.mark.usefixtures("patient")
def test_a_database_behind_the_current_migration_is_not_ready(make_web, clock):
    app, parts = make_web()
    migrate_to(parts.database, "0010", "downgrade")
    status, answer = ready(app)
    assert status == 503
    assert answer["checks"]["migration"] == {
        "ok": False,
        "why": f"at revision 0010, the code needs {head(parts.database)}",
    }
    assert answer["checks"]["database"] == {"ok": True}


@pytest.mark.usefixtures("patient")
def test_the_disk_broker_needs_its_folder(make_web, clock):
    app, parts = make_web()
    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=10)
    folder = parts.settings.instance_dir / "broker"
    assert ready(app)[0] == 200
    for item in sorted(folder.rglob("*"), reverse=True):
        item.rmdir() if item.is_dir() else item.unlink()
    folder.rmdir()
    status, answer = ready(app)
    assert status == 503 and answer["checks"]["broker"] == {
        "ok": False,
        "why": "its folder does not exist",
    }


@pytest.mark.usefixtures("patient")
def test_a_redis_broker_answers_or_is_named_down(tmp_path):
    redis_url = os.environ.get("PBEM_TEST_REDIS_URL")
    if not redis_url:
        if os.environ.get("CI"):
            pytest.fail("CI must run the Redis tests: set PBEM_TEST_REDIS_URL")
        pytest.skip("needs PBEM_TEST_REDIS_URL")
    database_url = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    app, _ = app_on(tmp_path, database_url=database_url, broker_url=redis_url)
    assert ready(app)[1]["checks"]["broker"] == {"ok": True}
    dead = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"
    app, _ = app_on(tmp_path, database_url=database_url, broker_url=dead)
    answer = ready(app)[1]
    assert answer["checks"]["broker"] == {"ok": False, "why": "unreachable"}
    assert PASSWORD not in str(answer)


def test_parts_that_hang_are_named_down_and_the_answer_still_comes(tmp_path):
    # A server that takes connections and never says a word: the database and the
    # broker both hang on it. /readyz waits on its probes a short while, not on them.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        app, parts = app_on(
            tmp_path,
            database_url=f"postgresql://pbem:{PASSWORD}@127.0.0.1:{port}/pbem",
            broker_url=f"redis://127.0.0.1:{port}/0",
        )
        status, answer = ready(app)
        assert status == 503
        assert answer["checks"]["database"] == {"ok": False, "why": "no answer within 0.8 s"}
        assert answer["checks"]["migration"]["ok"] is False
        assert answer["checks"]["broker"]["ok"] is False
        # asked again while the first probe still hangs: the same probe, waited on again
        assert ready(app)[1]["checks"]["database"]["why"] == "no answer within 0.8 s"
        probes = [t for t in threading.enumerate() if t.name == "readiness store"]
        assert len(probes) == 1
        assert app.test_client().get("/healthz").status_code == 200
    parts.database.dispose()


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_any_other_method_is_refused_in_json(tmp_path, path, method):
    app, _ = app_on(tmp_path, database_url=dead_postgres())
    answer = app.test_client().open(path, method=method, headers={"Origin": "http://x.test"})
    assert answer.status_code == 405  # not a CSRF refusal (400), not a page
    assert answer.json["error"] == "this address does not take that method"
    assert "GET" in answer.headers["Allow"]


@pytest.mark.slow
def test_gunicorn_starts_with_the_database_away_and_says_so(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": dead_postgres(),
        "PBEM_SECRET_KEY": "gunicorn-secret",
    }
    env.pop("PBEM_DEV", None)
    server = subprocess.Popen(
        gunicorn_command(
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{port}",
        ),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        booted = 0
        for line in server.stderr:  # gunicorn says when each worker has the app
            assert "Traceback" not in line, line
            booted += "Booting worker" in line
            if booted == 2:
                break
        assert _get(port, "/healthz") == (200, '{"ok":true}\n')
        status, body = _get(port, "/readyz")
        assert status == 503 and '"database":{"ok":false,"why":"unreachable"}' in body
        assert PASSWORD not in body
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=120)


def _get(port: int, path: str) -> tuple[int, str]:
    """GET: the status and the body (the master listens before its workers boot,
    so a request waits in the listen queue, never refused)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.usefixtures("patient")
def test_a_heartbeat_that_does_not_say_its_sweep_is_read_by_the_setting(make_web, clock):
    app, parts = make_web()
    heartbeats.beat(parts.database, "scheduler", "host:1", clock() - timedelta(hours=1))
    assert down(ready(app)[1]) == {"scheduler"}
    heartbeats.beat(parts.database, "scheduler", "host:2", clock())
    assert ready(app)[0] == 200


@pytest.mark.slow
def test_pbem_web_starts_with_the_database_away_and_says_why(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": dead_postgres(),
        "PBEM_SECRET_KEY": "web-secret",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "web", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None and server.stderr is not None
        said = server.stderr.readline()
        assert said.startswith("the database cannot be upgraded now: ") and PASSWORD not in said
        assert server.stdout.readline().startswith(f"pbem web on http://127.0.0.1:{port}/")
        # the line is printed before the server listens: the first request may find
        # no listener yet, so it is asked again until the server answers
        alive = _get_when_listening(port, "/healthz")
        assert alive == (200, '{"ok":true}\n')
        status, body = _get(port, "/readyz")
        assert status == 503 and '"database":{"ok":false,"why":"unreachable"}' in body
    finally:
        server.terminate()
        server.wait(timeout=120)


def test_the_health_routes_are_never_rate_limited(tmp_path):
    app, _ = app_on(tmp_path, database_url=dead_postgres())
    client = app.test_client()
    # more than the highest per-client limit (60 a minute)
    assert {client.get("/healthz").status_code for _ in range(70)} == {200}


def _get_when_listening(port: int, path: str) -> tuple[int, str]:
    for _ in range(1200):
        try:
            return _get(port, path)
        except urllib.error.URLError as error:
            if not isinstance(error.reason, ConnectionRefusedError):
                raise
            threading.Event().wait(0.1)
    raise AssertionError("the server never listened")
