"""Benchmark of a long chat: the wall-clock time of a public game's watch page and of
its live poll (nothing new since the page, and the last three events new) for a game
of 10 lines of talk, one whose two chats fill a page each (400), and one of 10,000
(half the players', half the spectators'), and the ratios: the pages read a page of
lines, never the whole chat, so 10,000 lines cost what a full page costs (against
10 lines, the page also shows and renders 400 lines instead of 10). Through the Flask
app in-process (no server, no network), on SQLite
and, given PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL), on PostgreSQL.

    python bench/talk.py [--lines 10000] [--rounds 30] [--database sqlite|postgresql|both]

PostgreSQL needs a server whose user may create databases; the bench creates
pbem_bench_talk there and drops it after.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from everything imported below.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
# The long chats are stored as the tests store them (tests/integration/talk_work.py).
sys.path.append(os.path.join(os.path.dirname(_HERE), "tests", "integration"))

import argparse  # noqa: E402
import functools  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from talk_work import talk_in_bulk  # noqa: E402

from pbem.bootstrap import build  # noqa: E402
from pbem.config import load_settings  # noqa: E402
from pbem.service import PlayerSpec  # noqa: E402
from pbem.service.chat import SHOWN  # noqa: E402
from pbem.store import migrate  # noqa: E402

BENCH_DATABASE = "pbem_bench_talk"


@contextmanager
def postgresql(url: str) -> Iterator[str]:
    """A new database on the server of `url`, dropped afterwards."""
    base = make_url(url).set(drivername="postgresql+psycopg")
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{BENCH_DATABASE}"'))
    try:
        yield base.set(database=BENCH_DATABASE).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}" WITH (FORCE)'))
        admin.dispose()


def median_ms(ask: Callable[[], Any], rounds: int) -> float:
    """The median wall-clock milliseconds of `ask()` over `rounds` runs (after one
    run that warms the caches)."""
    ask()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        ask()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _get(client: Any, url: str) -> None:
    answer = client.get(url)
    assert answer.status_code == 200, (url, answer.status_code)


def measure(url: str, folder: Path, sizes: tuple[int, ...], rounds: int) -> None:
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder)},
        database_url=url,
        secret_key="bench",
        base_url="http://pbem.test",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    from pbem.web.app import create_app

    app = create_app(parts)
    client = app.test_client()
    games = {}
    for size in sizes:
        created = parts.service.create_game(
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
            {"public": True},
            {"seed": "bench-talk"},
        )
        started = time.perf_counter()
        talk_in_bulk(parts.service, created.game_id, size)
        print(f"  {size:>6} lines stored in {time.perf_counter() - started:.1f} s")
        games[size] = created.game_id
    if parts.database.dialect == "postgresql":
        with parts.database.engine.begin() as connection:
            connection.execute(text("ANALYZE events"))
    figures: dict[str, dict[int, float]] = {"watch page": {}, "live poll": {}, "poll, 3 new": {}}
    for size, game_id in games.items():
        head = parts.service.state_at(game_id)["seq"]
        asked = {
            "watch page": f"/g/{game_id}/watch",
            "live poll": f"/g/{game_id}/live?watch=1&since={head}",
            "poll, 3 new": f"/g/{game_id}/live?watch=1&since={head - 3}",
        }
        for what, url in asked.items():
            figures[what][size] = median_ms(functools.partial(_get, client, url), rounds)
    print("  " + " " * 12 + "".join(f"{size:>9} lines" for size in sizes) + "   ratios")
    for what, by_size in figures.items():
        times = "".join(f"{by_size[size]:>12.1f} ms" for size in sizes)
        ratios = "  ".join(
            f"{sizes[-1]}/{size}: {by_size[sizes[-1]] / by_size[size]:.2f}" for size in sizes[:-1]
        )
        print(f"  {what:<12}{times}   {ratios}")
    parts.database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args()
    sizes = (10, 2 * SHOWN, args.lines)  # a few lines, a page of each chat, a long chat
    if args.database in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as folder:
            print("SQLite (synchronous=FULL, WAL)")
            measure(f"sqlite:///{folder}/talk.sqlite3", Path(folder), sizes, args.rounds)
    server = os.environ.get("PBEM_BENCH_DATABASE_URL") or os.environ.get("PBEM_TEST_DATABASE_URL")
    if args.database in ("postgresql", "both"):
        if not server:
            print("PostgreSQL: skipped (set PBEM_BENCH_DATABASE_URL)")
            return
        with tempfile.TemporaryDirectory() as folder, postgresql(server) as url:
            print("PostgreSQL")
            measure(url, Path(folder), sizes, args.rounds)


if __name__ == "__main__":
    main()
