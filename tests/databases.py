"""The tests' new databases, made fast: each kind is migrated once in a test process
(a template), and a test's new database is a copy of it, the same schema and rows a
migration writes. Used PostgreSQL databases are dropped in a thread of their own
while the next tests run; every drop has ended (or failed the run) before the
process ends."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from pbem.store import migrate
from pbem.store.database import Database

PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")
_numbers = itertools.count()


def migrated_sqlite(path: Path) -> Path:
    """Migrate a new SQLite database at `path` and leave it as one whole file."""
    database = Database(f"sqlite:///{path}")
    migrate.upgrade(database)
    database.dispose()
    # the write-ahead log folded in and removed, so that copying the file copies it all
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    assert not path.with_name(path.name + "-wal").exists(), "the template's log is left"
    return path


def copy_sqlite(template: Path, path: Path) -> str:
    """A new migrated SQLite database at `path` (a copy of `template`); its URL."""
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def _admin() -> psycopg.Connection:
    """A connection to the database PBEM_TEST_DATABASE_URL names, to create and drop
    others: psycopg's own, so that a test listening to SQLAlchemy's engines never
    hears these statements (they run in threads beside the test)."""
    url = make_url(PG_URL).set(drivername="postgresql")
    return psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)


def postgres_database(worker: str, template: str | None = None) -> str:
    """A new database on the test server, empty or a copy of `template`; its URL."""
    base = make_url(PG_URL).set(drivername="postgresql+psycopg")
    name = f"pbem_t_{worker}_{os.getpid()}_{next(_numbers)}"
    new = sql.Identifier(name)
    copy = sql.SQL(" TEMPLATE {}").format(sql.Identifier(template)) if template else sql.SQL("")
    with _admin() as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(new))
        admin.execute(sql.SQL("CREATE DATABASE {}{}").format(new, copy))
    return base.set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(url: str) -> None:
    name = sql.Identifier(make_url(url).database or "")
    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name)
    with _admin() as admin:
        for attempt in range(20):
            try:
                admin.execute(drop)
                return
            except psycopg.ProgrammingError:
                # FORCE may not end a server process of another role (an autovacuum
                # worker passing by): it is gone a moment later
                if attempt == 19:
                    raise
                time.sleep(0.25)


class PostgresTemplate:
    """A database migrated once on the test server (at the first test that wants a
    copy), the template of each test's new one; a thread that copies it ahead of the
    next test, and one that drops the tests' databases once they are done with."""

    def __init__(self, worker: str) -> None:
        self.worker = worker
        self.url: str | None = None
        self._ready: queue.Queue[str | BaseException] = queue.Queue(maxsize=1)
        self._done: queue.Queue[str | None] = queue.Queue()
        self._closing = threading.Event()
        self._errors: list[BaseException] = []
        self._threads = [
            threading.Thread(target=self._copy, name="copy test databases", daemon=True),
            threading.Thread(target=self._drop, name="drop test databases", daemon=True),
        ]

    def new(self) -> str:
        """A new migrated database (copied while the last test ran); its URL."""
        if self.url is None:
            self._start()  # with the server away, this test fails and the next tries again
        ready = self._ready.get(timeout=600)
        if isinstance(ready, str):
            return ready
        # the copy failed (the server away at the time): now, or this test fails saying why
        return postgres_database(self.worker, self._template())

    def done_with(self, url: str) -> None:
        """Drop `url`'s database soon, in the dropping thread."""
        self._done.put(url)

    def _template(self) -> str:
        return make_url(self.url).database or ""

    def _start(self) -> None:
        url = postgres_database(self.worker)
        try:
            database = Database(url)
            migrate.upgrade(database)
            database.dispose()  # CREATE DATABASE ... TEMPLATE wants no one connected to it
        except BaseException:
            with contextlib.suppress(Exception):
                drop_postgres_database(url)
            raise
        self.url = url
        for thread in self._threads:
            thread.start()

    def _copy(self) -> None:
        while not self._closing.is_set():
            try:
                url: str | BaseException = postgres_database(self.worker, self._template())
            except BaseException as error:  # `new` tries again
                url = error
            while True:
                try:
                    self._ready.put(url, timeout=0.5)
                    break
                except queue.Full:
                    if self._closing.is_set():
                        if isinstance(url, str):
                            self._done.put(url)
                        return

    def _drop(self) -> None:
        while (url := self._done.get()) is not None:
            try:
                drop_postgres_database(url)
            except BaseException as error:  # raised in `close`
                self._errors.append(error)

    def close(self) -> None:
        """Wait for every drop, drop the template, and raise the first drop's error."""
        if self.url is None:
            return
        self._closing.set()
        self._threads[0].join()
        while not self._ready.empty():
            if isinstance(ready := self._ready.get(), str):
                self._done.put(ready)
        self._done.put(None)
        self._threads[1].join()
        drop_postgres_database(self.url)
        if self._errors:
            raise self._errors[0]
