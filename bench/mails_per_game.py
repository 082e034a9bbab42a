"""Benchmark of the mails one game sends its people: two people (Ann and Ben) and a
bot play a whole mall game through the service; every notice goes through the real
outbox and composer to a local SMTP server (aiosmtpd). Each person reads the game
page (through the web app, with their own browser session) when they come to move
and again after each of their moves; now and then Ann says a line at the table,
Ben reads it live on his page a minute later and answers, and Ann reads the answer
a minute after that; after the game Ann says "good game". Counted per person: the
mails they got, and of those, how many told them nothing new: what their page had
shown them already (a chat line read, a round they looked at), a second mail of the
same moment (an invitation and a turn mail together), or a mail about a game that
was over (anything but the game-over mail itself).

    python bench/mails_per_game.py [--seed h] [--before-from PATH] [--json]

"Before" is this game without the page's acknowledgement (the page reads, the
server is not told), or, with --before-from PATH, the same bench run on the code
at PATH (e.g. the code of an earlier commit: `git archive COMMIT | tar -x -C PATH`).
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from everything imported below.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from collections import Counter  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from email import policy  # noqa: E402
from email.parser import BytesParser  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import select  # noqa: E402

from pbem.bootstrap import build  # noqa: E402
from pbem.config import load_settings  # noqa: E402
from pbem.mail.compose import Composer  # noqa: E402
from pbem.mail.deliver import Smtp, deliver_due  # noqa: E402
from pbem.service import PlayerSpec, create  # noqa: E402
from pbem.store import migrate  # noqa: E402
from pbem.store.tables import Event, Outbox  # noqa: E402
from pbem.web.app import create_app  # noqa: E402

PEOPLE = {1: "ann@example.com", 2: "ben@example.com"}
TALK_EVERY = 5  # Ann starts a conversation at every 5th of her turns
THINKS = timedelta(minutes=20)  # how long after the turn a person comes to the page


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


class Kept:
    """The SMTP server's mailbox: each mail's recipients and its kind."""

    def __init__(self) -> None:
        self.mails: list[tuple[str, str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        mail = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        for to in envelope.rcpt_tos:
            self.mails.append((to, str(mail["X-Pbem-Kind"])))
        return "250 OK"


class Table:
    """The game, its people's browsers, the outbox and what each person has seen."""

    def __init__(self, folder: Path, seed: str, acknowledge: bool, port: int) -> None:
        self.clock = Clock()
        settings = load_settings(
            {"PBEM_INSTANCE_DIR": str(folder / "instance")},
            database_url=f"sqlite:///{folder / 'bench.sqlite3'}",
            secret_key="bench-secret",
            base_url="http://pbem.test",
        )
        self.parts = build(settings, self.clock)
        migrate.upgrade(self.parts.database)
        self.service = self.parts.service
        if not acknowledge:  # the page reads as before: the server is not told
            for name in ("saw", "saw_page"):
                if hasattr(self.service, name):
                    setattr(self.service, name, lambda *args, **kwargs: None)
        app = create_app(self.parts)
        app.testing = True
        self.composer = Composer(self.service, settings)
        self.smtp = Smtp("127.0.0.1", port)
        # one game id, so that the bot (seeded by it) plays the same game every run
        create.new_game_id = lambda: "benchmailspergame"
        created = self.service.create_game(
            [
                PlayerSpec("Ann", PEOPLE[1]),
                PlayerSpec("Ben", PEOPLE[2]),
                PlayerSpec("Robo", bot="greedy"),
            ],
            None,
            {"seed": seed},
        )
        self.game = created.game_id
        self.tokens = {s.seat: s.token for s in created.seats}
        self.browsers = {seat: app.test_client() for seat in PEOPLE}
        self.seen = dict.fromkeys(PEOPLE, 0)  # the seq each person's page last showed
        self.delivered: set[int] = set()
        self.counted: dict[int, Counter[str]] = {seat: Counter() for seat in PEOPLE}
        self.over_at: int | None = None

    def head(self) -> int:
        return int(self.service.state_at(self.game)["seq"])

    def read(self, seat: int) -> None:
        """The person opens (or reloads) the game page: it shows the game as it is."""
        browser = self.browsers[seat]
        if self.seen[seat] == 0:
            browser.get(f"/g/{self.game}/{self.tokens[seat]}")  # their link, once
        answer = browser.get(f"/g/{self.game}")
        assert answer.status_code == 200, answer.status_code
        self.seen[seat] = self.head()

    def say(self, seat: int, text: str) -> None:
        self.service.say(self.game, self.tokens[seat], text)

    def deliver(self) -> None:
        """A worker sends what is due; each mail that went is counted."""
        deliver_due(self.parts.outbox, self.composer, self.smtp)
        with self.parts.database.read() as session:
            sent = session.execute(
                select(Outbox).where(Outbox.game_id == self.game, Outbox.status == "sent")
            ).scalars()
            new = [row for row in sent if row.id not in self.delivered]
            talk = session.execute(
                select(Event.seq, Event.actor).where(
                    Event.game_id == self.game, Event.type == "TableTalk"
                )
            ).all()
        head = self.head()
        for row in sorted(new, key=lambda r: r.id):
            self.delivered.add(row.id)
            seat = row.seat if row.seat is not None else row.payload.get("seat")
            if seat not in PEOPLE:
                continue
            self.counted[seat]["mails"] += 1
            self.counted[seat][f"kind:{row.kind}"] += 1
            known = self._known(row, seat, talk, head)
            if known:
                self.counted[seat][known] += 1
                self.counted[seat]["known"] += 1

    def _known(self, row: Outbox, seat: int, talk: list[Any], head: int) -> str | None:
        """Why the mail told its reader nothing new (None: it told them something)."""
        if row.kind == "game_over":
            return None
        if self.over_at is not None and row.kind not in ("answer",):
            return "after the end"
        if row.kind == "your_turn" and self._invited_at(seat, row.seq):
            return "same moment"
        if row.kind == "chat":
            others = [s for s, actor in talk if row.seq <= s <= head and actor != f"seat:{seat}"]
            return "seen on the page" if others and max(others) <= self.seen[seat] else None
        if row.kind in ("round_scored", "undo_request", "undo_lapsed", "vacation"):
            return "seen on the page" if row.seq <= self.seen[seat] else None
        return None

    def _invited_at(self, seat: int, seq: int | None) -> bool:
        with self.parts.database.read() as session:
            found = session.execute(
                select(Outbox.id).where(
                    Outbox.game_id == self.game,
                    Outbox.kind == "invitation",
                    Outbox.seat == seat,
                    Outbox.seq == seq,
                )
            ).first()
        return found is not None


def play(seed: str, acknowledge: bool) -> dict[str, Any]:
    """One whole game; what each person was mailed."""
    kept = Kept()
    with socket.socket() as probe:  # a port nothing listens on now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = Controller(kept, hostname="127.0.0.1", port=port)
    server.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            table = Table(Path(folder), seed, acknowledge, port)
            try:
                turns = _play_out(table)
            finally:
                table.parts.database.dispose()
    finally:
        server.stop()
    people = {
        PEOPLE[seat]: {
            "mails": counted["mails"],
            "known": counted["known"],
            "seen on the page": counted["seen on the page"],
            "same moment": counted["same moment"],
            "after the end": counted["after the end"],
            "kinds": {k[5:]: n for k, n in sorted(counted.items()) if k.startswith("kind:")},
        }
        for seat, counted in table.counted.items()
    }
    arrived = Counter(to for to, _kind in kept.mails)
    for address, counted in people.items():
        assert counted["mails"] == arrived[address], (address, counted, arrived)
    return {"turns": turns, "people": people}


def _play_out(table: Table) -> int:
    service, game = table.service, table.game
    table.deliver()  # the invitations (and, before, the first turn mail)
    turns = 0
    ann_turns = 0
    while (state := service.state_at(game))["turn"] is not None:
        seat = state["turn"]
        if seat not in PEOPLE:
            service.play_bots(game)
            table.deliver()
            continue
        table.clock.advance(THINKS)
        table.deliver()
        table.read(seat)
        if seat == 1:
            ann_turns += 1
            if ann_turns % TALK_EVERY == 0:  # a conversation, read live on both pages
                table.say(1, f"How is your mall, Ben? ({ann_turns})")
                table.clock.advance(timedelta(minutes=1))
                table.read(2)
                table.say(2, "Busy! Watch out for my food court.")
                table.clock.advance(timedelta(minutes=1))
                table.read(1)
        action = service.legal(game, seat)[0]
        service.submit_action(game, table.tokens[seat], action, table.head())
        turns += 1
        table.read(seat)  # they look at the page after their move
        table.deliver()
    table.over_at = table.head()
    table.clock.advance(timedelta(minutes=1))
    table.deliver()  # the game-over mails
    table.say(1, "Good game!")
    table.clock.advance(timedelta(minutes=1))
    table.read(2)
    for _ in range(3):  # the chat mail's few minutes, and then some
        table.clock.advance(timedelta(minutes=2))
        table.deliver()
    return turns


def side_by_side(before: dict[str, Any], after: dict[str, Any]) -> str:
    rows = ["mails", "known", "seen on the page", "same moment", "after the end"]
    lines = [f"{'':26}{'before':>8}{'after':>8}"]
    for address in after["people"]:
        lines.append(address)
        for name in rows:
            was, now = before["people"][address][name], after["people"][address][name]
            lines.append(f"  {name:24}{was:>8}{now:>8}")
        kinds = sorted({*before["people"][address]["kinds"], *after["people"][address]["kinds"]})
        for kind in kinds:
            was = before["people"][address]["kinds"].get(kind, 0)
            now = after["people"][address]["kinds"].get(kind, 0)
            lines.append(f"    {kind:22}{was:>8}{now:>8}")
    lines.append(f"turns played by people: {after['turns']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default="h")
    parser.add_argument("--before-from", help="run 'before' on the code at this folder")
    parser.add_argument("--json", action="store_true", help="print this code's figures as JSON")
    parser.add_argument("--no-ack", action="store_true", help="(with --json) without the ack")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(play(args.seed, acknowledge=not args.no_ack)))
        return
    if args.before_from:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.before_from)}
        ran = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--json", "--seed", args.seed],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        before = json.loads(ran.stdout.splitlines()[-1])
    else:
        before = play(args.seed, acknowledge=False)
    after = play(args.seed, acknowledge=True)
    print(side_by_side(before, after))


if __name__ == "__main__":
    main()
