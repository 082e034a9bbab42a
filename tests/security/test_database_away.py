"""With the database away, every route of the web app answers 503 with Retry-After
(JSON under the API, the error page elsewhere) and logs one line, never a 500 with
a traceback; routes that need no database answer as they always do."""

from __future__ import annotations

import logging

import pytest
from test_log_redaction import every_rule

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.web.app import create_app

from support import free_port

# What answers without the database: the shipped files, the rules, forms before they
# are sent, the language switch, and addresses that name nothing.
NO_DATABASE = ("/static/", "/games/", "/rules", "/language/", "/feeds/", "/api/openapi.json")
NO_DATABASE += ("/push-sw.js",)  # the push service worker, a file
# The health routes answer for themselves: /healthz 200, /metrics without the
# database's gauges, /readyz its own 503 naming the database.
HEALTH = ("/healthz", "/readyz", "/metrics")
# a mailed link's page is a button: it reads nothing until pressed
NO_DATABASE_PAGES = {"/new", "/my-games", "/my-games/live", "/admin/sign-in"} | {
    f"/my-games/{what}/Zx9q-{n}_SeCrEt"
    for what in ("sign-in", "sign-out-everywhere")
    for n in range(9)
}
NO_DATABASE_PAGES.add("/open/join/Zx9q-6_SeCrEt")


@pytest.fixture
def app_without_database(tmp_path):
    url = f"postgresql://pbem:secret-pw@127.0.0.1:{free_port()}/pbem"  # nothing listens
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path)},
        database_url=url,
        secret_key="away-secret",
        admin_key="admin-key",
        inbound_secret="hook-secret",
    )
    parts = build(settings)
    app = create_app(parts)
    app.testing = False  # as in production: errors answered, not raised
    yield app
    parts.database.dispose()


def test_every_route_answers_503_with_retry_after_and_logs_one_line(app_without_database, caplog):
    app = app_without_database
    client = app.test_client()
    headers = {"Authorization": "Bearer admin-key"}
    away, seen = [], []
    for asked in every_rule(app):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            answer = client.open(asked.sent, method=asked.method, headers=headers)
        seen.append((answer.status_code, asked.method, asked.sent))
        assert answer.status_code != 500, (asked.method, asked.sent, answer.get_data(as_text=True))
        if answer.status_code == 503 and not asked.sent.startswith(HEALTH):
            away.append(asked.sent)
            assert answer.headers["Retry-After"] == "30"
            if asked.sent.startswith("/api/"):
                assert "database" in answer.get_json()["error"]
            errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(errors) == 1, [r.getMessage() for r in errors]
            assert errors[0].exc_info is None  # one line, not a traceback
            assert "secret-pw" not in errors[0].getMessage()
    # every page and answer that reads the database says it is away; the others (a
    # form refused before it is read, a page that needs nothing stored) answer as ever
    reads = {
        path
        for status, method, path in seen
        if method == "GET"
        and not path.startswith((*NO_DATABASE, *HEALTH))
        and path not in NO_DATABASE_PAGES
    }
    assert reads <= set(away), reads - set(away)
    assert len(away) >= 12


def test_a_move_through_the_api_answers_503(app_without_database, caplog):
    client = app_without_database.test_client()
    answer = client.post(
        "/api/games/abcdefghijklmnop/actions",
        json={"action": "money L", "expected_seq": 1},
        headers={"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz012345"},
    )
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "30"


def test_a_page_says_so_in_the_readers_language(app_without_database):
    client = app_without_database.test_client()
    page = client.get("/g/abcdefghijklmnop/watch", headers={"Accept-Language": "de"})
    assert page.status_code == 503
    assert "erreicht seine Datenbank gerade nicht" in page.get_data(as_text=True)
