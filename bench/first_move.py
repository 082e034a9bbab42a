"""Clicks, keys and seconds from the site's home page to a new user's first move:
they create a game against a bot, play seat 1 and make their first move, in Debian's
Chromium (Playwright), on a server of their own (SQLite, a local SMTP catcher, the
outbox delivered every 0.1 s as a worker would).

Where the New game form lets its creator play ("I play in this game"), they tick it
and land on their seat. Where it does not, they give their address, wait for the
invitation and open its link: here the dev mail page stands in for their mailbox
(open the mailbox, open the mail, copy the link into the address bar: a click and
three keys, Ctrl+L, Ctrl+V, Enter).

    .venv/bin/python bench/first_move.py                  # the code it imports
    .venv/bin/python bench/first_move.py --compare DIR    # and the code in DIR, side by side

DIR is a checkout of other code (e.g. `git archive main | tar -x -C DIR`): it runs
again with DIR first on the module path. Each flow runs --rounds times; the figures
are the median seconds, and the clicks and keys (the same every round)."""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# bench/http.py would stand for the standard library's http package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
LINK = re.compile(r"https?://\S+/g/[a-z0-9]+/[A-Za-z0-9_-]+")


@dataclass
class Count:
    """What the person did: clicks (a select is two: open it, pick), keys typed."""

    clicks: int = 0
    keys: int = 0
    flow: str = ""

    def click(self, page, selector: str, times: int = 1) -> None:
        page.click(selector)
        self.clicks += times

    def type(self, page, selector: str, text: str) -> None:
        page.click(selector)
        page.keyboard.type(text)
        self.clicks += 1
        self.keys += len(text)

    def choose(self, page, selector: str, value: str) -> None:
        page.select_option(selector, value)
        self.clicks += 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(folder: Path):
    """The whole site on a free port, with its mail caught; (url, stop)."""
    from werkzeug.serving import make_server

    from pbem.bootstrap import build
    from pbem.config import load_settings
    from pbem.mail import catcher
    from pbem.mail.compose import Composer
    from pbem.mail.deliver import Smtp, deliver_due
    from pbem.store import migrate
    from pbem.web.app import create_app

    smtp_port, web_port = _free_port(), _free_port()
    url = f"http://127.0.0.1:{web_port}"
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder / "instance")},
        database_url=f"sqlite:///{folder / 'bench.sqlite3'}",
        secret_key="bench-secret",
        base_url=url,
        smtp_url=f"smtp://127.0.0.1:{smtp_port}",
        dev=True,
        live_poll_seconds=0,
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    smtp = catcher.start(folder / "instance" / "mail", port=smtp_port)
    server = make_server("127.0.0.1", web_port, create_app(parts), threaded=True)
    done = threading.Event()
    composer = Composer(parts.service, settings)

    def deliver() -> None:
        while not done.is_set():
            deliver_due(parts.outbox, composer, Smtp.from_url(settings.smtp_url))
            done.wait(0.1)

    for target in (server.serve_forever, deliver):
        threading.Thread(target=target, daemon=True).start()

    def stop() -> None:
        done.set()
        server.shutdown()
        smtp.stop()
        parts.database.dispose()

    return url, stop


def first_move(browser, url: str) -> tuple[Count, float]:
    """One new user, from the home page to their first move played."""
    count = Count()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/")
    started = time.perf_counter()
    count.click(page, "a.button[href='/new']")
    count.type(page, "#name1", "Ann")
    seated = page.locator("#creator_plays").count() == 1
    if seated:
        count.flow = "ticks 'I play', lands on the seat"
        count.click(page, "#creator_plays")
    else:
        count.flow = "address, invitation mail, its link"
        count.type(page, "#email1", "ann@example.com")
    count.choose(page, "#kind2", "random")
    count.click(page, "form.new-game button[type=submit]")
    if not seated:
        page.wait_for_url("**/new/created/**")
        count.clicks += 1  # to the mailbox
        while True:  # the invitation, as soon as it is in
            page.goto(f"{url}/dev/mail")
            if page.locator("td a").count() >= 1:
                break
            time.sleep(0.05)
        invitation = page.locator("td a").filter(has_text="invite")
        invitation.first.click()
        count.clicks += 1
        link = LINK.search(page.locator("pre.mail-text").inner_text())
        assert link is not None, "no link in the invitation"
        page.goto(link[0])  # copied into the address bar
        count.clicks += 1
        count.keys += 3
    page.wait_for_selector("#turn")
    # a tile of the Dispenser, then a lit cell of their mall, then Play
    count.click(page, '.dispenser svg g.slot[data-slot="L1"]')
    page.locator(".mall-card.yours rect.target.legal").first.click(force=True)
    count.clicks += 1
    count.click(page, "#confirm")
    page.wait_for_selector(".flash, [role=status]")
    assert "You played" in page.locator("body").inner_text(), page.url
    seconds = time.perf_counter() - started
    context.close()
    return count, seconds


def run(rounds: int) -> dict:
    """The median of `rounds` first moves with the code this process imports."""
    from playwright.sync_api import sync_playwright

    import pbem

    times, count = [], Count()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for n in range(rounds):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            url, stop = serve(folder)
            try:
                count, seconds = first_move(browser, url)
            finally:
                stop()
            times.append(seconds)
        browser.close()
    return {
        **asdict(count),
        "seconds": statistics.median(times),
        "all": times,
        "code": str(Path(pbem.__file__).parent.parent),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", metavar="DIR", help="also the code in DIR")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(run(args.rounds)))
        return
    results = []
    for code in ([args.compare] if args.compare else []) + [None]:
        env = dict(os.environ)
        if code:
            env["PYTHONPATH"] = str(Path(code).resolve())
        answer = subprocess.run(
            [sys.executable, __file__, "--json", "--rounds", str(args.rounds)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(answer.stdout.strip().splitlines()[-1]))
    names = ["before", "after"] if args.compare else ["now"]
    width = max(len(r["flow"]) for r in results) + 2
    print(f"{'':22}" + "".join(f"{n:>{width}}" for n in names))
    for label, key in (("flow", "flow"), ("clicks", "clicks"), ("keys", "keys")):
        print(f"{label:22}" + "".join(f"{r[key]!s:>{width}}" for r in results))
    seconds = "".join(f"{r['seconds']:>{width}.2f}" for r in results)
    print(f"{'seconds (median)':22}" + seconds)
    for name, r in zip(names, results, strict=True):
        every = ", ".join(f"{t:.2f}" for t in r["all"])
        print(f"  {name}: {r['code']}: {every} s")


if __name__ == "__main__":
    main()
