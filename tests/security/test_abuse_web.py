"""Hostile use of the web pages: fuzzed form values on every form (no 5xx, no
traceback, no state change on a refusal), the security headers on every route,
seat sessions a copied cookie cannot outlive, no secret in the request log, and
per-client rate limits that hold across processes and behind a proxy."""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zlib
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import PlayerSpec
from pbem.store import migrate
from pbem.web.app import create_app

import support
from abuse import examples
from processes import gunicorn_command
from support import SHORT

REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL")
ROOT = Path(__file__).resolve().parents[2]


def csrf(client, url: str = "/new") -> str:
    return support.csrf(client, url)


def new_game(parts, public=True):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": public},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def entered(app, game_id, token):
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{token}").status_code == 302
    return client


def cookie_payload(client) -> str:
    """The session cookie's content, decoded (it is signed, not encrypted)."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    value = cookie.value
    compressed = value.startswith(".")
    data = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return (zlib.decompress(raw) if compressed else raw).decode()


# --- Security headers on every page and answer ---------------------------------------


def test_every_route_carries_the_security_headers(web):
    app, parts = web
    game_id, tokens = new_game(parts)
    client = entered(app, game_id, tokens[1])
    routes = [
        ("get", "/"),
        ("get", "/new"),
        ("get", "/my-games"),
        ("get", f"/g/{game_id}"),
        ("get", f"/g/{game_id}/watch"),
        ("get", f"/g/{game_id}/history"),
        ("get", f"/g/{game_id}/{tokens[2]}"),
        ("get", "/no/such/page"),
        ("get", f"/api/games/{game_id}"),
        ("get", f"/api/games/{game_id}/legal"),
        ("get", "/api/openapi.json"),
        ("get", "/api/nothing"),
        ("post", "/api/games"),
        ("get", "/static/site.css"),
        ("get", "/dev/mail"),
        ("post", "/inbound/email"),
    ]
    for method, url in routes:
        answer = getattr(client, method)(url)
        headers = answer.headers
        policy = headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in policy, url
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("style")[0]
        assert headers.get("X-Frame-Options") == "DENY", url
        assert headers.get("X-Content-Type-Options") == "nosniff", url
        assert headers.get("Referrer-Policy") == "no-referrer", url
        assert "Strict-Transport-Security" not in headers, url  # served over http here


def test_https_sites_send_hsts(tmp_path):
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path)},
        database_url=f"sqlite:///{tmp_path / 'h.sqlite3'}",
        secret_key="s",
        base_url="https://mall.example",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    answer = create_app(parts).test_client().get("/")
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=")


# --- Seat sessions ---------------------------------------------------------------------


def test_the_cookie_holds_no_seat_token(web):
    app, parts = web
    game_id, tokens = new_game(parts)
    client = entered(app, game_id, tokens[1])
    assert tokens[1] not in cookie_payload(client)
    assert "Your turn" in client.get(f"/g/{game_id}").get_data(as_text=True)


def test_forget_my_seat_kills_every_copy_of_the_cookie(web):
    app, parts = web
    game_id, tokens = new_game(parts)
    mine = entered(app, game_id, tokens[1])
    thief = app.test_client()
    thief.set_cookie("session", mine.get_cookie("session").value)
    assert "Your turn" in thief.get(f"/g/{game_id}").get_data(as_text=True)

    page = mine.post(f"/g/{game_id}/forget", data={"csrf_token": csrf(mine, f"/g/{game_id}")})
    assert page.status_code == 302

    assert "Your turn" not in thief.get(f"/g/{game_id}").get_data(as_text=True)
    before = parts.service.state_at(game_id)["seq"]
    played = thief.post(
        f"/g/{game_id}/play",
        data={"csrf_token": csrf(thief, "/new"), "move": "build L1 at 0,2"},
    )
    assert played.status_code == 403
    assert parts.service.state_at(game_id)["seq"] == before


def test_replacing_a_seat_ends_its_sessions(web):
    app, parts = web
    game_id, tokens = new_game(parts)
    client = entered(app, game_id, tokens[1])
    parts.service.replace_seat(game_id, 1, "human", name="Cat", email="cat@example.com")
    assert "Your turn" not in client.get(f"/g/{game_id}").get_data(as_text=True)
    played = client.post(
        f"/g/{game_id}/play", data={"csrf_token": csrf(client), "move": "build L1 at 0,2"}
    )
    assert played.status_code == 403


# --- Fuzzed forms ----------------------------------------------------------------------

HOSTILE = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "\x00",
            "a\x00b",
            "٠,٢",
            "9" * 5000,
            "-" + "9" * 5000,
            "build L1 at ٠,٢",
            "build L1 at 0,2\x00",
            "{" * 2000,
            '{"type": []}',
            "' OR 1=1 --",
            "<script>alert(1)</script>",
            "\u202e",
            "\ud7ff",
            "1e309",
            "NaN",
            "-1",
            "0",
            "99999999999999999999",
        ]
    ),
)


@pytest.fixture(scope="module")
def fuzz_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder)},
        database_url=f"sqlite:///{folder / 'fuzz.sqlite3'}",
        secret_key="fuzz-secret",
        broker_url="",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    app = create_app(parts)
    app.config["WTF_CSRF_ENABLED"] = False
    app.config["RATELIMIT_ENABLED"] = False
    game_id, tokens = new_game(parts)
    client = entered(app, game_id, tokens[1])
    yield app, parts, game_id, client
    parts.database.dispose()


FORMS = {
    "play": ("move", "action", "expected_seq", "key"),
    "vacation": ("days",),
    "mail": ("mail",),
    "undo": ("confirm",),
    "undo/answer": ("agree",),
}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(form=st.sampled_from(sorted(FORMS)), values=st.lists(HOSTILE, min_size=4, max_size=4))
def test_hostile_values_in_the_game_forms_are_refused_without_a_server_error(
    fuzz_site, caplog, form, values
):
    _, parts, game_id, client = fuzz_site
    before = parts.service.state_at(game_id)["seq"]
    data = dict(zip(FORMS[form], values, strict=False))
    with caplog.at_level(logging.INFO):
        answer = client.post(f"/g/{game_id}/{form}", data=data)
    assert answer.status_code < 500, (form, data)
    assert "Traceback" not in answer.get_data(as_text=True)
    assert "Traceback" not in caplog.text and "unexpected error" not in caplog.text
    if answer.status_code >= 400 and form == "play":
        assert parts.service.state_at(game_id)["seq"] == before


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(values=st.lists(HOSTILE, min_size=12, max_size=12))
@example(values=["?", "", "#", *[""] * 9])  # once read by the test itself as a query
def test_hostile_values_in_the_new_game_and_my_games_forms_never_fail(fuzz_site, values):
    client = fuzz_site[3]
    fields = ["kind1", "name1", "email1", "kind2", "name2", "email2"]
    fields += ["hours_per_turn", "reminders", "timeout_policy", "replace_after"]
    fields += ["vacation_days", "public"]
    answer = client.post("/new", data=dict(zip(fields, values, strict=True)))
    assert answer.status_code < 500
    mine = client.post("/my-games", data={"email": values[2]})
    assert mine.status_code < 500
    # the value as a browser sends it in a path (a "?" or "#" in it is not the query's)
    game = urllib.parse.quote(values[0][:20], safe="")
    history = client.get(f"/g/{game}/history", query_string={"at": values[1]})
    assert history.status_code < 500


@pytest.mark.parametrize("value", ["ann\x00@example.com", "a@b\x00", "a" * 300 + "@x.org"])
def test_a_nul_in_the_my_games_address_is_refused_on_every_database(database_url, tmp_path, value):
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path)},
        database_url=database_url,
        secret_key="s",
        broker_url="",
    )
    parts = build(settings)
    app = create_app(parts)
    app.config["WTF_CSRF_ENABLED"] = False
    answer = app.test_client().post("/my-games", data={"email": value})
    assert answer.status_code == 400
    parts.database.dispose()


# --- No secret in the request log ------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is the answer, not followed


def _status_of(url: str) -> int:
    try:
        return urllib.request.build_opener(_Stay).open(url).status
    except urllib.error.HTTPError as answer:
        return answer.code


def test_pbem_web_logs_no_token_and_prints_no_password(tmp_path):
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'log.sqlite3'}",
        "PBEM_SECRET_KEY": "log-secret",
        "PBEM_BROKER_URL": "",
        "FLASK_DEBUG": "1",  # asks for the debugger: outside dev mode it must stay off
    }
    env.pop("PBEM_DEV", None)
    settings = load_settings(env)
    parts = build(settings)
    migrate.upgrade(parts.database)
    game_id, tokens = new_game(parts, public=False)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "web", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a loaded machine starts it slowly
        while True:  # until it answers, or it ended
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/static/site.css")
                break
            except OSError:
                assert server.poll() is None, "pbem web ended before it answered"
                assert time.monotonic() < deadline, "pbem web did not answer"
                time.sleep(0.1)
        assert _status_of(f"http://127.0.0.1:{port}/g/{game_id}/{tokens[1]}") == 302
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/games/{game_id}",
            headers={"Authorization": f"Bearer {tokens[2]}"},
        )
        assert json.load(urllib.request.urlopen(request))["id"] == game_id
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=10)
    assert f"GET /g/{game_id}/[hidden]" in output
    assert tokens[1] not in output and tokens[2] not in output
    assert "Debugger is active" not in output and "debug mode: on" not in output.lower()


def test_gunicorn_with_the_shipped_config_logs_no_token(tmp_path):
    env = {
        **os.environ,
        "PBEM_INSTANCE_DIR": str(tmp_path),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'g.sqlite3'}",
        "PBEM_SECRET_KEY": "gunicorn-secret",
        "PBEM_BROKER_URL": "",
    }
    parts = build(load_settings(env))
    migrate.upgrade(parts.database)
    game_id, tokens = new_game(parts, public=False)
    port = _free_port()
    server = subprocess.Popen(
        gunicorn_command(
            "-b",
            f"127.0.0.1:{port}",
            "--access-logformat",
            '%(h)s "%(r)s" %(U)s %({authorization}i)s %(f)s',
        ),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/static/site.css")
                break
            except OSError:
                time.sleep(0.1)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/games/{game_id}",
            headers={
                "Authorization": f"Bearer {tokens[2]}",
                "Referer": f"http://x/g/{game_id}/{tokens[1]}",
            },
        )
        assert urllib.request.urlopen(request).status == 200
        assert _status_of(f"http://127.0.0.1:{port}/g/{game_id}/{tokens[1]}") == 302
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=20)
    assert f"GET /g/{game_id}/[hidden]" in output
    assert tokens[1] not in output and tokens[2] not in output


def test_each_gunicorn_keeps_its_control_socket_in_its_own_instance_folder(tmp_path):
    """gunicorn's default control socket is one path per user: a second server would
    take it over from the first (and remove it when it stops)."""
    home = tmp_path / "home"
    servers = {}
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        port = _free_port()
        env = {
            **os.environ,
            "HOME": str(home),
            "PBEM_INSTANCE_DIR": str(folder),
            "PBEM_DATABASE_URL": f"sqlite:///{folder / 'g.sqlite3'}",
            "PBEM_SECRET_KEY": "gunicorn-secret",
            "PBEM_BROKER_URL": "",
        }
        env.pop("XDG_RUNTIME_DIR", None)
        command = [sys.executable, "-m", "gunicorn", "-c"]
        command += [str(ROOT / "config" / "gunicorn.conf.py"), "-b", f"127.0.0.1:{port}"]
        servers[name] = subprocess.Popen(
            [*command, "pbem.web.app:create_app()"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(150):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/static/site.css")
                break
            except OSError:
                time.sleep(0.1)
    try:
        for _ in range(50):  # the control server starts in a thread of its own
            if all((tmp_path / name / "gunicorn.ctl").is_socket() for name in servers):
                break
            time.sleep(0.1)
        for name in servers:
            with socket.socket(socket.AF_UNIX) as control:
                control.connect(str(tmp_path / name / "gunicorn.ctl"))
        assert not (home / ".gunicorn").exists()
        servers["a"].terminate()
        servers["a"].wait(timeout=20)
        assert (tmp_path / "b" / "gunicorn.ctl").is_socket()  # b's own is left alone
    finally:
        for server in servers.values():
            server.terminate()
            server.wait(timeout=20)


def test_pbem_web_never_prints_the_database_password():
    url = "postgresql+psycopg://pbem:s3cret-pass@db.example/pbem"
    settings = load_settings({}, database_url=url, secret_key="s")
    assert "s3cret-pass" not in settings.shown_database_url()
    assert "db.example/pbem" in settings.shown_database_url()


def test_the_gunicorn_access_log_hides_tokens_and_authorization(tmp_path, web):
    """(The app of `web` has taught the redaction its routes, as the app gunicorn
    serves does in each worker.)"""
    from gunicorn.config import Config

    from pbem.web.redact import GunicornLogger

    config = Config()
    config.set("accesslog", str(tmp_path / "access.log"))
    config.set("access_log_format", '%(h)s "%(r)s" %(U)s %({authorization}i)s %({cookie}i)s %(f)s')
    logger = GunicornLogger(config)

    answer = SimpleNamespace(status="302 FOUND", headers=[], sent=0)
    asked = SimpleNamespace(
        headers=[("AUTHORIZATION", "Bearer admin-key-1"), ("COOKIE", "session=abc.def")]
    )

    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/g/abcdefabcdefabcd/TOKEN-123_x",
        "PATH_INFO": "/g/abcdefabcdefabcd/TOKEN-123_x",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "203.0.113.4",
        "HTTP_REFERER": "http://x/g/abcdefabcdefabcd/TOKEN-456",
    }
    logger.access(answer, asked, environ, timedelta(seconds=1))
    for handler in logger.access_log.handlers:
        handler.flush()
    line = (tmp_path / "access.log").read_text()
    assert "GET /g/abcdefabcdefabcd/[hidden]" in line
    for secret in ("TOKEN-123_x", "TOKEN-456", "admin-key-1", "abc.def"):
        assert secret not in line


# --- Rate limits across processes and behind a proxy ----------------------------------


def _site(tmp_path, name, **overrides):
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path / name)},
        database_url=f"sqlite:///{tmp_path / 'limits.sqlite3'}",
        secret_key="limits-secret",
        broker_url="",
        **overrides,
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    app = create_app(parts)
    app.config["WTF_CSRF_ENABLED"] = False
    return app


PLAYERS = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "email": "ben@example.com"}]


@pytest.fixture
def redis_limits():
    if not REDIS_URL:
        if os.environ.get("CI"):
            pytest.fail("CI must run the Redis tests: set PBEM_TEST_REDIS_URL")
        pytest.skip("the shared rate limit tests need PBEM_TEST_REDIS_URL")
    import redis

    from pbem.web.limits import key_prefix

    prefix = key_prefix(load_settings({}, secret_key="limits-secret"))
    connection = redis.Redis.from_url(REDIS_URL)

    def flush():
        for key in connection.scan_iter(f"{prefix}*"):
            connection.delete(key)

    flush()
    yield REDIS_URL
    flush()


def test_the_creation_limit_holds_across_two_web_processes(tmp_path, redis_limits):
    one = _site(tmp_path, "one", rate_limit_storage=redis_limits).test_client()
    two = _site(tmp_path, "two", rate_limit_storage=redis_limits).test_client()
    statuses = [
        (one if i % 2 else two).post("/api/games", json={"players": PLAYERS}).status_code
        for i in range(12)
    ]
    assert statuses == [201] * 10 + [429] * 2
    refused = two.post("/api/games", json={"players": PLAYERS})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert set(refused.get_json()) == {"error", "detail"}
    page = one.post("/new", data={"kind1": "greedy", "kind2": "random"})
    assert page.status_code == 429 and "Retry-After" in page.headers
    assert "That did not work" in page.get_data(as_text=True)


def test_my_games_limit_holds_across_two_web_processes(tmp_path, redis_limits):
    one = _site(tmp_path, "one", rate_limit_storage=redis_limits).test_client()
    two = _site(tmp_path, "two", rate_limit_storage=redis_limits).test_client()
    statuses = [
        (one if i % 2 else two).post("/my-games", data={"email": f"p{i}@example.com"}).status_code
        for i in range(7)
    ]
    assert statuses == [200] * 5 + [429] * 2


def test_without_a_proxy_a_forged_forwarded_for_does_not_escape_the_limit(tmp_path):
    client = _site(tmp_path, "direct").test_client()
    statuses = [
        client.post(
            "/my-games",
            data={"email": f"p{i}@example.com"},
            headers={"X-Forwarded-For": f"198.51.100.{i}"},
        ).status_code
        for i in range(7)
    ]
    assert statuses == [200] * 5 + [429] * 2


def test_behind_a_trusted_proxy_the_limit_keys_on_the_real_client(tmp_path):
    client = _site(tmp_path, "proxied", trusted_proxies=1).test_client()
    proxy = {"REMOTE_ADDR": "10.0.0.1"}

    def ask(forwarded: str, i: int) -> int:
        return client.post(
            "/my-games",
            data={"email": f"p{i}@example.com"},
            headers={"X-Forwarded-For": forwarded},
            environ_base=proxy,
        ).status_code

    assert [ask("203.0.113.7", i) for i in range(6)] == [200] * 5 + [429]
    # another client behind the same proxy is not slowed down by the first
    assert ask("203.0.113.8", 99) == 200
    # a client cannot pass itself off as another by prepending to the header
    assert ask("203.0.113.9, 203.0.113.7", 100) == 429


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_whatever_the_api_takes_for_the_admin_key_the_limit_exempts_too(tmp_path, scheme):
    """One reading of `Authorization: Bearer` for the admin's powers and its exemption
    from the creation limit: a scheme the API accepts is never limited as a stranger."""
    client = _site(tmp_path, "admin", admin_key="the-admin-key").test_client()
    headers = {"Authorization": f"{scheme} the-admin-key"}
    bots = [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}]  # no one mailed
    answers = [
        client.post("/api/games", json={"players": bots}, headers=headers) for _ in range(12)
    ]
    assert [a.status_code for a in answers] == [201] * 12
    assert all("seats" in a.get_json() for a in answers)  # taken for the admin every time
