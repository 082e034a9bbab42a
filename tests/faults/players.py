"""The population the fault suite drives: games created through the JSON API, each
seat played by a scripted client through the API, by reply mail through `pbem
inbound`, by a bot, or by a sleepy person who never moves (the deadline's bot plays
for them). Every move the server acknowledged is recorded with its idempotency key."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from harness import REPLY_TO
from stack import ADMIN_KEY, Stack

from pbem.service.inbox import ledger_key

MALL_DEAL = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}
HOURS_PER_TURN = 2


@dataclass
class Seat:
    seat: int
    kind: str  # api, mail, sleepy or bot
    email: str | None = None
    token: str | None = None


@dataclass
class Game:
    number: int
    rules: str  # mall or nim
    seats: list[Seat]
    options: dict[str, Any]
    id: str = ""


@dataclass
class Ack:
    """A move the server said it took: its game, seat, idempotency key and seq."""

    game: str
    seat: int
    key: str
    seq: int
    action: str
    via: str  # api or mail


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    refused: int = 0  # answered 409 or 422 (stale, illegal): nothing to hold the server to
    retried: int = 0  # sent again after the server went away without an answer
    mails_piped: int = 0
    inbound_exits: dict[int, int] = field(default_factory=dict)
    bounced: list[str] = field(default_factory=list)  # replies refused that should not be
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ack(self, ack: Ack) -> None:
        with self.lock:
            self.acks.append(ack)


def population(rng: random.Random, games: int) -> list[Game]:
    """The games of a run, drawn from the seed: mall and nim, two or three seats,
    every kind of player, both timeout policies."""
    drawn = []
    for number in range(games):
        rules = "mall" if number % 3 == 0 else "nim"
        count = 2 if rules == "mall" else rng.choice((2, 3))
        kinds = [rng.choice(("api", "mail"))]
        others = ("api", "mail", "api", "mail", "sleepy", "bot")
        kinds += [rng.choice(others) for _ in range(count - 1)]
        if number % 4 == 1:
            kinds[-1] = "sleepy"  # always some seats for the deadline's bot
        seats = [
            Seat(n, kind, None if kind == "bot" else f"p{number}s{n}@players.faults.test")
            for n, kind in enumerate(kinds, start=1)
        ]
        policy = rng.choice(("bot_plays", "replace"))
        options: dict[str, Any] = {
            "hours_per_turn": HOURS_PER_TURN,
            "reminders": [1],
            "timeout_policy": policy,
        }
        if policy == "replace":
            options["replace_after"] = rng.choice((1, 2))
        drawn.append(Game(number, rules, seats, options))
    return drawn


def call(base: str, method: str, path: str, token: str | None, body: Any = None) -> tuple[int, Any]:
    """One API request: (status, JSON answer); status 0 when no answer came."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.loads(error.read() or b"null")
        except ValueError:
            return error.code, None
    except (OSError, ValueError):
        return 0, None


def create(stack: Stack, game: Game) -> None:
    players: list[dict[str, Any]] = [
        {"name": f"Bot{s.seat}", "bot": "greedy"}
        if s.kind == "bot"
        else {"name": f"P{s.seat}", "email": s.email}
        for s in game.seats
    ]
    setup = MALL_DEAL if game.rules == "mall" else {"pile": 10 + game.number % 7}
    body = {"game": game.rules, "players": players, "options": game.options, "setup": setup}
    while True:
        status, answer = call(stack.base, "POST", "/api/games", ADMIN_KEY, body)
        if status == 201:
            break
        assert status == 0 or status >= 500, (status, answer)
        time.sleep(0.5)
    game.id = answer["id"]
    tokens = {s["seat"]: s["token"] for s in answer["seats"]}
    for seat in game.seats:
        seat.token = tokens.get(seat.seat)


class Player(threading.Thread):
    """Plays one game's API and mail seats until it ends or `stop` is set."""

    def __init__(self, stack: Stack, game: Game, tally: Tally, seed: int, stop: threading.Event):
        super().__init__(name=f"player-{game.number}", daemon=True)
        self.stack, self.game, self.tally, self.stop = stack, game, tally, stop
        self.rng = random.Random(seed)
        self.mails = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                state = self.state()
                if state is not None and state.get("turn") is None:
                    return  # the game is over
                if state is not None:
                    seat = self.game.seats[state["turn"] - 1]
                    if seat.kind == "api":
                        self.by_api(seat, state["seq"])
                    elif seat.kind == "mail":
                        self.by_mail(seat, state["seq"])
                self.stop.wait(0.3)
        except BaseException as error:  # the test reports it
            self.error = error

    def state(self) -> dict | None:
        status, answer = call(self.stack.base, "GET", f"/api/games/{self.game.id}", ADMIN_KEY)
        return answer if status == 200 else None

    def by_api(self, seat: Seat, seq: int) -> None:
        status, legal = call(self.stack.base, "GET", f"/api/games/{self.game.id}/legal", seat.token)
        if status != 200 or legal["seat"] != seat.seat or not legal["legal"] or legal["seq"] != seq:
            return
        action = self.rng.choice(legal["legal"])
        key = f"fault-{self.game.number}-{seat.seat}-{self.rng.getrandbits(64):016x}"
        body = {"action": action, "expected_seq": seq, "idempotency_key": key}
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:  # the same move until the server answers it
            status, answer = call(
                self.stack.base, "POST", f"/api/games/{self.game.id}/actions", seat.token, body
            )
            if status == 201:
                self.tally.ack(Ack(self.game.id, seat.seat, key, answer["seq"], str(action), "api"))
                return
            if status in (403, 404, 409, 422):
                with self.tally.lock:
                    self.tally.refused += 1
                return
            with self.tally.lock:
                self.tally.retried += 1
            time.sleep(0.5)
        raise AssertionError(f"no answer to a move in game {self.game.id} for 10 minutes")

    def turn_mail(self, seat: Seat, seq: int) -> dict | None:
        """The turn mail the seat got for the position at `seq`, if it came."""
        for mail in reversed(self.stack.smtp.recorder.snapshot()):
            if mail["kind"] != "your_turn" or mail["to"] != seat.email:
                continue
            found = REPLY_TO.search(mail["reply_to"])
            if found and found[1] == self.game.id and int(found[3]) == seq:
                return mail
        return None

    def by_mail(self, seat: Seat, seq: int) -> None:
        mail = self.turn_mail(seat, seq)
        if mail is None:
            return  # not come yet (the SMTP server or a worker is away)
        try:
            legal = self.stack.parts.service.legal(self.game.id, seat.seat)
        except Exception:
            return  # the database is away for a moment
        if not legal:
            return
        action = self.rng.choice(legal)
        self.mails += 1
        message_id = f"<fault-{self.game.id}-{seat.seat}-{self.mails}@players.faults.test>"
        reply = EmailMessage()
        reply["From"] = seat.email
        reply["To"] = mail["reply_to"]
        reply["Subject"] = "Re: " + mail["subject"]
        reply["Message-ID"] = message_id
        reply["In-Reply-To"] = mail["id"]
        reply.set_content(f"{action}\n\nOn Monday, Mall by mail wrote:\n> your turn\n")
        recipient = REPLY_TO.search(mail["reply_to"])
        address = mail["reply_to"][mail["reply_to"].index("play+") :].rstrip(">")
        assert recipient
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:  # a mail server tries again after 75
            code = self.pipe(reply.as_bytes(), address)
            if code != 75:
                break
            time.sleep(0.5)
        if code == 0 and self.accepted(message_id):
            key = "mail:" + hashlib.sha256(ledger_key(message_id).encode()).hexdigest()
            self.tally.ack(Ack(self.game.id, seat.seat, key, -1, str(action), "mail"))
        elif code == 67 and not self.handed_to_a_bot(seat):
            with self.tally.lock:  # a reply of the seat's own person, to its own mail
                self.tally.bounced.append(f"game {self.game.id} seat {seat.seat}: {message_id}")
        elif code not in (0, 67):
            with self.tally.lock:
                self.tally.bounced.append(f"game {self.game.id}: exit {code} for {message_id}")

    def handed_to_a_bot(self, seat: Seat) -> bool:
        """Whether the seat went to a bot (the replace policy): its mails then bounce."""
        sql = "SELECT controller FROM seats WHERE game_id = :g AND seat = :s"
        found = self.stack.query(sql, g=self.game.id, s=seat.seat)
        return bool(found) and found[0].controller.startswith("bot:")

    def pipe(self, raw: bytes, recipient: str) -> int:
        done = subprocess.run(
            [sys.executable, "-m", "pbem.cli", "inbound", "--recipient", recipient],
            input=raw,
            env=self.stack.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=300,
        )
        with self.tally.lock:
            self.tally.mails_piped += 1
            codes = self.tally.inbound_exits
            codes[done.returncode] = codes.get(done.returncode, 0) + 1
        return done.returncode

    def accepted(self, message_id: str) -> bool:
        """The seat's log shows the mail acted on: the ledger says it was accepted."""
        keys = {ledger_key(message_id), ledger_key(message_id.strip("<>"))}
        sql = "SELECT outcome FROM inbound WHERE message_id IN :keys"
        from sqlalchemy import bindparam, text

        query = text(sql).bindparams(bindparam("keys", expanding=True))
        rows = self.stack.read(lambda c: list(c.execute(query, {"keys": list(keys)})))
        return any(row.outcome == "accepted" for row in rows)
