"""Each thread's own connection of the SQLite hot path, kept between its
transactions, which say BEGIN, COMMIT and ROLLBACK to the driver themselves."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError


class Held:
    """Each thread's own connection of the SQLite hot path, kept between its
    transactions (as SQLAlchemy's SingletonThreadPool keeps one per thread): a pool
    checkout, its return and SQLAlchemy's transaction around BEGIN and COMMIT cost
    more than the statements of a read, and a fifth of what a move costs besides
    its rules. A transaction says BEGIN and COMMIT (or ROLLBACK) to the driver
    itself. A thread already inside one of its transactions (a read within a
    write) is given None: its caller takes another connection from the pool. The
    connection of a thread that has ended is closed when another thread takes one;
    a process forked with some leaves them to its parent."""

    def __init__(self) -> None:
        self._mine = threading.local()  # .connection, .busy of the calling thread
        self._lock = threading.Lock()
        self._all: dict[threading.Thread, Connection] = {}
        self._busy: set[Connection] = set()  # inside a transaction now
        self._doomed: set[Connection] = set()  # closed when their transaction ends
        self._pid = os.getpid()

    def take(self, engine: Engine) -> Connection | None:
        """This thread's connection on `engine` (a new one the first time), or None
        while it is inside a transaction."""
        mine = self._mine
        if getattr(mine, "busy", False):
            return None
        connection: Connection | None = getattr(mine, "connection", None)
        if (
            connection is None
            or connection.closed
            or connection.invalidated
            or self._pid != os.getpid()
        ):
            connection = mine.connection = self._connect(engine)
        return connection

    def _connect(self, engine: Engine) -> Connection:
        with self._lock:
            if self._pid != os.getpid():  # forked: the parent's, not ours to close
                self._all, self._pid = {}, os.getpid()
            ended = [t for t in self._all if not t.is_alive()]
            for thread in ended:
                _close(self._all.pop(thread))
            connection = self._all[threading.current_thread()] = engine.connect()
            return connection

    @contextmanager
    def transaction(
        self, connection: Connection, begin: Callable[[Connection, Mapping[str, Any]], None]
    ) -> Iterator[None]:
        """`begin` (BEGIN, as the caller says it) on `connection`, and COMMIT when
        the block ends, ROLLBACK on error."""
        driver = connection.connection.dbapi_connection
        if driver is None:
            raise RuntimeError("the connection is closed")
        self._mine.busy = True
        with self._lock:
            self._busy.add(connection)
        try:
            begin(connection, {})
            try:
                yield
                _driver_call(connection, driver.commit, "COMMIT")
            except BaseException:
                try:
                    if driver.in_transaction:
                        driver.rollback()
                    if connection.in_transaction():
                        connection.rollback()
                except Exception:  # the connection is broken: never used again
                    connection.invalidate()
                raise
            if connection.in_transaction():  # a Core statement's own bookkeeping
                connection.commit()
        finally:
            self._mine.busy = False
            with self._lock:
                self._busy.discard(connection)
                doomed = connection in self._doomed
                self._doomed.discard(connection)
            if doomed:  # let go of by close_all while it was in use
                _close(connection)

    def close_all(self) -> None:
        """Close every thread's connection (each takes a new one when next asked);
        one that a thread is using now is closed when its transaction ends (closing
        a connection under another thread's statement can crash the driver)."""
        with self._lock:
            held, self._all = self._all, {}
            if self._pid == os.getpid():
                for connection in held.values():
                    if connection in self._busy:
                        self._doomed.add(connection)
                    else:
                        _close(connection)


def _close(connection: Connection) -> None:
    with suppress(Exception):  # a connection that cannot close is gone anyway
        connection.close()


def _driver_call(conn: Connection, call: Callable[[], Any], sql: str) -> None:
    """A call on the driver connection, its errors raised as SQLAlchemy's (as
    `Statement` raises them)."""
    dbapi_error = conn.dialect.loaded_dbapi.Error
    try:
        call()
    except dbapi_error as error:
        raise DBAPIError.instance(sql, (), error, dbapi_error, dialect=conn.dialect) from error
