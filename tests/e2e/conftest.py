"""The whole web app served on localhost, a real SMTP catcher, the outbox delivered
as the worker will, and Debian's Chromium driven by Playwright. Screenshots go to
artifacts/e2e/. Without Chromium the tests skip, saying why (under CI they fail)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from email import policy
from email.parser import BytesParser
from pathlib import Path

import databases
import pytest
import requests
from werkzeug.serving import make_server

from pbem.bootstrap import build
from pbem.config import PROJECT, load_settings
from pbem.mail import catcher
from pbem.mail.compose import Composer
from pbem.mail.deliver import EmailChannel, Smtp
from pbem.service.delivery import deliver_due
from pbem.web.app import create_app

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = PROJECT / "artifacts" / "e2e"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Site:
    """The running app: its address, its parts, and the mail it has sent."""

    def __init__(self, url: str, parts, mail: Path) -> None:
        self.url = url
        self.parts = parts
        self.mail = mail

    def ann_and_ben(self, setup: dict | None = None) -> dict:
        """A public game of Ann and Ben created through the API with the admin key
        (the only way to give a `setup`, and an answer that holds the seat tokens)."""
        body = {
            "players": [
                {"name": "Ann", "email": "ann@example.com"},
                {"name": "Ben", "email": "ben@example.com"},
            ],
            "options": {"public": True},
        }
        if setup is not None:
            body["setup"] = setup
        answer = requests.post(
            f"{self.url}/api/games",
            json=body,
            headers={"Authorization": "Bearer e2e-admin"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        created: dict = answer.json()
        return created

    def mails(self) -> list:
        parser = BytesParser(policy=policy.default)
        return [parser.parsebytes(m.as_bytes()) for m in catcher.received(self.mail)]

    def wait_for_mails(self, count: int, timeout: float = 15.0) -> list:
        waited = 0.0
        while len(self.mails()) < count and waited < timeout:
            threading.Event().wait(0.1)
            waited += 0.1
        found = self.mails()
        assert len(found) >= count, f"{len(found)} mails arrived, {count} expected"
        return found


@pytest.fixture
def site(tmp_path, request, sqlite_template):
    instance = tmp_path / "instance"
    smtp_port, web_port = _free_port(), _free_port()
    url = f"http://127.0.0.1:{web_port}"
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(instance)},
        # a new migrated database: a copy of the migrated template
        database_url=databases.copy_sqlite(sqlite_template, tmp_path / "e2e.sqlite3"),
        secret_key="e2e-secret",
        admin_key="e2e-admin",
        base_url=url,
        smtp_url=f"smtp://127.0.0.1:{smtp_port}",
        dev=True,
        # Pages poll for moves only in the tests of that (a bot's answer would
        # otherwise reload a page between two clicks of a test).
        live_poll_seconds=3 if request.node.get_closest_marker("live_pages") else 0,
        push_loopback_http=True,  # a test's push service listens on the loopback
    )
    parts = build(settings)
    smtp = catcher.start(instance / "mail", port=smtp_port)
    server = make_server("127.0.0.1", web_port, create_app(parts), threaded=True)
    stop = threading.Event()
    composer = Composer(parts.service, settings)

    def deliver() -> None:  # what the worker does, polled: mail, and pushes
        channels = {
            **parts.channels,
            "email": EmailChannel(composer, Smtp.from_url(settings.smtp_url)),
        }
        while not stop.is_set():
            deliver_due(parts.outbox, channels)
            stop.wait(0.1)

    threads = [
        # a short poll: shutdown() at the end waits for the loop's next turn
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True),
        threading.Thread(target=deliver, daemon=True),
    ]
    for thread in threads:
        thread.start()
    yield Site(url, parts, instance / "mail")
    stop.set()
    server.shutdown()
    smtp.stop()
    parts.database.dispose()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() or not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: no Chromium at {CHROMIUM}")
        pytest.skip(f"the browser tests need Debian's chromium at {CHROMIUM} (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def shoot(request):
    """Save a screenshot of a page as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def shoot(page, name: str, element: str | None = None) -> Path:
        """The whole page, or only `element` (a full-page shot resizes the window,
        which moves whatever follows the pointer)."""
        path = ARTIFACTS / f"{request.node.name}-{name}.png"
        if element:
            page.locator(element).screenshot(path=str(path))
        else:
            page.screenshot(path=str(path), full_page=True)
        return path

    return shoot
