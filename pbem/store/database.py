"""Connections and transactions. SQLite gets WAL, a busy timeout, the configured
`synchronous`, and `BEGIN IMMEDIATE` for writes (so writers queue instead of failing
at commit); PostgreSQL is reached through psycopg 3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session

SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_MS = 30_000


class Database:
    """One database: `write()` and `read()` give a Session inside one transaction."""

    def __init__(self, url: str, *, synchronous: str = "FULL", echo: bool = False) -> None:
        parsed = make_url(url)
        self.url = url
        self.dialect = parsed.get_backend_name()
        if self.dialect == "postgresql" and parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        if self.dialect == "sqlite":
            if synchronous.upper() not in SYNCHRONOUS:
                raise ValueError(f"sqlite_synchronous must be one of {', '.join(SYNCHRONOUS)}")
            self.engine = create_engine(
                parsed,
                echo=echo,
                connect_args={"timeout": BUSY_TIMEOUT_MS / 1000},
                json_serializer=_compact_json,
            )
            _sqlite_setup(self.engine, synchronous.upper())
            self._writer: Engine = self.engine.execution_options(pbem_begin="IMMEDIATE")
        else:
            self.engine = create_engine(
                parsed, echo=echo, pool_pre_ping=True, json_serializer=_compact_json
            )
            self._writer = self.engine

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction: committed when the block ends, rolled back on error."""
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read transaction: one consistent view of the database."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction on a bare connection (the service's hot path)."""
        with self._writer.begin() as connection:
            yield connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with self.engine.begin() as connection:
            yield connection

    def dispose(self) -> None:
        self.engine.dispose()


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _sqlite_setup(engine: Engine, synchronous: str) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions begin below, not in pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("pbem_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")
