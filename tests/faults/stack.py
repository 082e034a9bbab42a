"""One topology of the server, whole, for the fault suite: PostgreSQL and Redis
(servers of the suite's own), or SQLite and the disk broker; the SMTP server, the
shared clock, gunicorn, two Celery workers and the scheduler; and, in this process,
the parts that read the database for the players and the checks."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from harness import Clock, Postgres, Processes, Redis, Smtp, eventually
from sqlalchemy import text

from pbem.bootstrap import Parts, build
from pbem.config import load_settings
from pbem.store import migrate

T = TypeVar("T")
ADMIN_KEY = "faults-admin-key"
SECRET_KEY = "faults-secret-key"
MAIL_DOMAIN = "mall.faults.test"
ROLES = ("web", "worker-1", "worker-2", "scheduler")


class Stack:
    """Everything of one topology, started; `down` stops and removes it all."""

    def __init__(self, topology: str, folder: Path) -> None:
        self.topology, self.folder = topology, folder
        instance = folder / "instance"
        instance.mkdir(parents=True)
        self.postgres: Postgres | None = None
        self.redis: Redis | None = None
        if topology == "postgresql":
            self.postgres = Postgres()
            self.redis = Redis(folder / "redis")
            database, broker = self.postgres.url, self.redis.url
        else:
            database, broker = f"sqlite:///{instance / 'pbem.sqlite3'}", "filesystem://"
        self.smtp = Smtp()
        self.clock = Clock(folder / "clock")
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PBEM_DATABASE_URL": database,
            "PBEM_BROKER_URL": broker,
            "PBEM_SMTP_URL": f"smtp://127.0.0.1:{self.smtp.port}",
            "PBEM_SECRET_KEY": SECRET_KEY,
            "PBEM_ADMIN_KEY": ADMIN_KEY,
            "PBEM_INSTANCE_DIR": str(instance),
            "PBEM_MAIL_DOMAIN": MAIL_DOMAIN,
            "PBEM_SWEEP_SECONDS": "1",
            "PBEM_CLOCK_FILE": str(self.clock.path),
            "PYTHONUNBUFFERED": "1",
        }
        self.parts: Parts = build(load_settings(self.env))
        migrate.upgrade(self.parts.database)
        self.processes = Processes(folder, self.env)
        self.base = f"http://127.0.0.1:{self.processes.web_port}"
        for role in ROLES:
            self.processes.start(role)
        self.wait_for_web()

    def web_answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.base + "/api/openapi.json", timeout=5) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def wait_for_web(self) -> None:
        eventually(self.web_answers, "the web app to answer", 240)

    def read(self, how: Callable[[Any], T], timeout: float = 240.0) -> T:
        """`how(connection)` on the database, tried again while the database is away
        (a restart the harness made)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with self.parts.database.engine.connect() as connection:
                    return how(connection)
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def query(self, sql: str, timeout: float = 240.0, **values: Any) -> list[Any]:
        return self.read(lambda c: list(c.execute(text(sql), values)), timeout)

    def down(self) -> None:
        self.processes.stop_all()
        self.smtp.stop()
        self.parts.database.dispose()
        if self.redis:
            self.redis.kill()
        if self.postgres:
            self.postgres.remove()
