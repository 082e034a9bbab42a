"""A worker's signs of life: from the moment it is ready until it stops, a thread
writes its heartbeat "worker:HOST:PID" every `heartbeat_seconds`, saying whether
its broker answers; a clean stop removes it (a worker that died leaves it, aging).
And how the process ends: a worker that stopped on an unrecoverable error (its
broker gone for good, say) exits non-zero, whatever Celery's own entry point says."""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from datetime import datetime

from pbem.service.checks import broker_problem
from pbem.store import heartbeats
from pbem.store.database import Database

log = logging.getLogger(__name__)
PREFIX = "worker:"


def name() -> str:
    """This worker's heartbeat: worker:HOST:PID."""
    return f"{PREFIX}{socket.gethostname()}:{os.getpid()}"


class Pulse:
    """The heartbeat thread of one worker process."""

    def __init__(
        self,
        database: Database,
        clock: Callable[[], datetime],
        broker_url: str,
        every: float,
        instance_dir: os.PathLike | None = None,
    ) -> None:
        self.database, self.clock, self.every = database, clock, every
        self.broker_url, self.instance_dir = broker_url, instance_dir
        self.name = name()
        self.holder = self.name.removeprefix(PREFIX)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def broker(self) -> str:
        """ "ok", or "unreachable: <one line>"."""
        from pathlib import Path

        folder = Path(self.instance_dir) if self.instance_dir is not None else None
        problem = broker_problem(self.broker_url, folder, timeout=2.0)
        return f"unreachable: {problem}" if problem else "ok"

    def beat(self) -> None:
        """One heartbeat now; trouble (the database away) is logged, not raised."""
        try:
            state = self.broker()
            heartbeats.beat(self.database, self.name, self.holder, self.clock(), broker=state)
        except Exception:
            log.warning("heartbeat %s not written; the next one tries again", self.name)

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="pbem-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self.beat()
            if self._stop.wait(self.every):
                return

    def stop(self, clean: bool = True) -> None:
        """Stop beating; at a clean stop, remove the heartbeat (else it ages, and
        says this worker died)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if not clean:
            return
        try:
            heartbeats.forget(self.database, self.name, holder=self.holder)
        except Exception:
            log.warning("heartbeat %s not removed; it ages instead", self.name)


class Ending:
    """How the worker of this process ended: the exit code its WorkController was
    left with (Celery sets 1 on an unrecoverable error)."""

    def __init__(self) -> None:
        self.exitcode: int | None = None

    def saw(self, worker: object) -> None:
        code = getattr(worker, "exitcode", None)
        if isinstance(code, int):
            self.exitcode = code

    def status(self, returned: int | None) -> int:
        """The process's exit status: the worse of what Celery's entry point
        returned and what its worker was left with."""
        codes = [c for c in (returned, self.exitcode) if isinstance(c, int)]
        return max(codes, default=0)
