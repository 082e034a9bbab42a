"""Benchmark of asking My games for a sign-in link: the median time of `POST
/my-games` for an address that plays here and for a stranger, and their ratio. The
answer must not tell them apart, so the ratio should stay near 1 (the request
queues one row either way; the scheduler decides whether to mail). The requests of
the two kinds alternate, each from its own client address (past the rate limit) and
for an address of its own (so every player's request is one that would mail: none
within the 10 minutes of an earlier one), through the Flask test client on a SQLite
file (synchronous=FULL, WAL).

    python bench/signin.py [--requests 300] [--warmup 20]
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from Flask.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from pbem.bootstrap import build  # noqa: E402
from pbem.config import load_settings  # noqa: E402
from pbem.service import PlayerSpec  # noqa: E402
from pbem.store import migrate  # noqa: E402
from pbem.web.app import create_app  # noqa: E402

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
KINDS = {"player": "player{}@example.com", "stranger": "stranger{}@example.com"}


def site(folder: Path, players: int) -> tuple[Any, Any]:
    """The web app on a new SQLite file, with a game for each player."""
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder / "instance")},
        database_url=f"sqlite:///{folder / 'signin.sqlite3'}",
        secret_key="bench",
        base_url="http://pbem.bench",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    for i in range(players):
        parts.service.create_game(
            [PlayerSpec("Ann", KINDS["player"].format(i)), PlayerSpec("Ben", f"ben{i}@example.com")]
        )
    app = create_app(parts)
    return app, parts


def timings(app: Any, requests: int, warmup: int) -> dict[str, list[float]]:
    """Each kind's times, alternating which goes first."""
    client = app.test_client()
    token = CSRF.search(client.get("/my-games").get_data(as_text=True))[1]
    taken: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for i in range(warmup + requests):
        for kind, email in KINDS.items() if i % 2 else reversed(KINDS.items()):
            here = {"REMOTE_ADDR": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"}
            start = time.perf_counter()
            answer = client.post(
                "/my-games",
                data={"csrf_token": token, "email": email.format(i)},
                environ_base=here,
            )
            spent = time.perf_counter() - start
            if answer.status_code != 200:
                raise SystemExit(f"{kind}: {answer.status_code}")
            if i >= warmup:
                taken[kind].append(spent)
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app, parts = site(Path(folder), args.warmup + args.requests)
        try:
            taken = timings(app, args.requests, args.warmup)
            mails = len(parts.service.answer_link_requests())
        finally:
            parts.database.dispose()
    medians = {kind: statistics.median(times) * 1000 for kind, times in taken.items()}
    for kind, median in medians.items():
        print(f"{kind:>8}: median {median:.2f} ms over {len(taken[kind])} requests")
    print(f"   ratio: {medians['player'] / medians['stranger']:.3f} (player / stranger)")
    print(f"   mails: {mails} (the scheduler's answer: one to each player, none to strangers)")


if __name__ == "__main__":
    main()
