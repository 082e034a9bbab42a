"""What watching the server costs: one counter increment (in one process, and in
gunicorn's multiprocess mode, where it writes to a memory-mapped file), a /readyz
answer, and a /metrics scrape with the database's gauges over N games (SQLite).

    python bench/observe.py [--games 300] [--repeat 50]
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from prometheus_client.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

COUNT = """
import time
from pbem import metrics
n = 200_000
start = time.perf_counter()
for _ in range(n):
    metrics.accepted("nim", "seat")
print((time.perf_counter() - start) / n * 1e6)
"""


def increment_us(multiprocess_dir: str | None) -> float:
    env = dict(os.environ)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    if multiprocess_dir:
        env["PROMETHEUS_MULTIPROC_DIR"] = multiprocess_dir
    out = subprocess.run(
        [sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def timed(call, repeat: int) -> tuple[float, float]:
    """Median and worst of `repeat` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        print(f"counter increment, one process:   {increment_us(None):.2f} us")
        print(f"counter increment, multiprocess:  {increment_us(folder):.2f} us")

    from pbem.bootstrap import build
    from pbem.config import load_settings
    from pbem.service import PlayerSpec
    from pbem.store import heartbeats, migrate
    from pbem.web.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(
            {"PBEM_INSTANCE_DIR": folder},
            database_url=f"sqlite:///{Path(folder) / 'bench.sqlite3'}",
            secret_key="bench",
            admin_key="bench-admin",
        )
        parts = build(settings)
        migrate.upgrade(parts.database)
        for n in range(args.games):  # an address gets at most 10 invitations a day
            players = [PlayerSpec("Ann", f"ann{n}@example.com"), PlayerSpec("Ben", f"ben{n}@e.com")]
            parts.service.create_game(players, None, {"pile": 21}, game="nim")
        heartbeats.beat(parts.database, "scheduler", "bench:1", parts.service.clock())
        heartbeats.record_sweep(parts.database, "bench:1", parts.service.clock(), 0.1, {})
        client = create_app(parts).test_client()
        headers = {"Authorization": "Bearer bench-admin"}
        assert client.get("/readyz").status_code == 200
        median, worst = timed(lambda: client.get("/readyz"), args.repeat)
        print(f"/readyz (SQLite, all ready):      {median:.1f} ms median, {worst:.1f} ms worst")
        median, worst = timed(lambda: client.get("/metrics", headers=headers), args.repeat)
        outbox = sum(parts.outbox.counts().values())
        print(
            f"/metrics ({args.games} games, {outbox} outbox rows): "
            f"{median:.1f} ms median, {worst:.1f} ms worst"
        )
        parts.database.dispose()


if __name__ == "__main__":
    main()
