"""The composition root: one `build` gives every process its parts. The service is
built with its notifier (no web app needed, none rewires it), the Celery tasks run
on the parts of the app that runs them, and the mail pipe builds no web app."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import PlayerSpec
from pbem.web.app import create_app
from worker.app import DELIVER, PLAY_BOT

SHORT_GAME = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel"],
    "secrets": {"1": "O3", "2": "O5"},
}


@pytest.fixture
def parts(database_url, tmp_path):
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path / "instance")},
        database_url=database_url,
        secret_key="root-secret",
        broker_url="filesystem://",
    )
    parts = build(settings)
    yield parts
    parts.database.dispose()


def _queued(parts) -> list[dict]:
    """The task messages waiting in the disk broker's folder."""
    folder = parts.settings.instance_dir / "broker"
    messages = [json.loads(p.read_bytes()) for p in sorted(folder.glob("*.msg"))]
    return [m["headers"] for m in messages]


def test_the_service_is_built_with_its_notifier(parts):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        SHORT_GAME,
    )
    # No web app was made: the invitations still go to the broker at once.
    queued = _queued(parts)
    assert [h["task"] for h in queued] == [DELIVER]
    assert created.game_id


def test_the_web_app_takes_the_parts_as_they_are(parts):
    notify, celery = parts.service.notify, parts.celery
    app = create_app(parts)
    assert parts.service.notify is notify is not None
    assert parts.celery is celery
    assert "celery" not in app.extensions


def test_without_a_broker_nobody_is_told_and_the_sweep_finds_the_work(database_url, tmp_path):
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path / "instance")},
        database_url=database_url,
        secret_key="root-secret",
        broker_url="",
    )
    parts = build(settings)
    try:
        assert parts.celery is None and parts.service.notify is None
        create_app(parts)
        assert parts.service.notify is None
    finally:
        parts.database.dispose()


def test_a_task_runs_on_the_parts_of_the_celery_app_that_runs_it(parts):
    import worker.tasks  # noqa: F401  (the worker loads them so)

    created = parts.service.create_game(
        [PlayerSpec("Robo", bot="greedy"), PlayerSpec("Ann", "ann@example.com")],
        {"hours_per_turn": None},
        SHORT_GAME,
    )
    seq = parts.service.state_at(created.game_id)["seq"]
    assert parts.service.state_at(created.game_id)["turn"] == 1
    played = parts.celery.tasks[PLAY_BOT].apply(args=[created.game_id, 1, seq])
    assert played.get() == seq + 1
    assert parts.service.state_at(created.game_id)["turn"] == 2


def test_the_mail_pipe_builds_no_web_app(database_url, tmp_path):
    script = (
        "import sys\n"
        "from pbem.cli import main\n"
        "try:\n"
        "    main(['inbound', '--recipient', 'nobody@pbem.test'])\n"
        "except SystemExit as done:\n"
        "    print('exit', done.code)\n"
        "print('web app', 'pbem.web.app' in sys.modules)\n"
    )
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "root-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        "PBEM_BROKER_URL": "filesystem://",
    }
    mail = b"From: ann@example.com\r\nTo: nobody@pbem.test\r\nSubject: hi\r\n\r\nstatus\r\n"
    done = subprocess.run(
        [sys.executable, "-c", script], input=mail, env=env, capture_output=True, timeout=120
    )
    out = done.stdout.decode()
    assert "exit 67" in out, done.stderr.decode()  # not a reply address: bounced
    assert "web app False" in out
