"""Load benchmark of the production shape: gunicorn (config/gunicorn.conf.py, 4
workers), PostgreSQL, Redis, two Celery workers (`pbem worker`), `pbem scheduler` and
a real SMTP server (aiosmtpd, in this process, noting when each mail arrives).

`--games` two-player games (default 1,000) are created through the JSON API and kept
going (a game that ends is replaced by a new one). Each player acts as one playing
by mail: when their turn mail arrives they think (`--think` seconds on average,
exponentially distributed), then open the game's page, ask for the legal moves,
move (`POST /api/games/ID/actions`) and, one time in five, read the log. The
waiting player of `--watching` of the games keeps the page open, which polls
`/g/ID/live` every 3 seconds. A pool of `--clients` threads does the requests.

Measured over `--seconds` after every game was made and `--warmup` seconds more:
moves per second, the latency of each kind of request (the move's p50/p95/p99), the
time from an accepted move to the next player's turn mail arriving at the SMTP
server (matched by Message-ID through the outbox row of the move's seq), mails per
second, the outbox backlog, database connections, and the processor time of each
process group (in cores; the machine has 2, shared). Also, before the workers
start, the Redis memory a queued task takes.

    python bench/load.py [--games 1000] [--think 30] [--watching 0.1] [--seconds 120]
                         [--clients 32] [--web-workers 4] [--threads 1]

PostgreSQL: PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL), a server whose
user may create databases (the bench makes and drops pbem_bench_load); Redis: a
redis-server of its own on a free port.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.append(_HERE)  # bench/stack.py, as `stack`

import argparse  # noqa: E402
import heapq  # noqa: E402
import http.client  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import queue  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import redis  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from stack import Sampler, Stack, free_port, postgres_database, redis_server, smtp_server  # noqa: E402

ADMIN_KEY = "bench-load-admin-key"
POLL_SECONDS = 3.0


@dataclass
class Game:
    id: str
    tokens: dict[int, str]
    cookies: dict[int, str] = field(default_factory=dict)
    etag: str = ""
    waiting: int = 2  # the seat whose page polls
    over: bool = False
    watched: bool = False


class Players:
    """The players of every game, and what they measured."""

    def __init__(self, port: int, args: argparse.Namespace) -> None:
        self.port, self.args = port, args
        self.games: dict[str, Game] = {}
        self.early: list[tuple[str, int]] = []  # turn mails for games not yet known
        self.jobs: list[tuple[float, int, str, Any]] = []
        self.order = itertools.count()
        self.ready = threading.Condition()
        self.due: queue.Queue = queue.Queue()
        self.stopping = False
        self.local = threading.local()
        self.random = random.Random(7)
        self.latency: dict[str, list[tuple[float, float]]] = defaultdict(list)
        self.errors: list[tuple[float, str]] = []  # when, what
        self.accepted: list[tuple[float, str, int]] = []  # when, game, seq
        self.created_all = threading.Event()
        self.made = 0

    # -- jobs --------------------------------------------------------------------

    def at(self, when: float, kind: str, what: Any) -> None:
        with self.ready:
            heapq.heappush(self.jobs, (when, next(self.order), kind, what))
            self.ready.notify()

    def dispatch(self) -> None:
        """One thread hands each job to the client threads when it is due."""
        while True:
            with self.ready:
                while not self.stopping and (not self.jobs or self.jobs[0][0] > time.time()):
                    wait = self.jobs[0][0] - time.time() if self.jobs else 1.0
                    self.ready.wait(max(min(wait, 1.0), 0.001))
                if self.stopping:
                    for _ in range(self.args.clients):
                        self.due.put(None)
                    return
                job = heapq.heappop(self.jobs)
            self.due.put(job[2:])

    def run(self) -> None:
        while (job := self.due.get()) is not None:
            kind, what = job
            try:
                getattr(self, kind)(what)
            except Exception as error:  # a bench keeps going, and counts it
                self.errors.append((time.time(), f"{kind}: {type(error).__name__}: {error}"[:120]))

    def mail(self, kind: str, game_id: str | None, seat: int | None) -> None:
        """The SMTP server's news: a turn mail makes its player think, then move."""
        if kind != "your_turn" or game_id is None or seat is None:
            return
        if game_id not in self.games:
            with self.ready:
                self.early.append((game_id, seat))
            return
        self.at(time.time() + self.random.expovariate(1 / self.args.think), "turn", (game_id, seat))

    # -- requests ----------------------------------------------------------------

    def request(self, what: str, method: str, path: str, body: Any = None, **headers: str) -> Any:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        start = time.time()
        for attempt in (1, 2):
            try:
                conn.request(method, path, data, headers)
                answer = conn.getresponse()
                payload = answer.read()
                break
            except (OSError, http.client.HTTPException):
                conn.close()  # a kept connection the server had closed: once more, anew
                if attempt == 2:
                    raise
        if answer.getheader("Connection", "").lower() == "close":
            conn.close()
        self.latency[what].append((start, time.time() - start))
        if answer.status >= 400:
            self.errors.append((start, f"{what}: {answer.status}"))
        return answer, payload

    def create(self, _: Any) -> None:
        n = next(self.order)  # one address per player: an address gets 10 invitations a day
        players = [{"name": "Ann", "email": f"ann{n}@example.com"}]
        players += [{"name": "Ben", "email": f"ben{n}@example.com"}]
        auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
        answer, body = self.request("create", "POST", "/api/games", {"players": players}, **auth)
        if answer.status != 201:
            self.at(time.time() + 1, "create", None)
            return
        made = json.loads(body)
        game = Game(made["id"], {s["seat"]: s["token"] for s in made["seats"]})
        game.watched = self.random.random() < self.args.watching
        with self.ready:
            self.games[game.id] = game
            early = [m for m in self.early if m[0] == game.id]
            self.early = [m for m in self.early if m[0] != game.id]
            self.made += 1
            if self.made >= self.args.games:
                self.created_all.set()
        for game_id, seat in early:
            self.mail("your_turn", game_id, seat)
        if game.watched:
            self.at(time.time() + POLL_SECONDS, "poll", game.id)

    def _cookie(self, game: Game, seat: int) -> str:
        if seat not in game.cookies:
            answer, _ = self.request("seat link", "GET", f"/g/{game.id}/{game.tokens[seat]}")
            cookie = answer.getheader("Set-Cookie", "")
            game.cookies[seat] = cookie.split(";", 1)[0]
        return game.cookies[seat]

    def turn(self, what: tuple[str, int]) -> None:
        game = self.games[what[0]]
        seat = what[1]
        bearer = {"Authorization": f"Bearer {game.tokens[seat]}"}
        self.request("page", "GET", f"/g/{game.id}", Cookie=self._cookie(game, seat))
        _, body = self.request("legal", "GET", f"/api/games/{game.id}/legal", **bearer)
        legal = json.loads(body)
        if not legal.get("legal"):
            return
        move = {"action": self.random.choice(legal["legal"]), "expected_seq": legal["seq"]}
        move["idempotency_key"] = f"{game.id}-{legal['seq']}"  # a retried POST moves once
        answer, body = self.request("move", "POST", f"/api/games/{game.id}/actions", move, **bearer)
        if answer.status == 201:
            self.accepted.append((time.time(), game.id, json.loads(body)["seq"]))
        game.waiting, game.etag = seat, ""
        if self.random.random() < 0.2:
            self.request("log", "GET", f"/api/games/{game.id}/log", **bearer)
        _, body = self.request("api game", "GET", f"/api/games/{game.id}", **bearer)
        if json.loads(body).get("turn") is None:  # over: a new game takes its place
            game.over = True
            self.at(time.time(), "create", None)

    def poll(self, game_id: str) -> None:
        game = self.games[game_id]
        if game.over:
            return
        headers = {"Cookie": self._cookie(game, game.waiting)}
        if game.etag:
            headers["If-None-Match"] = game.etag
        answer, _ = self.request("live poll", "GET", f"/g/{game.id}/live", **headers)
        game.etag = answer.getheader("ETag", game.etag)
        self.at(time.time() + POLL_SECONDS, "poll", game_id)


def sizes(players: Players, tables: dict[str, Any]) -> None:
    """What the run left in the database, per game made and per move accepted."""
    games, moves = tables["games"][0], len(players.accepted)
    print(f"\n{games:,} games made, {moves:,} moves in all (the warm-up and the drain too):\n")
    print("| table | rows | per game | per move | bytes (with indexes) | bytes per game |")
    print("|---|---|---|---|---|---|")
    for table, (count, size) in tables.items():
        print(
            f"| {table} | {count:,} | {count / games:.1f} | {count / max(moves, 1):.2f}"
            f" | {size:,} | {size / games:,.0f} |"
        )


def redis_per_task(broker: str, settings_env: dict[str, str]) -> tuple[float, float]:
    """Bytes of Redis memory per queued delivery task (20 outbox ids, as the
    scheduler batches them) and per queued bot turn, nobody consuming."""
    os.environ.update(settings_env)
    from pbem.config import load_settings
    from worker.app import DELIVER, PLAY_BOT, celery_app

    celery = celery_app(load_settings())
    client = redis.Redis.from_url(broker)
    found = []
    for name, args in (
        (DELIVER, [list(range(1_000_000, 1_000_020))]),
        (PLAY_BOT, ["g" * 16, 2, 40]),
    ):
        client.flushdb()
        before = client.info("memory")["used_memory"]
        for _ in range(5000):
            celery.send_task(name, args=args)
        found.append((client.info("memory")["used_memory"] - before) / 5000)
    client.flushdb()
    return found[0], found[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--think", type=float, default=30.0)
    parser.add_argument("--watching", type=float, default=0.1)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    server = os.environ.get("PBEM_BENCH_DATABASE_URL") or os.environ.get("PBEM_TEST_DATABASE_URL")
    if not server:
        raise SystemExit("PostgreSQL needs PBEM_BENCH_DATABASE_URL or PBEM_TEST_DATABASE_URL")
    from report import report  # bench/report.py

    with (
        tempfile.TemporaryDirectory() as folder,
        postgres_database(server, "pbem_bench_load") as url,
        redis_server(Path(folder)) as (broker, redis_pid),
        smtp_server() as (recorder, smtp_port),
    ):
        from pbem.store import migrate
        from pbem.store.database import Database

        database = Database(url)
        migrate.upgrade(database)
        database.dispose()
        port = free_port()
        env = {
            **os.environ,
            "PBEM_DATABASE_URL": url,
            "PBEM_BROKER_URL": broker,
            "PBEM_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
            "PBEM_SECRET_KEY": "bench-load-secret",
            "PBEM_ADMIN_KEY": ADMIN_KEY,
            "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
        }
        per_task = redis_per_task(broker, env)
        stack = Stack(env, Path(folder))
        probe = create_engine(url, pool_size=1)
        name = url.rsplit("/", 1)[1]

        def scalar(sql: str) -> Any:
            with probe.connect() as conn:
                return conn.execute(text(sql), {"d": name}).scalar()

        def postgres_pids() -> list[int]:
            with probe.connect() as conn:
                found = conn.execute(
                    text("SELECT pid FROM pg_stat_activity WHERE datname = :d"), {"d": name}
                )
                return [int(p) for p in found.scalars()]

        try:
            stack.web(port, args.web_workers, args.threads)
            stack.workers(args.workers, args.concurrency)
            stack.scheduler()
            groups: dict[str, Any] = {
                name: process.pid for name, process in stack.processes.items()
            }
            groups.update(redis=redis_pid, postgres=postgres_pids, bench=os.getpid())
            probes = {
                "backlog": lambda: scalar(
                    "SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')"
                ),
                "connections": lambda: scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = :d"
                ),
            }
            sampler = Sampler(groups, probes)
            players = Players(port, args)
            recorder.listeners.append(players.mail)
            threads = [
                threading.Thread(target=players.run, daemon=True) for _ in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            threading.Thread(target=players.dispatch, daemon=True).start()
            sampler.start()
            began = time.time()
            for _ in range(args.games):
                players.at(time.time(), "create", None)
            players.created_all.wait()
            created = time.time()
            print(f"{args.games} games made in {created - began:.1f} s", file=sys.stderr)
            time.sleep(args.warmup)
            start = time.time()
            time.sleep(args.seconds)
            end = time.time()
            players.stopping = True
            with players.ready:
                players.ready.notify_all()
            deadline = time.time() + 30  # the mails of the last moves
            while time.time() < deadline and scalar(
                "SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')"
            ):
                time.sleep(0.5)
            sampler.stop()
            with probe.connect() as conn:
                rows = conn.execute(
                    text(
                        "SELECT game_id, seq, delivery_id, status FROM outbox"
                        " WHERE kind = 'your_turn'"
                    )
                ).all()
                tables = {
                    table: conn.execute(
                        text(f"SELECT count(*), pg_total_relation_size('{table}') FROM {table}")
                    ).one()
                    for table in ("games", "seats", "events", "snapshots", "outbox")
                    + ("seat_sessions",)
                }
        finally:
            stack.stop()
            probe.dispose()
        report(args, players, recorder, sampler, rows, per_task, (began, created, start, end))
        sizes(players, tables)


if __name__ == "__main__":
    main()
