"""Benchmark of the operator's upkeep: `pbem db backup`, `pbem db restore` into an
empty database, and `pbem game verify --all`, on a database of N mall games of M
moves each (each game's turn mails in the outbox). Prints the database's size, each
command's wall-clock seconds and verify's games per second. On SQLite and, given
PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL), on PostgreSQL.

    python bench/keep.py [--games 1000] [--moves 10] [--database sqlite|postgresql|both]

PostgreSQL needs a server whose user may create databases; the bench creates
pbem_bench_keep and pbem_bench_keep_restored there and drops them after.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from everything imported below.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

from click.testing import CliRunner  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from pbem.bootstrap import build  # noqa: E402
from pbem.cli import main as pbem  # noqa: E402
from pbem.config import load_settings  # noqa: E402
from pbem.service import PlayerSpec  # noqa: E402
from pbem.store import migrate  # noqa: E402

NAMES = ("pbem_bench_keep", "pbem_bench_keep_restored")


@contextmanager
def postgresql(url: str) -> Iterator[tuple[str, str]]:
    """Two new databases on the server of `url`, dropped afterwards."""
    base = make_url(url).set(drivername="postgresql+psycopg")
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        for name in NAMES:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        source, target = (
            base.set(database=name).render_as_string(hide_password=False) for name in NAMES
        )
        yield source, target
    finally:
        with admin.connect() as connection:
            for name in NAMES:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def fill(url: str, folder: Path, games: int, moves: int) -> None:
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder)}, database_url=url, secret_key="bench"
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    service = parts.service
    started = time.perf_counter()
    for n in range(games):
        created = service.create_game(
            [PlayerSpec("Ann", f"ann{n}@example.com"), PlayerSpec("Ben", f"ben{n}@example.com")],
            None,
            {"seed": f"bench keep {n}"},
        )
        tokens = {s.seat: s.token for s in created.seats}
        for _ in range(moves):
            state = service.state_at(created.game_id)
            if state["turn"] is None:
                break
            action = service.legal(created.game_id, state["turn"])[0]
            service.submit_action(created.game_id, tokens[state["turn"]], action, state["seq"])
    print(f"  {games} games of {moves} moves stored in {time.perf_counter() - started:.0f} s")
    parts.database.dispose()


def run(url: str, folder: Path, *args: str) -> float:
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "bench", "PBEM_INSTANCE_DIR": str(folder)}
    started = time.perf_counter()
    result = CliRunner().invoke(pbem, list(args), env=env)
    seconds = time.perf_counter() - started
    if result.exit_code != 0:
        sys.exit(f"pbem {' '.join(args)} failed: {result.output}{result.stderr}")
    return seconds


def measure(source: str, target: str, folder: Path, games: int, moves: int) -> None:
    fill(source, folder, games, moves)
    backup = folder / "bench.backup"
    seconds = run(source, folder, "db", "backup", str(backup))
    print(f"  backup:      {seconds:6.2f} s   ({backup.stat().st_size / 1e6:.1f} MB file)")
    seconds = run(target, folder, "db", "restore", str(backup))
    print(f"  restore:     {seconds:6.2f} s   (into an empty database)")
    seconds = run(target, folder, "game", "verify", "--all")
    print(f"  verify --all:{seconds:6.2f} s   ({games / seconds:.0f} games a second)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args()
    if args.database in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            print("SQLite (synchronous=FULL, WAL)")
            source = f"sqlite:///{folder / 'source.sqlite3'}"
            target = f"sqlite:///{folder / 'restored.sqlite3'}"
            measure(source, target, folder, args.games, args.moves)
    if args.database in ("postgresql", "both"):
        url = os.environ.get("PBEM_BENCH_DATABASE_URL") or os.environ.get("PBEM_TEST_DATABASE_URL")
        if not url:
            sys.exit("PostgreSQL: set PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL)")
        with tempfile.TemporaryDirectory() as name, postgresql(url) as (source, target):
            print("PostgreSQL")
            measure(source, target, Path(name), args.games, args.moves)


if __name__ == "__main__":
    main()
