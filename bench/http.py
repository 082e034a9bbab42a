"""Benchmark of the move path over HTTP: client threads, each playing its own game
through `POST /api/games/ID/actions` on gunicorn (config/gunicorn.conf.py, gthread
workers), against the same client on a bare Flask route served by the same gunicorn
settings. The bare route reads the JSON body and does one durable commit (a one-row
INSERT + COMMIT on the same database, SQLite synchronous=FULL or PostgreSQL): the
least a server must do to keep a move, so the ratio is what the rest of pbem costs.
The same route without the commit is measured too, for information: the ceiling of
gunicorn, Flask and the client threads themselves on this machine.

    python bench/http.py [--clients 8] [--games 2] [--workers 2] [--threads 4]
                         [--database sqlite|postgresql|both]

PostgreSQL needs PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL): a server whose
user may create databases; the bench creates pbem_bench there and drops it after.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where its name would
# hide the standard library's `http` package from everything imported below.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from sqlalchemy.engine import make_url  # noqa: E402

ROOT = Path(_HERE).parent
CONFIG = ROOT / "config" / "gunicorn.conf.py"
ADMIN_KEY = "bench-admin-key"
BENCH_DATABASE = "pbem_bench"
KINDS = ("pbem", "bare", "nothing")  # pbem, the bare route with one commit, without


# -- the two servers ---------------------------------------------------------------


def bare_app(url: str, commit: bool = True) -> Any:
    """A Flask app whose only route reads the move's JSON and keeps it with one
    durable commit, on a connection of its own per thread (or, without `commit`,
    answers at once: the floor of gunicorn, Flask and the client alone)."""
    import sqlite3

    from flask import Flask, request

    app = Flask("bare")
    local = threading.local()
    writers = threading.Lock()
    sqlite = url.startswith("sqlite")

    def connection() -> Any:
        if getattr(local, "connection", None) is None:
            if sqlite:
                local.connection = sqlite3.connect(
                    make_url(url).database, isolation_level=None, timeout=30
                )
                local.connection.execute("PRAGMA journal_mode=WAL")
                local.connection.execute("PRAGMA synchronous=FULL")
            else:
                import psycopg

                local.connection = psycopg.connect(_libpq(url))
        return local.connection

    @app.post("/api/games/<game_id>/actions")
    def submit(game_id: str) -> tuple:
        body = request.get_json()
        if not commit:
            return {"seq": body.get("expected_seq", 0) + 1}, 201
        conn = connection()
        if sqlite:
            with writers:  # this process's writers take turns (as pbem's do)
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(
                    "INSERT INTO moves (game, body) VALUES (?, ?)", (game_id, json.dumps(body))
                )
                conn.execute("COMMIT")
        else:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO moves (game, body) VALUES (%s, %s)", (game_id, json.dumps(body))
                )
        return {"seq": body.get("expected_seq", 0) + 1}, 201

    return app


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def serve(kind: str, url: str, port: int, workers: int, threads: int) -> None:
    """Run gunicorn in this process: config/gunicorn.conf.py, then the bench's
    bind, workers and threads, the same for both apps."""
    from gunicorn.app.base import Application

    class Server(Application):
        def load_config(self) -> None:
            self.load_config_from_file(str(CONFIG))
            for name, value in {
                "bind": f"127.0.0.1:{port}",
                "workers": workers,
                "threads": threads,
                "worker_class": "gthread",
            }.items():
                self.cfg.set(name, value)

        def load(self) -> Any:
            if kind != "pbem":
                return bare_app(url, commit=kind == "bare")
            from pbem.web.app import create_app

            return create_app()

    Server().run()


def start_server(
    kind: str, url: str, folder: Path, workers: int, threads: int
) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_INSTANCE_DIR": str(folder),
        "PBEM_SECRET_KEY": "bench-secret",
        "PBEM_ADMIN_KEY": ADMIN_KEY,
        "PBEM_BROKER_URL": "filesystem://",
    }
    command = [sys.executable, __file__, "--serve", kind, "--url", url, "--port", str(port)]
    command += ["--workers", str(workers), "--threads", str(threads)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, cwd=folder)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"the {kind} server exited with {server.returncode}") from None
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"the {kind} server did not start within a minute")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the databases -----------------------------------------------------------------


def prepare(url: str) -> None:
    """The pbem schema (for pbem) and the bare route's one table."""
    from pbem.store import migrate
    from pbem.store.database import Database

    database = Database(url)
    migrate.upgrade(database)
    with database.engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE moves (id INTEGER PRIMARY KEY, game TEXT, body TEXT)"
            if database.dialect == "sqlite"
            else "CREATE TABLE moves (id SERIAL PRIMARY KEY, game TEXT, body TEXT)"
        )
    database.dispose()


def postgres_database(server_url: str) -> str:
    """A fresh database for the bench on the server of `server_url`."""
    import psycopg

    with psycopg.connect(_libpq(server_url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    url = make_url(server_url).set(drivername="postgresql+psycopg", database=BENCH_DATABASE)
    return url.render_as_string(hide_password=False)


def drop_postgres_database(server_url: str) -> None:
    import psycopg

    with psycopg.connect(_libpq(server_url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")


# -- the client --------------------------------------------------------------------


class Client:
    """One keep-alive connection, JSON in and out."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def post(self, path: str, body: dict, token: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.connection.request("POST", path, json.dumps(body), headers)
        answer = self.connection.getresponse()
        return answer.status, json.loads(answer.read())


def recorded_moves(count: int) -> list[tuple[str, list[tuple[int, str]]]]:
    """Greedy two-player games: (seed, [(seat, move in notation)])."""
    from pbem.games import get
    from pbem.games.mall.simulation import play

    rules = get("mall")
    games = [play(f"http-bench/{i}", ["greedy", "greedy"]) for i in range(count)]
    return [(g.seed, [(seat, rules.format(a)) for seat, a in g.actions]) for g in games]


Plan = list[tuple[str, dict[int, str], list[tuple[int, str]]]]  # (game id, tokens, moves)


def create_games(port: int, games: list[tuple[str, list[tuple[int, str]]]]) -> Plan:
    client, plan = Client(port), []
    players = [{"name": "A"}, {"name": "B"}]
    for seed, moves in games:
        status, answer = client.post(
            "/api/games", {"players": players, "setup": {"seed": seed}}, ADMIN_KEY
        )
        if status != 201:
            raise SystemExit(f"creating a game answered {status}: {answer}")
        tokens = {s["seat"]: s["token"] for s in answer["seats"]}
        plan.append((answer["id"], tokens, moves))
    return plan


def play_all(port: int, plans: list[Plan]) -> tuple[int, float]:
    """Each client thread plays its games, move by move; (moves, seconds)."""
    ready = threading.Barrier(len(plans) + 1)
    counts = [0] * len(plans)
    failures: list[str] = []

    def run(index: int) -> None:
        client = Client(port)
        ready.wait()
        for game_id, tokens, moves in plans[index]:
            for seq, (seat, action) in enumerate(moves, start=1):
                body = {"action": action, "expected_seq": seq}
                status, answer = client.post(f"/api/games/{game_id}/actions", body, tokens[seat])
                if status != 201:
                    failures.append(f"{game_id} seq {seq}: {status} {answer}")
                    return
                counts[index] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(plans))]
    for thread in threads:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise SystemExit("a move was refused: " + failures[0])
    return sum(counts), elapsed


def contest(url: str, folder: Path, args: argparse.Namespace, label: str) -> float:
    """Moves per second of pbem and of the bare route on `url`; prints both."""
    games = recorded_moves(args.clients * args.games)
    results: dict[str, tuple[int, float]] = {}
    for kind in KINDS:
        server, port = start_server(kind, url, folder, args.workers, args.threads)
        try:
            if kind == "pbem":
                plan = create_games(port, games)
            else:
                plan = [(f"bare{i}", {1: "t", 2: "t"}, moves) for i, (_, moves) in enumerate(games)]
            per_client = [plan[i :: args.clients] for i in range(args.clients)]
            results[kind] = play_all(port, per_client)
        finally:
            server.terminate()
            server.wait(timeout=30)
    (moves, ours), (_, bare), (_, nothing) = (results[kind] for kind in KINDS)
    print(f"{label}: {moves} moves, {args.clients} client threads, gunicorn", end=" ")
    print(f"-w {args.workers} --threads {args.threads}")
    print(f"    POST /api/games/ID/actions   {moves / ours:8,.0f} per second")
    print(f"    bare route, one commit       {moves / bare:8,.0f} per second")
    print(f"    ratio                        {bare / ours:8.2f}  (aim: at least 0.3)")
    print(f"    bare route, no database      {moves / nothing:8,.0f} per second")
    print(f"    ratio to it                  {nothing / ours:8.2f}  (for information)")
    return bare / ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=2, help="games per client thread")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.url, args.port, args.workers, args.threads)
        return
    runs: list[tuple[str, Callable[[Path], str], Callable[[], None]]] = []
    if args.database in ("sqlite", "both"):
        runs.append(("SQLite", lambda folder: f"sqlite:///{folder}/bench.sqlite3", lambda: None))
    if args.database in ("postgresql", "both"):
        server_url = os.environ.get("PBEM_BENCH_DATABASE_URL") or os.environ.get(
            "PBEM_TEST_DATABASE_URL"
        )
        if not server_url:
            print("PostgreSQL: skipped (set PBEM_BENCH_DATABASE_URL or PBEM_TEST_DATABASE_URL)")
        else:
            runs.append(
                (
                    "PostgreSQL",
                    lambda _folder: postgres_database(server_url),
                    lambda: drop_postgres_database(server_url),
                )
            )
    for label, make_url_in, cleanup in runs:
        with tempfile.TemporaryDirectory(dir=os.environ.get("PBEM_BENCH_DIR")) as name:
            folder = Path(name)
            url = make_url_in(folder)
            try:
                prepare(url)
                contest(url, folder, args, label)
            finally:
                cleanup()


if __name__ == "__main__":
    main()
