"""The web app's logs: every request has an id (a sane X-Request-ID sent, else a new
one), said in the answer and carried by every line logged while it is served; and
gunicorn with the shipped config in JSON mode writes its error and access lines as
JSON, with no seat token in any line."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from flask import Blueprint

from pbem import logs
from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import PlayerSpec
from pbem.store import migrate

from processes import eventually, gunicorn_command
from support import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("abc-123_x.y", True),
        ("x" * 64, True),
        ("x" * 65, False),  # too long
        ("bad id", False),
        ("a/b", False),
        ("", False),
    ],
)
def test_a_sane_request_id_is_kept_and_any_other_replaced(web, sent, kept):
    app, _ = web
    answer = app.test_client().get("/rules/mall", headers={"X-Request-ID": sent} if sent else {})
    said = answer.headers["X-Request-ID"]
    if kept:
        assert said == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", said)


def test_a_line_logged_while_a_request_is_served_carries_its_id_and_game(make_parts):
    from pbem.web.app import create_app

    parts = make_parts()
    app = create_app(parts)
    bp = Blueprint("loud", __name__)

    @bp.get("/loud/<game_id>")
    def loud(game_id: str) -> str:
        app.logger.warning("looked at %s", game_id)
        return "said"

    app.register_blueprint(bp)
    stream = io.StringIO()
    handler = logs.handler("json", stream)
    app.logger.addHandler(handler)
    try:
        app.test_client().get("/loud/abcdefghijklmnop", headers={"X-Request-ID": "req-7"})
    finally:
        app.logger.removeHandler(handler)
    (line,) = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert line["request_id"] == "req-7" and line["game_id"] == "abcdefghijklmnop"
    assert line["message"] == "looked at abcdefghijklmnop" and line["level"] == "WARNING"
    assert logs.current() == {}  # nothing left over for the next request


@pytest.mark.slow  # a gunicorn server
def test_gunicorn_in_json_mode_writes_json_lines_without_a_seat_token(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'g.sqlite3'}",
        "PBEM_SECRET_KEY": "gunicorn-json-secret-of-a-fair-length-0123456",
        "PBEM_BROKER_URL": "",
        "PBEM_LOG_FORMAT": "json",
    }
    parts = build(load_settings(env))
    migrate.upgrade(parts.database)
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")], None, None
    )
    parts.database.dispose()
    token = created.seats[0].token
    port = free_port()
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        server = subprocess.Popen(
            gunicorn_command(
                "-b",
                f"127.0.0.1:{port}",
            ),
            env=env,
            cwd=tmp_path,
            stdout=stdout,
            stderr=stderr,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        eventually(lambda: "Booting worker" in err.read_text(), "gunicorn to start", timeout=120)
        seat = f"{base}/g/{created.game_id}/{token}"
        asked = urllib.request.Request(seat, headers={"X-Request-ID": "seat-page-1"})
        try:  # the seat link opens the seat and sends the browser on: not followed
            urllib.request.build_opener(_Stay).open(asked, timeout=60)
        except urllib.error.HTTPError as answer:
            assert answer.code in (302, 303) and answer.headers["X-Request-ID"] == "seat-page-1"
        else:
            raise AssertionError("the seat link sends the browser on")
        eventually(lambda: "seat-page-1" in out.read_text(), "the access line")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    written = out.read_text() + err.read_text()
    assert token not in written
    access = [json.loads(line) for line in out.read_text().splitlines()]
    errors = [json.loads(line) for line in err.read_text().splitlines()]
    for line in access + errors:
        assert {"time", "level", "logger", "message"} <= set(line), line
    (seen,) = [line for line in access if line.get("request_id") == "seat-page-1"]
    assert seen["logger"] == "gunicorn.access"
    assert f"GET /g/{created.game_id}/[hidden] HTTP/1.1" in seen["message"]
    assert any(line["logger"] == "gunicorn.error" for line in errors)
    assert any("Booting worker" in line["message"] for line in errors)


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is the answer, not followed


def test_the_logs_own_patterns_hide_the_secret_of_every_route_and_nothing_else(web):
    # A worker or the scheduler has no routes to read: the patterns of pbem.logs must
    # know every secret address of the app by themselves.
    from pbem.web import redact

    app, _ = web
    secret = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi"  # 32 URL-safe characters
    shown = {"game_id": "abcdefghijklmnop", "game": "mall", "code": "de", "number": 3}
    shown["filename"] = "site.css"
    shown["seat"] = 1
    shown["slug"] = "AbCdEfGhIjKlMnOp"
    shown["table_id"] = "AbCdEfGhIjKl"
    shown["cid"] = "turn-picture@pbem.test"
    secrets = 0
    for rule in app.url_map.iter_rules():
        values = {n: secret if n in redact.SECRET else shown[n] for n in rule.arguments}
        path = rule.build(values, append_unknown=False)[1]  # type: ignore[index]
        logged = logs.redact(f"GET {path} 200", added=False)
        if set(rule.arguments) & redact.SECRET:
            assert secret not in logged, rule.rule
            secrets += 1
        else:
            assert logged == f"GET {path} 200", rule.rule
    assert secrets >= 6  # seat links, sign-in and sign-out links, feeds, a new game's key
