"""Running the server's processes for real in the tests: `pbem ...` as a child with
its own environment, its stderr kept in a file, and waiting on what it does (never
on a clock)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def environment(tmp_path: Path, database_url: str, **extra: str) -> dict[str, str]:
    """A production-like environment (no dev mode) on `database_url`."""
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        "PBEM_SECRET_KEY": "process-test-secret-of-some-length-0123456789",
        "PBEM_BROKER_URL": "filesystem://",
        "PBEM_SWEEP_SECONDS": "1",
        "PBEM_LOG_FORMAT": "json",
        **extra,
    }
    env.pop("PBEM_DEV", None)
    return env


class Child:
    """One `pbem` process, its stderr in a file."""

    def __init__(self, args: list[str], env: dict[str, str], folder: Path, name: str) -> None:
        self.stderr_path = folder / f"{name}.stderr"
        self.stdout_path = folder / f"{name}.stdout"
        with self.stderr_path.open("wb") as err, self.stdout_path.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", *args], env=env, stdout=out, stderr=err
            )
        self.pid = self.process.pid

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def json_lines(self) -> list[dict]:
        """Every line of its stderr, each read as JSON (a line that is not fails)."""
        return [json.loads(line) for line in self.stderr().splitlines()]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def eventually(
    condition: Callable[[], object], what: str, timeout: float = 120, child: Child | None = None
) -> None:
    """Wait for another process to do something; fails with its stderr when it ended."""
    deadline = time.monotonic() + timeout
    while not condition():
        if child is not None and child.process.poll() is not None:
            raise AssertionError(
                f"{what}: the process ended ({child.process.returncode}): {child.stderr()[-2000:]}"
            )
        if time.monotonic() > deadline:
            said = child.stderr()[-2000:] if child else ""
            raise AssertionError(f"timed out waiting for {what} {said}")
        time.sleep(0.1)


ROOT = Path(__file__).resolve().parents[2]


def gunicorn_command(*options: str) -> list[str]:
    """The command that serves the web app under gunicorn with the shipped config and
    `options` (binds, workers, an access log format ...), as an operator runs it."""
    config = str(ROOT / "config" / "gunicorn.conf.py")
    return [sys.executable, "-m", "gunicorn", "-c", config, *options, "pbem.web.app:create_app()"]
