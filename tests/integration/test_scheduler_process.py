"""`pbem scheduler` for real, on SQLite and PostgreSQL: its stderr is JSON lines with
one INFO line per sweep; it records each sweep and beats; of two, only one sweeps
(the leader lock), and when the leader is killed the other takes over once the
lease runs out; a broker URL it cannot use stops it at once with one line."""

from __future__ import annotations

import signal
import socket

import pytest

from pbem.store import heartbeats
from pbem.store.database import Database
from worker.scheduler import LEASE, LEASE_SECONDS_LEAST

from processes import Child, environment, eventually
from support import free_port

HOST = socket.gethostname()


@pytest.fixture
def db(database_url):
    database = Database(database_url)
    yield database
    database.dispose()


def _holders(db: Database) -> set[str]:
    return {sweep.holder for sweep in heartbeats.sweeps(db, limit=500)}


def test_the_scheduler_logs_json_records_its_sweeps_and_beats(tmp_path, database_url, db):
    env = environment(tmp_path, database_url)
    child = Child(["scheduler"], env, tmp_path, "scheduler")
    try:
        eventually(lambda: heartbeats.sweep_count(db) >= 2, "two sweeps", child=child)
        beat = heartbeats.last_beat(db, "scheduler")
        assert beat is not None and beat.holder == f"{HOST}:{child.pid}"
        assert dict(beat.state) == {"sweep_seconds": 1, "leader": True}
        assert heartbeats.last_beat(db, LEASE).holder == f"{HOST}:{child.pid}"
    finally:
        assert child.stop() == 0  # a clean stop
    sweep = heartbeats.sweeps(db, limit=1)[0]
    assert sweep.error is None and sweep.holder == f"{HOST}:{child.pid}"
    assert set(sweep.counts) == {
        "mails",
        "time_outs",
        "bots",
        "reminders",
        "failed_games",
        "link_requests",
    }
    assert heartbeats.last_beat(db, LEASE) is None  # given up at the clean stop
    lines = child.json_lines()  # every stderr line is JSON
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    sweeps = [line for line in lines if line["message"].startswith("sweep: ")]
    assert len(sweeps) >= 2 and all(line["level"] == "INFO" for line in sweeps)
    assert "0 mails, 0 time_outs, 0 bots, 0 reminders, 0 failed games" in sweeps[0]["message"]
    assert {line.get("process") for line in lines} == {"scheduler"}


@pytest.mark.slow  # the second scheduler waits out the dead leader's lease (10 s)
def test_of_two_schedulers_one_sweeps_and_the_other_takes_over_when_it_dies(
    tmp_path, database_url, db
):
    env = environment(tmp_path, database_url)
    first = Child(["scheduler"], env, tmp_path, "first")
    eventually(lambda: heartbeats.sweep_count(db) >= 1, "the first sweep", child=first)
    second = Child(["scheduler"], env, tmp_path, "second")
    try:
        eventually(lambda: "another scheduler leads" in second.stderr(), "the wait", child=second)
        seen = heartbeats.sweep_count(db)
        eventually(lambda: heartbeats.sweep_count(db) >= seen + 3, "three more sweeps")
        assert _holders(db) == {f"{HOST}:{first.pid}"}  # the second never swept
        waiting = [
            line["message"]
            for line in second.json_lines()
            if "another scheduler" in line["message"]
        ]
        assert waiting == [f"another scheduler leads ({HOST}:{first.pid}); waiting"]  # once
        first.stop(signal.SIGKILL)  # no clean stop: its lease must run out
        eventually(
            lambda: f"{HOST}:{second.pid}" in _holders(db),
            "the second to take over",
            timeout=LEASE_SECONDS_LEAST + 90,
            child=second,
        )
        eventually(  # the heartbeat is written right after the sweep's record
            lambda: heartbeats.last_beat(db, "scheduler").holder == f"{HOST}:{second.pid}",
            "the second's heartbeat",
            child=second,
        )
        assert any("leads now" in line["message"] for line in second.json_lines())
    finally:
        first.kill()
        second.kill()


@pytest.mark.parametrize("command", ["scheduler", "worker"])
@pytest.mark.parametrize(
    ("broker", "said"),
    [
        ("reddis://127.0.0.1:6379/0", "'reddis' is not a broker this server speaks"),
        ("redis://127.0.0.1:{port}/0", "cannot be reached"),
    ],
)
def test_a_broker_it_cannot_use_is_one_line_and_exit_1(tmp_path, command, broker, said):
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    env = environment(tmp_path, url, PBEM_BROKER_URL=broker.format(port=free_port()))
    database = Database(url)
    from pbem.store import migrate

    migrate.upgrade(database)
    database.dispose()
    child = Child([command], env, tmp_path, command)
    assert child.process.wait(timeout=120) == 1
    lines = child.stderr().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: the broker ") and said in lines[0]
    assert "Traceback" not in child.stderr()
