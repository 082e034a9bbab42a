"""The fault suite's machinery: its own PostgreSQL and Redis servers (never the
machine's shared ones), an SMTP server that records every message, the server's
processes (gunicorn, Celery workers, schedulers) started, SIGKILLed and started
again, the shared test clock, and waiting on conditions with generous deadlines."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from pbem import resources


def _postgres_programs() -> Path:
    """PBEM_FAULTS_PG_BIN, else the newest of Debian's PostgreSQL versions."""
    if os.environ.get("PBEM_FAULTS_PG_BIN"):
        return Path(os.environ["PBEM_FAULTS_PG_BIN"])
    versions = Path("/usr/lib/postgresql")
    found = [v for v in versions.glob("*") if v.name.isdigit()] if versions.is_dir() else []
    newest = max(found, key=lambda v: int(v.name), default=versions / "15")
    return newest / "bin"


PG_BIN = _postgres_programs()
REPLY_TO = re.compile(r"play\+([a-z0-9]+)\.(\d+)\.(\d+)\.")


def need(topology: str) -> None:
    """The servers a topology starts of its own; missing, a skip (a failure in CI)."""
    missing = []
    if topology == "postgresql":
        if not (PG_BIN / "initdb").exists():
            missing.append(f"PostgreSQL's initdb in {PG_BIN} (PBEM_FAULTS_PG_BIN)")
        if not shutil.which("redis-server"):
            missing.append("redis-server")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the fault suite: install {', '.join(missing)}")
        pytest.skip(f"the fault suite on {topology} needs {', '.join(missing)}")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(condition: Callable[[], object], what: str, timeout: float = 180.0) -> None:
    """Wait for another process to bring `condition` about (never for a clock)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def _as_postgres() -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its tools as `postgres`."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class Postgres:
    """A PostgreSQL server of the suite's own, in a temporary folder, on a free port:
    stopped as by a crash (immediate mode) and started again at will."""

    def __init__(self) -> None:
        # its own folder in the system's temporary one, which `postgres` can reach
        folder = self.folder = Path(tempfile.mkdtemp(prefix="pbem-faults-pg-"))
        self.data = folder / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        self._run(PG_BIN / "initdb", "-D", self.data, "-U", "pbem", "--auth=trust", "-E", "UTF8")
        with open(self.data / "postgresql.conf", "a", encoding="ascii") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{folder}'\nfsync = off\n"
                "max_connections = 200\n"
            )
        self.start()
        self._run(PG_BIN / "createdb", "-h", "127.0.0.1", "-p", self.port, "-U", "pbem", "pbem")
        self.url = f"postgresql://pbem@127.0.0.1:{self.port}/pbem"

    def _run(self, *argv: object) -> None:
        subprocess.run(
            [*_as_postgres(), *map(str, argv)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
        )

    def start(self) -> None:
        log = self.folder / "server.log"
        self._run(PG_BIN / "pg_ctl", "-D", self.data, "-l", log, "-w", "-t", "120", "start")

    def crash(self) -> None:
        """Stop at once, as a crash would (recovery runs at the next start)."""
        self._run(PG_BIN / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        """Stop the server and remove its folder."""
        with contextlib.suppress(subprocess.CalledProcessError):  # unless stopped
            self._run(PG_BIN / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


class Redis:
    """A redis-server of the suite's own on a free port, without persistence (a
    restart loses whatever was queued: the database must make up for it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        self.process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        eventually(self._answers, "redis-server to answer", 60)

    def _answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


class Recorder:
    """What the SMTP server accepted: each message's Message-ID, kind, recipient and
    Reply-To, in arrival order, and whether its sender was heard to go on after the
    250 (a next command on the connection: smtplib sends none before reading the
    answer), so a resend is known for what it is. It can hold the next message before
    answering, as a server does whose sender dies before the answer comes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.messages: list[dict[str, Any]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.holding = threading.Event()

    def _heard(self, session: Any) -> None:
        """The connection's last message was answered and its sender went on."""
        with self.lock:
            mail = getattr(session, "last_mail", None)  # kept on the connection's own
            session.last_mail = None  # session (an id() would be reused by a later one)
            if mail is not None:
                mail["confirmed"] = True

    async def handle_MAIL(self, server, session, envelope, address, options) -> str:
        self._heard(session)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RSET(self, server, session, envelope) -> str:
        self._heard(session)
        return "250 OK"

    async def handle_NOOP(self, server, session, envelope, arg) -> str:
        self._heard(session)
        return "250 OK"

    async def handle_QUIT(self, server, session, envelope) -> str:
        self._heard(session)
        return "221 Bye"

    async def handle_DATA(self, server, session, envelope) -> str:
        parsed = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        mail = {
            "id": str(parsed["Message-ID"] or ""),
            "kind": str(parsed["X-Pbem-Kind"] or ""),
            "to": ",".join(envelope.rcpt_tos),
            "reply_to": str(parsed["Reply-To"] or ""),
            "subject": str(parsed["Subject"] or ""),
            "confirmed": False,
            "at": time.monotonic(),
        }
        with self.lock:
            self.messages.append(mail)
            session.last_mail = mail
        if not self.hold.is_set():
            self.holding.set()
            await asyncio.get_running_loop().run_in_executor(None, self.hold.wait)
        return "250 OK"

    def hold_next(self) -> None:
        self.holding.clear()
        self.hold.clear()

    def release(self) -> None:
        self.hold.set()

    def snapshot(self) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(m) for m in self.messages]


class Smtp:
    """The SMTP server the workers deliver to, in this process; stopped for a while
    (connections refused) and started again on the same port."""

    def __init__(self) -> None:
        self.recorder = Recorder()
        self.port = free_port()
        self.controller: Controller | None = None
        self.start()

    def start(self) -> None:
        if self.controller is None:
            self.controller = Controller(self.recorder, hostname="127.0.0.1", port=self.port)
            self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


class Clock:
    """The clock every process reads (the `clock_file` setting): seconds added to
    the real time, written whole (a new file renamed over the old)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shift = 0.0
        self.jumps: list[float] = []  # when (time.monotonic()) it was moved forward
        self.set(0.0)

    def set(self, seconds: float) -> None:
        if seconds > self.shift:
            self.jumps.append(time.monotonic())
        self.shift = seconds
        new = self.path.with_suffix(".new")
        new.write_text(repr(float(seconds)), encoding="ascii")
        os.replace(new, self.path)

    def forward(self, seconds: float) -> None:
        self.set(self.shift + seconds)


def children_of(pid: int) -> list[int]:
    """The pids of the processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    try:
        return state.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Processes:
    """The server's processes of one topology, each a named role started from the
    command line as an operator would, its output kept in the run's folder."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder, self.env = folder, env
        self.running: dict[str, subprocess.Popen] = {}
        self.web_port = free_port()
        self.started = 0

    def command(self, role: str) -> list[str]:
        pbem = [sys.executable, "-m", "pbem.cli"]
        if role == "web":
            conf = resources.CONFIG / "gunicorn.conf.py"
            return [
                *[sys.executable, "-m", "gunicorn", "-c", str(conf), "-w", "2"],
                *["-b", f"127.0.0.1:{self.web_port}", "--graceful-timeout", "5"],
                "pbem.web.app:create_app()",
            ]
        if role.startswith("worker"):
            return [*pbem, "worker", "--concurrency", "2", "--loglevel", "WARNING"]
        if role.startswith("scheduler"):
            return [*pbem, "scheduler"]
        raise ValueError(role)

    def start(self, role: str) -> subprocess.Popen:
        assert role not in self.running or self.running[role].poll() is not None, role
        self.started += 1
        out = open(self.folder / f"{role}.log", "ab")  # noqa: SIM115 (the child keeps it)
        process = subprocess.Popen(
            self.command(role),
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=self.folder,
            start_new_session=True,
        )
        out.close()
        self.running[role] = process
        return process

    def kill(self, role: str) -> None:
        """SIGKILL the role's process; a gunicorn master's workers notice and end
        (they are SIGKILLed too if they linger, so the port is free again)."""
        process = self.running.pop(role, None)
        if process is None or process.poll() is not None:
            return
        orphans = children_of(process.pid) if role == "web" else []
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in orphans) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in orphans:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

    def web_workers(self) -> list[int]:
        web = self.running.get("web")
        return children_of(web.pid) if web and web.poll() is None else []

    def stop_all(self) -> None:
        for role in list(self.running):
            self.kill(role)
