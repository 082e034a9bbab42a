"""The production shape for bench/load.py: a PostgreSQL database of its own, a
redis-server of its own, an aiosmtpd server in this process that records when each
mail arrived, gunicorn (config/gunicorn.conf.py), Celery workers and the scheduler
as separate processes; and what each of them uses, read from /proc."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
THREAD = re.compile(rb"<game-(\w+)-seat-(\d+)@")
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _header(raw: bytes, name: bytes) -> bytes:
    found = re.search(rb"^" + name + rb":[ \t]*(.*?)\r?$", raw, re.MULTILINE | re.IGNORECASE)
    return found[1].strip() if found else b""


class Recorder:
    """An SMTP server's handler: for each mail, when it arrived (time.time()), its
    Message-ID, kind (X-Pbem-Kind) and the game and seat of its thread."""

    def __init__(self) -> None:
        self.arrived: list[tuple[float, str, str, str | None, int | None]] = []
        self.listeners: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        now = time.time()
        raw = envelope.original_content
        head = raw[: raw.find(b"\r\n\r\n")] if b"\r\n\r\n" in raw else raw[:8192]
        thread = THREAD.search(_header(head, b"References"))
        game, seat = (thread[1].decode(), int(thread[2])) if thread else (None, None)
        kind = _header(head, b"X-Pbem-Kind").decode()
        message_id = _header(head, b"Message-ID").decode()
        self.arrived.append((now, message_id, kind, game, seat))
        for listener in self.listeners:
            listener(kind, game, seat)
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[tuple[Recorder, int]]:
    recorder, port = Recorder(), free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield recorder, port
    finally:
        controller.stop()


@contextmanager
def postgres_database(server_url: str, name: str) -> Iterator[str]:
    base = make_url(server_url).set(drivername="postgresql+psycopg")
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def redis_server(folder: Path) -> Iterator[tuple[str, int]]:
    """A redis-server of this bench's own, on a free port, keeping nothing on disk."""
    port = free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no", "--dir", str(folder)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        _wait_for_port(port, process, "redis-server")
        yield f"redis://127.0.0.1:{port}/0", process.pid
    finally:
        process.terminate()
        process.wait()


def _wait_for_port(port: int, process: subprocess.Popen, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"{what} exited with {process.returncode}") from None
            time.sleep(0.1)
    raise SystemExit(f"{what} did not start within {seconds:.0f} s")


@dataclass
class Stack:
    """The processes of one site, by name."""

    env: dict[str, str]
    folder: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def start(self, name: str, command: list[str]) -> subprocess.Popen:
        own = {**self.env, "PBEM_INSTANCE_DIR": str(self.folder / name)}
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 (the process keeps it)
        process = subprocess.Popen(
            command, env=own, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes[name] = process
        return process

    def web(self, port: int, workers: int, threads: int) -> None:
        command = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config/gunicorn.conf.py")]
        command += ["-w", str(workers), "-b", f"127.0.0.1:{port}"]
        if threads > 1:
            command += ["--threads", str(threads)]
        self.start("web", [*command, "pbem.web.app:create_app()"])
        _wait_for_port(port, self.processes["web"], "gunicorn")

    def workers(self, count: int, concurrency: int) -> None:
        for n in range(count):
            command = [sys.executable, "-m", "pbem.cli", "worker", "--loglevel", "WARNING"]
            self.start(f"worker{n}", [*command, "--concurrency", str(concurrency)])

    def scheduler(self) -> None:
        self.start("scheduler", [sys.executable, "-m", "pbem.cli", "scheduler"])

    def stop(self) -> None:
        for process in self.processes.values():
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _cpu_ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid: int) -> list[int]:
    """`pid` and every process below it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            with suppress(OSError), open(f"/proc/{current}/task/{task}/children") as kids:
                todo += [int(k) for k in kids.read().split()]
    return found


def _machine_busy() -> tuple[int, int]:
    with open("/proc/stat") as stat:
        numbers = [int(n) for n in stat.readline().split()[1:]]
    idle = numbers[3] + numbers[4]
    return sum(numbers) - idle, sum(numbers)


class Sampler(threading.Thread):
    """Every `every` seconds: the processor time of each group of processes (by
    name: a pid and its children, or a function giving pids), in cores; the
    machine's; and what `probes` (name -> function) answer."""

    def __init__(self, groups: dict[str, Any], probes: dict[str, Any], every: float = 2.0):
        super().__init__(daemon=True)
        self.groups, self.probes, self.every = groups, probes, every
        self.samples: list[dict[str, float]] = []
        self.stopping = threading.Event()

    def _pids(self, group: Any) -> list[int]:
        return _children(group) if isinstance(group, int) else list(group())

    def _ticks(self) -> dict[str, int]:
        return {
            name: sum(_cpu_ticks(p) for p in self._pids(group))
            for name, group in self.groups.items()
        }

    def run(self) -> None:
        before, machine, then = self._ticks(), _machine_busy(), time.monotonic()
        while not self.stopping.wait(self.every):
            now, ticks, busy = time.monotonic(), self._ticks(), _machine_busy()
            seconds = now - then
            sample: dict[str, float] = {"at": time.time()}
            for name, count in ticks.items():
                sample[name] = max(count - before.get(name, 0), 0) / TICKS / seconds
            total = busy[1] - machine[1]
            sample["machine"] = (busy[0] - machine[0]) / total * os.cpu_count() if total else 0
            for name, probe in self.probes.items():
                with suppress(Exception):
                    sample[name] = float(probe())
            self.samples.append(sample)
            before, machine, then = ticks, busy, now

    def stop(self) -> None:
        self.stopping.set()
        self.join()
