"""Benchmark of the scheduler's sweep against the number of games: 10,000, 100,000
and 1,000,000 games in play (the mix of bench/seed.py: most idle with deadlines
days away, some reminded, some due, some with a bot to move), then 1,000,000
finished games added to the 100,000 in play, which must cost the sweep nothing.

Each size gets a new database, filled in bulk (bench/seed.py), then `--sweeps`
sweeps (`Sweeper.sweep`, which ends with `Outbox.take_due`) on a clock stopped at
the moment of the seeding: the first sweep queues the reminders that are due and
leases the mails that are due; the later ones find the same timeouts and bot turns
and nothing else new (the steady state of a scheduler that runs every few seconds).
Each sweep's time is split into its parts: the query of the games to look at, the
reminders asked for, the undo requests, the link requests, and take_due.

    python bench/sweep.py [--database postgresql|sqlite|both] [--sizes 10000,100000]
                          [--finished 1000000] [--sweeps 5] [--explain]

PostgreSQL needs PBEM_BENCH_DATABASE_URL (or PBEM_TEST_DATABASE_URL): a server whose
user may create databases; the bench creates pbem_bench_sweep there and drops it
after. SQLite runs in a temporary folder; 1,000,000 games are for PostgreSQL only
unless `--sizes` names them.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.append(_HERE)  # bench/seed.py, as `seed`

import argparse  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from typing import Any  # noqa: E402

from seed import Seeder  # noqa: E402
from sqlalchemy import event, text  # noqa: E402
from stack import postgres_database  # noqa: E402

from pbem.config import load_settings  # noqa: E402
from pbem.service import Service  # noqa: E402
from pbem.service.outbox import Outbox  # noqa: E402
from pbem.service.sweep import Sweeper  # noqa: E402
from pbem.store import migrate  # noqa: E402
from pbem.store.database import Database  # noqa: E402

BENCH_DATABASE = "pbem_bench_sweep"
PARTS = ("clocks", "reminded", "reminders", "undo", "links", "take_due")


@contextmanager
def postgresql(url: str, name: str = BENCH_DATABASE) -> Iterator[str]:
    """A new database on the server of `url`, dropped afterwards."""
    with postgres_database(url, name) as made:
        yield made


@contextmanager
def sqlite() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        yield f"sqlite:///{folder}/sweep.sqlite3"


def _timed(into: dict[str, float], calls: dict[str, int], name: str, function: Callable) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            into[name] += time.perf_counter() - start
            calls[name] += 1

    return timed


def sweeper_of(database: Database, now: datetime) -> tuple[Sweeper, dict, dict]:
    """A sweeper on a clock stopped at `now`, each part of it timed."""
    settings = load_settings({}, database_url=database.url, secret_key="bench-secret")
    service = Service(database, settings, lambda: now)
    outbox = Outbox(database, lambda: now)
    sweeper = Sweeper(service, outbox, lambda: now)
    seconds: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    sweeper._clocks = _timed(seconds, calls, "clocks", sweeper._clocks)  # type: ignore[method-assign]
    if hasattr(sweeper, "_reminded"):  # not in the sweep before it knew what was reminded
        sweeper._reminded = _timed(seconds, calls, "reminded", sweeper._reminded)
    service.remind = _timed(seconds, calls, "reminders", service.remind)  # type: ignore[method-assign]
    sweeper._undo_requests = _timed(seconds, calls, "undo", sweeper._undo_requests)  # type: ignore[method-assign]
    service.answer_link_requests = _timed(seconds, calls, "links", service.answer_link_requests)  # type: ignore[method-assign]
    outbox.take_due = _timed(seconds, calls, "take_due", outbox.take_due)  # type: ignore[method-assign]
    return sweeper, seconds, calls


def measure(database: Database, now: datetime, sweeps: int) -> list[dict[str, Any]]:
    """`sweeps` sweeps: each one's seconds in all and by part, and what it found."""
    sweeper, seconds, calls = sweeper_of(database, now)
    runs = []
    for _ in range(sweeps):
        seconds.clear()
        calls.clear()
        start, processor = time.perf_counter(), time.process_time()
        work = sweeper.sweep()
        total = time.perf_counter() - start
        processor = time.process_time() - processor
        runs.append(
            {
                "seconds": total,
                "cpu": processor,
                **{part: seconds[part] for part in PARTS},
                "reminders asked": calls["reminders"],
                "mails": len(work.mails),
                "time_outs": len(work.time_outs),
                "bots": len(work.bots),
            }
        )
    return runs


def explain(database: Database, now: datetime) -> list[str]:
    """EXPLAIN ANALYZE of each SELECT a sweep sends through Core (PostgreSQL)."""
    seen: list[tuple[str, Any]] = []

    def keep(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(database.engine, "before_cursor_execute", keep)
    try:
        sweeper_of(database, now)[0].sweep()
    finally:
        event.remove(database.engine, "before_cursor_execute", keep)
    plans = []
    raw = database.engine.raw_connection()
    try:
        with raw.cursor() as cursor:  # type: ignore[attr-defined]
            for statement, parameters in {s: p for s, p in seen}.items():
                if "FROM games" not in statement and "FROM outbox" not in statement:
                    continue
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement, parameters)
                plan = "\n".join(f"    {row[0]}" for row in cursor.fetchall())
                plans.append(f"  {' '.join(statement.split())[:300]}\n{plan}")
        raw.rollback()
    finally:
        raw.close()
    return plans


def run_size(url: str, playing: int, finished: int, sweeps: int, show_plans: bool) -> dict:
    database = Database(url)
    migrate.upgrade(database)
    now = datetime.now(UTC).replace(microsecond=0)
    seeder = Seeder(database, now)
    started = time.perf_counter()
    seeder.add("p", playing=playing)
    if finished:
        seeder.add("f", finished=finished)
    if database.dialect == "postgresql":
        with database.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
    else:
        with database.engine.begin() as c:
            c.execute(text("ANALYZE"))
    seeded = time.perf_counter() - started
    runs = measure(database, now, sweeps)
    plans = explain(database, now) if show_plans and database.dialect == "postgresql" else []
    database.dispose()
    return {"seeded": seeded, "rows": dict(seeder.counts), "runs": runs, "plans": plans}


def _ms(value: float) -> str:
    return f"{value * 1000:,.0f}" if value >= 0.01 else f"{value * 1000:.1f}"


def report(name: str, results: list[tuple[str, dict]]) -> None:
    print(f"\n## {name}\n")
    head = "| games | first sweep | steady sweep (median) | its processor here | "
    print(head + " | ".join(PARTS) + " | reminders asked | mails | timeouts | bots |")
    print("|" + "---|" * (len(PARTS) + 8))
    for label, result in results:
        first, rest = result["runs"][0], result["runs"][1:] or result["runs"]
        steady = {k: statistics.median(r[k] for r in rest) for k in ("seconds", "cpu", *PARTS)}
        parts = " | ".join(_ms(steady[p]) for p in PARTS)
        print(
            f"| {label} | {_ms(first['seconds'])} ms | **{_ms(steady['seconds'])} ms** "
            f"| {_ms(steady['cpu'])} ms | {parts} "
            f"| {first['reminders asked']} then {rest[-1]['reminders asked']} "
            f"| {first['mails']} then {rest[-1]['mails']} "
            f"| {first['time_outs']} | {first['bots']} |"
        )
    print(
        "\n(parts: median milliseconds of the steady sweeps; processor: this process's"
        " own, without the database server's)"
    )
    base = results[0][1]
    base_steady = statistics.median(r["seconds"] for r in base["runs"][1:] or base["runs"])
    ratios = []
    for label, result in results:
        steady = statistics.median(r["seconds"] for r in result["runs"][1:] or result["runs"])
        ratios.append(f"{label}: {steady / base_steady:.2f}")
    print("\nsteady sweep against the first row: " + ", ".join(ratios))
    for label, result in results:
        rows = ", ".join(f"{n:,} {t}" for t, n in result["rows"].items())
        print(f"- {label}: seeded in {result['seeded']:.0f} s ({rows})")
        for plan in result["plans"]:
            print(plan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--sizes", default="")
    parser.add_argument("--finished", type=int, default=1_000_000)
    parser.add_argument("--finished-with", type=int, default=100_000)
    parser.add_argument("--sweeps", type=int, default=5)
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--name", default=BENCH_DATABASE, help="the PostgreSQL database's")
    args = parser.parse_args()
    server = os.environ.get("PBEM_BENCH_DATABASE_URL") or os.environ.get("PBEM_TEST_DATABASE_URL")
    kinds = ("sqlite", "postgresql") if args.database == "both" else (args.database,)
    for kind in kinds:
        if kind == "postgresql" and not server:
            raise SystemExit("PostgreSQL needs PBEM_BENCH_DATABASE_URL or PBEM_TEST_DATABASE_URL")
        default = "10000,100000,1000000" if kind == "postgresql" else "10000,100000"
        sizes = [int(s) for s in (args.sizes or default).split(",") if s]
        cases = [(f"{n:,} in play", n, 0) for n in sizes]
        if args.finished:
            label = f"{args.finished_with:,} in play + {args.finished:,} finished"
            cases.append((label, args.finished_with, args.finished))
        results = []
        for label, playing, finished in cases:
            place = postgresql(server, args.name) if kind == "postgresql" else sqlite()  # type: ignore[arg-type]
            with place as url:
                results.append((label, run_size(url, playing, finished, args.sweeps, args.explain)))
            print(f"{kind}: {label} done", file=sys.stderr, flush=True)
        report(kind, results)


if __name__ == "__main__":
    main()
