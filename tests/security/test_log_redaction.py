"""No secret in the request logs, and nothing else hidden: every rule of the app's
URL map is requested for real, through werkzeug's request log (the server of `pbem
web` and `pbem dev`) and gunicorn's access log (the shipped config), and each logged
line must show the request as sent with exactly its secret parts as [hidden]. Which
route variables are secret is declared in one place (pbem.web.redact): a new route
with a variable in neither list fails here."""

from __future__ import annotations

import itertools
import logging
import os
import queue
import re
import subprocess
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from werkzeug.exceptions import HTTPException
from werkzeug.routing.exceptions import RoutingException
from werkzeug.serving import make_server

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.store import migrate
from pbem.web import redact
from pbem.web.app import create_app

from abuse import examples
from processes import gunicorn_command
from support import free_port

# What ends an address in a line (ASCII white space, a quote), starts its query or
# fragment, or separates its segments; and "%", whose spellings route elsewhere.
SPLITS = '/?#%" \t\n\r\x0b\x0c'
ROOT = Path(__file__).resolve().parents[2]
SHOWN_VALUES = {
    "game_id": "abcdefghijklmnop",
    "game": "mall",
    "code": "de",
    "number": "7",
    "filename": "site.css",
    "seat": "1",
    "slug": "AbCdEfGhIjKlMnOp",
    "table_id": "AbCdEfGhIjKl",
    "cid": "turn-picture@pbem.test",
}
VARIABLE = re.compile(r"<(?:[^:>]+:)?(\w+)>")
_numbers = itertools.count()


@dataclass(frozen=True)
class Asked:
    """A request and how its line must look in the log."""

    method: str
    sent: str  # the path and query as sent
    logged: str  # the same with its secrets as [hidden]
    secrets: tuple[str, ...]


def _secret_value() -> str:
    return f"Zx9q-{next(_numbers)}_SeCrEt"


def _address(rule: str) -> tuple[str, str, tuple[str, ...]]:
    """A path of the rule (sent), the same with its secrets hidden (logged), and
    the secret values in it."""
    sent, logged, secrets, at = "", "", [], 0
    for found in VARIABLE.finditer(rule):
        static, at = rule[at : found.start()], found.end()
        if found[1] in redact.SHOWN:
            value = shown = SHOWN_VALUES[found[1]]
        else:
            value, shown = _secret_value(), redact.HIDDEN
            secrets.append(value)
        sent, logged = sent + static + value, logged + static + shown
    return sent + rule[at:], logged + rule[at:], tuple(secrets)


def every_rule(app) -> list[Asked]:
    """One request for each method of each rule."""
    asked = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            sent, logged, secrets = _address(rule.rule)
            asked.append(Asked(method, sent, logged, secrets))
    return asked


def every_route(app) -> list[Asked]:
    """One request for each method of each rule, and the query strings and hostile
    spellings that carry a secret (a hostile one's line is not foretold: "")."""
    asked = every_rule(app)
    game = SHOWN_VALUES["game_id"]
    q, n, h = _secret_value(), _secret_value(), _secret_value()
    asked += [
        Asked(
            "GET",
            f"/g/{game}/history?at=3&token={q}&link={h}",
            f"/g/{game}/history?at=3&token=[hidden]&link=[hidden]",
            (q, h),
        ),
        Asked(
            "GET",
            f"/language/de?next=/my-games/sign-in/{n}",
            "/language/de?next=/my-games/sign-in/[hidden]",
            (n,),
        ),
    ]
    token = _secret_value()
    for hostile in (
        f"/g/{game}//{token}",  # the router merges the slashes (a redirect)
        f"/g/{game}/{token}/more",  # no such page
        f"/g/{game}/{token}%2Fmore",
        f"/my-games/sign-in/{token}.",
    ):
        asked.append(Asked("GET", hostile, "", (token,)))
    asked.append(Asked("PUT", f"/g/{game}/{token}", f"/g/{game}/[hidden]", (token,)))  # 405
    return asked


def send(base: str, asked: Asked, referer: bool = False) -> None:
    headers = {"Referer": f"http://elsewhere.example{asked.sent}"} if referer else {}
    data = b"" if asked.method in ("POST", "PUT") else None
    request = urllib.request.Request(base + asked.sent, data, headers, method=asked.method)
    try:
        urllib.request.build_opener(_Stay).open(request, timeout=30).read()
    except urllib.error.HTTPError as answer:
        answer.read()


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is the answer, not followed


def check(log: str, asked: list[Asked], lines: list[str]) -> None:
    """Every request's line as sent with only its secrets hidden; no secret anywhere."""
    for a in asked:
        if a.logged:
            assert any(line in log for line in _expected(a, lines)), (a, log[-3000:])
        for secret in a.secrets:
            assert secret not in log, (a, secret)


def _expected(a: Asked, lines: list[str]) -> list[str]:
    path, _, query = a.logged.partition("?")
    return [line.format(method=a.method, logged=a.logged, path=path, query=query) for line in lines]


def test_every_route_variable_is_declared_secret_or_shown(web):
    app, _ = web  # dev mode: its pages too
    undeclared = [
        (rule.rule, name)
        for rule in app.url_map.iter_rules()
        for name in rule.arguments
        if name not in redact.SECRET | redact.SHOWN
    ]
    assert undeclared == []
    assert not redact.SECRET & redact.SHOWN


def test_werkzeug_request_log_hides_exactly_the_secret_part_of_every_route(web, caplog):
    app, _ = web
    asked = every_route(app)
    server = make_server("127.0.0.1", 0, app)
    thread = threading.Thread(target=server.serve_forever)
    caplog.set_level(logging.INFO, logger="werkzeug")
    thread.start()
    try:
        for a in asked:
            send(f"http://127.0.0.1:{server.port}", a)
    finally:
        server.shutdown()  # returns once the request being served (and logged) is done
        thread.join()
        server.server_close()
    log = "\n".join(r.getMessage() for r in caplog.records if r.name == "werkzeug")
    # a line is coloured unless its answer is a 200
    check(log, asked, ['{method} {logged} HTTP/1.1"', '{method} {logged} HTTP/1.1\x1b[0m"'])


def _gunicorn(tmp_path) -> tuple[dict, object]:
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'g.sqlite3'}",
        "PBEM_SECRET_KEY": "gunicorn-secret",
        "PBEM_BROKER_URL": "",
    }
    env.pop("PBEM_DEV", None)
    parts = build(load_settings(env))
    migrate.upgrade(parts.database)
    return env, create_app(parts)


@pytest.mark.slow
def test_gunicorn_access_log_hides_exactly_the_secret_part_of_every_route(tmp_path):
    env, app = _gunicorn(tmp_path)  # the app gunicorn serves, built alike
    asked = every_route(app)
    port = free_port()
    end = "/static/site.css?the-last-request"
    server = subprocess.Popen(
        gunicorn_command(
            "-b",
            f"127.0.0.1:{port}",
            "--access-logformat",
            '"%(r)s" U=%(U)s Q=%(q)s F=%(f)s',
        ),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in server.stdout])
    reader.start()
    log: list[str] = []
    try:
        _wait_for(lines, log, "Booting worker")
        for a in asked:
            send(f"http://127.0.0.1:{port}", a, referer=True)
        send(f"http://127.0.0.1:{port}", Asked("GET", end, end, ()))
        _wait_for(lines, log, end)  # gunicorn logs each request after answering it
    finally:
        server.terminate()
        server.wait(timeout=30)
        reader.join()
    while not lines.empty():
        log.append(lines.get())
    text = "".join(log)
    check(
        text,
        asked,
        [
            '"{method} {logged} HTTP/1.1" U={path} Q={query} F=http://elsewhere.example{logged}\n',
        ],
    )


def _wait_for(lines: queue.Queue[str], log: list[str], text: str) -> None:
    while True:
        line = lines.get(timeout=60)  # a server that says nothing for a minute is broken
        log.append(line)
        if text in line:
            return


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(value=st.text(st.characters(codec="utf-8", exclude_characters=SPLITS), min_size=6))
def test_no_spelling_of_a_secret_is_logged(web, value):
    """Whatever a secret looks like, wherever a rule takes one, the line hides it
    (percent-encoded spellings are every_route's). A value the app routes to a page
    without secrets ("/g/ID/history") is that page, no secret."""
    app, _ = web
    router = app.url_map.bind("localhost")
    for a in every_rule(app):
        for secret in a.secrets:
            path = a.sent.replace(secret, value)
            try:
                rule, _ = router.match(path, a.method, return_rule=True)
                assume(any(name not in redact.SHOWN for name in rule.arguments))
            except (HTTPException, RoutingException):
                pass  # not routed: still hidden
            line = f'"{a.method} {path} HTTP/1.1" 404 -'
            assume(value not in line.replace(value, redact.HIDDEN))
            assert value not in redact.redact(line), (a, value)


def test_a_log_line_with_no_secret_is_left_alone(web):
    # the app of the fixture has taught the redaction its rules
    line = '127.0.0.1 - - [01/Dec/2026 20:40:39] "GET /rules HTTP/1.1" 200 -'
    assert redact.redact(line) == line
    assert redact.redact("Mozilla/5.0 (X11; Linux x86_64) 01/Dec/2026") == (
        "Mozilla/5.0 (X11; Linux x86_64) 01/Dec/2026"
    )
