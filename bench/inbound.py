"""Benchmark of `pbem inbound`, the process a mail server starts for each mail: its
start-up with nothing to do (an empty mail and a mail to a forged reply address, both
bounced) and the time to play a real move by mail (the answer queued and handed to
the disk broker), each the whole process as the mail server sees it, wall clock and
processor time. With --before PYTHON the same runs are made, interleaved, with
another installation's interpreter (e.g. an older checkout's virtual environment),
and the figures are printed side by side. Last, the same moves through a running
`pbem lmtp` listener (one LMTP connection a mail), which starts nothing per mail.

    python -P bench/inbound.py [--runs N] [--before PYTHON]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import smtplib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.mail import replyto
from pbem.service import PlayerSpec
from pbem.store import migrate

# A short explicit deal: the first seat's "money L" is legal in every game.
SHORT = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}
EXPECTED = {"empty": 67, "forged": 67, "move": 0}


def _mail(address: str, message_id: str, line: str, sender: str = "ann@example.com") -> bytes:
    return (
        f"From: Ann <{sender}>\r\nTo: {address}\r\nSubject: Re: Your turn\r\n"
        f"Message-ID: <{message_id}@example.com>\r\nDate: Mon, 30 Nov 2026 09:15:02 +0000\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{line}\r\n"
    ).encode()


def _run(python: str, mail: bytes, env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """One `pbem inbound` process: (wall seconds, processor seconds, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "pbem.cli", "inbound"],
        input=mail,
        env=env,
        cwd=cwd,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Processes of each kind.")
    parser.add_argument(
        "--before", help="Another installation's python to compare with (runs interleaved)."
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-inbound-bench-"))
    try:
        _bench(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _bench(args: argparse.Namespace, folder: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PBEM_DATABASE_URL": f"sqlite:///{folder / 'inbound.sqlite3'}",
        "PBEM_BROKER_URL": "filesystem://",
        "PBEM_SECRET_KEY": "bench",
        "PBEM_INSTANCE_DIR": str(folder / "instance"),
    }
    settings = load_settings(env)
    parts = build(load_settings({**env, "PBEM_BROKER_URL": ""}))
    migrate.upgrade(parts.database)
    pythons = {"after": sys.executable}
    if args.before:
        pythons = {"before": args.before, **pythons}
    key = settings.signing_key()
    forged = "play+" + "a" * 16 + ".1.1." + "b" * 24 + "@" + settings.mail_domain
    moves: dict[str, list[tuple[str, bytes]]] = {name: [] for name in [*pythons, "lmtp"]}
    for name in moves:
        for number in range(args.runs):
            ann = f"ann{name}{number}@example.com"  # a few invitations a day each
            created = parts.service.create_game(
                [PlayerSpec("Ann", ann), PlayerSpec("Ben", f"ben{name}{number}@example.com")],
                None,
                SHORT,
            )
            address = replyto.reply_address(
                key, settings.mail_domain, created.game_id, 1, 1, created.seats[0].token
            )
            moves[name].append((address, _mail(address, f"move-{name}-{number}", "money L", ann)))
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for number in range(args.runs):
        for kind in ("empty", "forged", "move"):
            for name, python in pythons.items():  # interleaved: the same load on both
                mail = {
                    "empty": b"",
                    "forged": _mail(forged, f"forged-{name}-{number}", "money L"),
                    "move": moves[name][number][1],
                }[kind]
                wall, cpu, status = _run(python, mail, env, folder)
                if status != EXPECTED[kind]:
                    raise SystemExit(f"{name}: {kind} mail exited {status}, not {EXPECTED[kind]}")
                figures.setdefault((name, kind), []).append((wall, cpu))
    listened = _listened(env, folder, moves["lmtp"])
    parts.database.dispose()

    said = {
        "empty": "nothing to do (an empty mail, bounced)",
        "forged": "a forged reply address (bounced)",
        "move": "a move played, its answer queued",
    }
    print(f"`pbem inbound`, one process per mail, {args.runs} runs each; SQLite, disk broker")
    print("median wall clock (best) / median processor time, in ms")
    header = "".join(f"{name:>24}" for name in pythons)
    print(f"  {'':42}{header}")
    for kind in ("empty", "forged", "move"):
        cells = ""
        for name in pythons:
            runs = figures[(name, kind)]
            wall = statistics.median(w for w, _ in runs) * 1000
            best = min(w for w, _ in runs) * 1000
            cpu = statistics.median(c for _, c in runs) * 1000
            cells += f"{f'{wall:,.0f} ({best:,.0f}) / {cpu:,.0f}':>24}"
        print(f"  {said[kind]:42}{cells}")
    wall = statistics.median(listened) * 1000
    print(f"`pbem lmtp`, the same moves through the running listener, {args.runs} mails")
    print(f"  {said['move']:42}{f'{wall:,.0f} ({min(listened) * 1000:,.0f})':>24}")


def _listened(env: dict[str, str], cwd: Path, moves: list[tuple[str, bytes]]) -> list[float]:
    """Each move delivered to a running `pbem lmtp` (its own connection): seconds."""
    listener = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "lmtp", "--port", "0"],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert listener.stdout is not None
        port = int(listener.stdout.readline().rpartition(":")[2])  # once it listens
        seconds = []
        for address, mail in moves:
            started = time.perf_counter()
            with smtplib.LMTP("127.0.0.1", port) as lmtp:
                lmtp.ehlo("bench")
                lmtp.mail("ann@example.com")
                lmtp.rcpt(address)
                code, said = lmtp.data(mail)
                if said != b"2.0.0 accepted":
                    raise SystemExit(f"lmtp: {code} {said.decode()}")
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        listener.terminate()
        listener.wait()


if __name__ == "__main__":
    main()
