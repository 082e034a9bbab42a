"""`pbem worker --metrics-port` and `pbem scheduler --metrics-port`: each process
serves its own counts, the worker its Celery tasks and deliveries by outcome, the
scheduler the duration of its sweeps, on the disk broker and SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.store import migrate
from worker.app import DELIVER

from support import free_port


def _scrape(port: int) -> dict[tuple[str, frozenset], float] | None:
    """The process's metrics, or None while it does not listen yet."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
            text = answer.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return None
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _eventually(port: int, name: str, labels: dict, process: subprocess.Popen) -> float:
    """The sample's value once the process shows it above 0 (waited for: the other
    process does it, no clock is involved)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "the process ended"
        found = _scrape(port)
        if found and found.get((name, frozenset(labels.items())), 0) > 0:
            return found[name, frozenset(labels.items())]
        time.sleep(0.1)
    raise AssertionError(f"{name}{labels} never showed")


@pytest.fixture
def env(tmp_path):
    values = {
        **os.environ,
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite3'}",
        "PBEM_BROKER_URL": "filesystem://",
        "PBEM_SECRET_KEY": "process-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{free_port()}",
        "PBEM_SWEEP_SECONDS": "1",
    }
    values.pop("PROMETHEUS_MULTIPROC_DIR", None)
    parts = build(load_settings(values))
    migrate.upgrade(parts.database)
    yield values, parts
    parts.database.dispose()


def _start(env: dict, *command: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_a_worker_serves_its_task_and_delivery_counts(env):
    values, parts = env
    port = free_port()
    worker = _start(
        values, "worker", "--concurrency", "1", "--loglevel", "WARNING", "--metrics-port", str(port)
    )
    try:
        assert parts.celery is not None
        parts.celery.send_task(DELIVER, args=[[424242]])  # no such row: skipped
        success = {"task": DELIVER, "outcome": "success"}
        assert _eventually(port, "pbem_celery_tasks_total", success, worker) == 1
        found = _scrape(port)
        assert found is not None
        assert found["pbem_deliveries_total", frozenset({("outcome", "skipped")})] == 1
        assert (
            found["pbem_celery_tasks_total", frozenset({**success, "outcome": "failure"}.items())]
            == 0
        )
    finally:
        _stop(worker)


@pytest.mark.slow
def test_the_scheduler_serves_the_duration_of_its_sweeps(env):
    values, _ = env
    port = free_port()
    scheduler = _start(values, "scheduler", "--metrics-port", str(port))
    try:
        assert _eventually(port, "pbem_sweep_duration_seconds_count", {}, scheduler) >= 1
    finally:
        _stop(scheduler)


def test_a_metrics_port_taken_already_is_refused_with_a_message(env):
    values, _ = env
    port = free_port()
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen(1)
        done = subprocess.run(
            [sys.executable, "-m", "pbem.cli", "scheduler", "--metrics-port", str(port)],
            env=values,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert f"metrics on 127.0.0.1:{port}:" in done.stderr and "Traceback" not in done.stderr
