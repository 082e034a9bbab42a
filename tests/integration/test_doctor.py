"""`pbem doctor` against real parts, on SQLite and PostgreSQL: a running SMTP server
(aiosmtpd), a real Redis (and a port with nothing listening), heartbeats written as
the scheduler and the workers write them, the outbox's rows. Every check passes
only when every part answers; each broken part is its own FAIL line saying what to
do, and the exit status says whether any failed."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner

from pbem.cli import main
from pbem.service import PlayerSpec
from pbem.store import heartbeats
from pbem.store.database import Database

from support import free_port

REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL")


class Accepting:
    async def handle_DATA(self, server, session, envelope) -> str:
        return "250 OK"


@pytest.fixture
def smtp():
    controller = Controller(Accepting(), hostname="127.0.0.1", port=free_port())
    controller.start()
    yield f"smtp://127.0.0.1:{controller.port}"
    controller.stop()


@pytest.fixture
def env(tmp_path, database_url, smtp):
    broker = REDIS_URL or "filesystem://"
    if not REDIS_URL and os.environ.get("CI"):
        pytest.fail("CI must run the Redis tests: set PBEM_TEST_REDIS_URL")
    return {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        "PBEM_SECRET_KEY": "a-long-random-secret-key-for-the-doctor-0123456789",
        "PBEM_BROKER_URL": broker,
        "PBEM_SMTP_URL": smtp,
        "PBEM_DEV": "0",
        "PBEM_IMAP_HOST": "",
    }


def _alive(database_url: str, now: datetime, **worker_state: str) -> None:
    """The heartbeats of a scheduler and a worker that run (as they write them)."""
    database = Database(database_url)
    heartbeats.beat(database, "scheduler", "host:1", now, sweep_seconds=10, leader=True)
    heartbeats.beat(database, "worker:host:2", "host:2", now, **(worker_state or {"broker": "ok"}))
    database.dispose()


def _doctor(env: dict, *args: str):
    return CliRunner().invoke(main, ["doctor", *args], env=env)


def _lines(result) -> dict[str, str]:
    """Each check's line by its name: "ok", "warn" or "FAIL" and the rest."""
    found = {}
    for line in result.output.splitlines()[:-1]:
        mark, _, rest = line.partition("  ")
        name, _, said = rest.strip().partition(": ")
        found[name] = f"{mark.strip()} {said}"
    return found


def test_everything_running_passes(env, database_url):
    _alive(database_url, datetime.now(UTC))
    result = _doctor(env)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "all 9 checks passed"
    assert all(said.startswith("ok ") for said in _lines(result).values()), result.output
    answer = json.loads(_doctor(env, "--json").output)
    assert answer["ok"] is True
    assert [c["name"] for c in answer["checks"]] == [
        "settings",
        "secret key",
        "database",
        "broker",
        "smtp",
        "scheduler",
        "workers",
        "outbox backlog",
        "outbox failures",
    ]


def test_each_part_away_is_a_fail_saying_what_to_do(env, database_url):
    nothing = free_port()
    env |= {
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{nothing}",
        "PBEM_BROKER_URL": f"redis://:hunter2@127.0.0.1:{free_port()}/0",
        "PBEM_IMAP_HOST": "127.0.0.1",
        "PBEM_IMAP_PORT": str(free_port()),
        "PBEM_IMAP_SSL": "0",
        "PBEM_IMAP_USER": "pbem",
        "PBEM_IMAP_PASSWORD": "imap-hunter2",
    }
    result = _doctor(env)
    assert result.exit_code == 1
    found = _lines(result)
    assert found["smtp"].startswith(f"FAIL 127.0.0.1:{nothing}: ConnectionRefusedError")
    assert "check PBEM_SMTP_URL" in found["smtp"]
    assert found["broker"].startswith("FAIL redis://:***@127.0.0.1:")
    assert "cannot be reached" in found["broker"]
    assert found["imap"].startswith("FAIL pbem@127.0.0.1:")
    assert found["scheduler"] == "FAIL no heartbeat yet — start `pbem scheduler` (exactly one)"
    assert found["workers"].startswith("FAIL no worker has beaten")
    assert found["database"].startswith("ok ")
    assert "hunter2" not in result.output  # no password in what it prints
    answer = json.loads(_doctor(env, "--json").output)
    assert answer["ok"] is False
    assert {c["name"] for c in answer["checks"] if c["status"] == "FAIL"} == {
        "smtp",
        "broker",
        "imap",
        "scheduler",
        "workers",
    }


def test_a_misspelt_broker_and_a_development_key_fail(env):
    env |= {
        "PBEM_BROKER_URL": "reddis://127.0.0.1:6379/0",
        "PBEM_SECRET_KEY": "dev-only-not-secret",
    }
    found = _lines(_doctor(env))
    assert found["broker"].startswith("FAIL reddis://127.0.0.1:6379/0: 'reddis' is not a broker")
    assert found["secret key"] == (
        "FAIL PBEM_SECRET_KEY is the development key — set a long random value"
    )


def test_a_database_behind_its_code_fails_and_stops_the_checks_that_read_it(env, tmp_path):
    env["PBEM_DATABASE_URL"] = f"sqlite:///{tmp_path / 'absent.sqlite3'}"
    result = _doctor(env)
    assert result.exit_code == 1
    found = _lines(result)
    assert found["database"].endswith("no such file — run `pbem db upgrade`")
    assert "scheduler" not in found and "outbox backlog" not in found
    assert not (tmp_path / "absent.sqlite3").exists()  # the doctor made none


def test_stale_beats_fail_and_old_failures_warn_without_failing(env, database_url, make_parts):
    now = datetime.now(UTC)
    _alive(database_url, now - timedelta(minutes=10))  # both stopped beating
    result = _lines(_doctor(env))
    assert result["scheduler"].startswith("FAIL last heartbeat 600 s ago from host:1")
    assert result["workers"].startswith("FAIL none beats (1 stopped beating)")
    _alive(database_url, now, broker="unreachable: cannot be reached: refused")
    parts = make_parts(database_url=database_url)
    people = ("Ann", "Ben", "Cy")  # three invitations (Ann's tells her first turn too)
    parts.service.create_game(
        [PlayerSpec(name, f"{name.lower()}@example.com") for name in people], None, None
    )
    with parts.database.writing() as conn:  # one mail given up on, two due long ago
        from sqlalchemy import text

        conn.execute(text("UPDATE outbox SET status = 'failed' WHERE id = 1"))
        conn.execute(text("UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'"))
    answer = _doctor(env)
    found = _lines(answer)
    assert answer.exit_code == 0, answer.output  # warnings fail nothing
    assert found["workers"] == (
        "warn 1 beating; 1 cannot reach the broker (unreachable: cannot be reached: refused)"
        " — check it"
    )
    assert found["outbox failures"] == "warn 1 mails given up on — see `pbem mail failures`"
    assert found["outbox backlog"].startswith("warn 2 mails due, 2 of them for more than 15")
    assert answer.output.splitlines()[-1] == "0 failed, 3 to look at, 6 ok"


def test_a_schema_behind_the_code_fails_saying_to_upgrade(env, tmp_path):
    from pbem.store import migrate

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    database = Database(url)
    migrate.upgrade(database, "0010")
    database.dispose()
    found = _lines(_doctor({**env, "PBEM_DATABASE_URL": url}))
    assert found["database"].startswith("FAIL sqlite:///")
    assert "the database is at revision 0010, the code needs" in found["database"]
    assert found["database"].endswith(" — run `pbem db upgrade`")
