"""The faults of a run, drawn from its seed, and the thread that injects them one
after another: SIGKILL of the web server (a gunicorn worker, or the master with its
workers), of a Celery worker in the middle of a delivery, of the scheduler; a second
scheduler for a while; PostgreSQL crashed and Redis killed, then started again; the
SMTP server away for a while; the clock moved past deadlines and reminders."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from harness import alive, eventually
from players import HOURS_PER_TURN
from stack import ROLES, Stack

# kind: weight (the database and Redis only where they are servers of their own)
KINDS = {
    "web-worker": 2,
    "web": 1,
    "worker": 3,
    "scheduler": 2,
    "two-schedulers": 1,
    "database": 1,
    "redis": 1,
    "smtp": 2,
    "clock": 2,
}


@dataclass(frozen=True)
class Fault:
    kind: str
    gap: float  # seconds of calm before it
    down: float  # seconds the victim stays away


def plan(rng: random.Random, topology: str, count: int) -> list[Fault]:
    """`count` faults for `topology`, each kind at least once when count allows."""
    kinds = [k for k in KINDS if topology == "postgresql" or k not in ("database", "redis")]
    chosen = kinds[:count] if count >= len(kinds) else rng.sample(kinds, count)
    weights = [KINDS[k] for k in kinds]
    chosen += rng.choices(kinds, weights, k=max(0, count - len(chosen)))
    rng.shuffle(chosen)
    return [Fault(k, rng.uniform(0.3, 2.0), rng.uniform(0.5, 3.0)) for k in chosen]


@dataclass
class Injected:
    counts: Counter = field(default_factory=Counter)
    mid_delivery: int = 0  # worker kills while a mail was being sent
    died: list[str] = field(default_factory=list)  # processes found dead unkilled


class Injector(threading.Thread):
    """Injects the plan's faults in order, then leaves every process running."""

    def __init__(self, stack: Stack, faults: list[Fault], seed: int) -> None:
        super().__init__(name="faults", daemon=True)
        self.stack, self.faults = stack, faults
        self.rng = random.Random(seed)
        self.done = Injected()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for fault in self.faults:
                time.sleep(fault.gap)  # calm between faults: not a wait on anything
                self.notice_deaths()
                getattr(self, fault.kind.replace("-", "_"))(fault.down)
                self.done.counts[fault.kind] += 1
        except BaseException as error:  # the test reports it
            self.error = error

    def notice_deaths(self) -> None:
        """A process that died without being killed is noted and started again."""
        processes = self.stack.processes
        for role in ROLES:
            process = processes.running.get(role)
            if process is not None and process.poll() is not None:
                self.done.died.append(f"{role} (exit {process.returncode})")
                processes.running.pop(role)
                processes.start(role)

    def web_worker(self, down: float) -> None:
        pids = sorted(self.stack.processes.web_workers())
        if pids:
            victim = self.rng.choice(pids)
            if alive(victim):
                os.kill(victim, signal.SIGKILL)

    def web(self, down: float) -> None:
        self.stack.processes.kill("web")
        time.sleep(down)
        self.stack.processes.start("web")
        self.stack.wait_for_web()

    def worker(self, down: float) -> None:
        """The SMTP server holds the next message unanswered; then the workers die
        (the one sending it among them), and a while later start again."""
        recorder = self.stack.smtp.recorder
        recorder.hold_next()
        try:
            if recorder.holding.wait(5):
                self.done.mid_delivery += 1
                roles = ["worker-1", "worker-2"]
            else:
                roles = [self.rng.choice(("worker-1", "worker-2"))]
            for role in roles:
                self.stack.processes.kill(role)
        finally:
            recorder.release()
        time.sleep(down)
        for role in roles:
            self.stack.processes.start(role)

    def scheduler(self, down: float) -> None:
        self.stack.processes.kill("scheduler")
        time.sleep(down)
        self.stack.processes.start("scheduler")

    def two_schedulers(self, down: float) -> None:
        self.stack.processes.start("scheduler-2")
        time.sleep(down + 3)  # long enough for both to sweep
        self.stack.processes.kill("scheduler-2")

    def database(self, down: float) -> None:
        assert self.stack.postgres
        self.stack.postgres.crash()
        time.sleep(down)
        self.stack.postgres.start()

    def redis(self, down: float) -> None:
        assert self.stack.redis
        self.stack.redis.kill()
        time.sleep(down)
        self.stack.redis.start()

    def smtp(self, down: float) -> None:
        self.stack.smtp.stop()
        time.sleep(down)
        self.stack.smtp.start()

    def clock(self, down: float) -> None:
        """Forward, at a moment no mail is being sent if one comes soon (a jump
        overtakes the lease of a mail in flight, and it is sent again)."""
        sending = "SELECT count(*) FROM outbox WHERE status = 'sending'"
        with contextlib.suppress(Exception):
            eventually(lambda: self.stack.query(sending, timeout=5)[0][0] == 0, "calm", 5)
        # a quarter to a half of a turn's time: reminders, and a timeout every few
        minutes = self.rng.uniform(HOURS_PER_TURN * 15, HOURS_PER_TURN * 35)
        self.stack.clock.forward(minutes * 60)


def restore(stack: Stack, injected: Injected) -> None:
    """Everything up again: the servers, the SMTP server and one of each role."""
    if stack.postgres:
        with contextlib.suppress(subprocess.CalledProcessError):
            stack.postgres.start()  # unless it is running
    if stack.redis and (stack.redis.process is None or stack.redis.process.poll() is not None):
        stack.redis.start()
    stack.smtp.start()
    stack.processes.kill("scheduler-2")
    for role in ROLES:
        process = stack.processes.running.get(role)
        if process is None or process.poll() is not None:
            if process is not None:
                injected.died.append(f"{role} (exit {process.returncode})")
            stack.processes.running.pop(role, None)
            stack.processes.start(role)
    stack.wait_for_web()
    eventually(lambda: stack.query("SELECT 1")[0][0] == 1, "the database")
