"""Connections and transactions. SQLite gets WAL, a busy timeout, the configured
`synchronous`, and `BEGIN IMMEDIATE` for writes (so writers queue instead of failing
at commit); PostgreSQL is reached through psycopg 3. The hot path (`writing`,
`reading`) runs on connections with no per-statement event hooks (on SQLite, one per
thread kept between its transactions), its prebuilt
statements (`Statement`) skip Core's per-call compile lookup, and JSON columns are
read with orjson (exactly as the standard library reads them)."""

from __future__ import annotations

import operator
import os
import threading
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.pool import NullPool
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement
from sqlmodel import Session

from pbem.events.jsontext import json_text, load_json

from .held import Held

SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_MS = 30_000


class Database:
    """One database: `write()` and `read()` give a Session inside one transaction;
    `writing()` and `reading()` a bare connection inside one (the hot path)."""

    def __init__(self, url: str, *, synchronous: str = "FULL", echo: bool = False) -> None:
        parsed = make_url(url)
        self.url = url
        self.dialect = parsed.get_backend_name()
        if self.dialect == "postgresql" and parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        json_options = {"json_serializer": json_text, "json_deserializer": load_json}
        self._writers = threading.RLock()  # this process's SQLite writers' turns
        if self.dialect == "sqlite":
            if synchronous.upper() not in SYNCHRONOUS:
                raise ValueError(f"sqlite_synchronous must be one of {', '.join(SYNCHRONOUS)}")
            on_disk = not _in_memory(parsed.database, parsed.query) and "uri" not in parsed.query
            self._file = Path(str(parsed.database)) if on_disk else None
            timeout = {"timeout": BUSY_TIMEOUT_MS / 1000}
            self.engine = create_engine(parsed, echo=echo, connect_args=timeout, **json_options)
            _sqlite_pragmas(self.engine, synchronous.upper(), self._file)
            _sqlite_begin(self.engine)
            self._writer: Engine = self.engine.execution_options(pbem_begin="IMMEDIATE")
            # A second pool whose connections carry no "begin" hook: an engine with a
            # connection event pays for dispatching every statement's events, a tenth
            # of a move. Its transactions say BEGIN themselves (`writing`, `reading`).
            # (An in-memory database is one per pool: it keeps the one pool.)
            self._hot: Engine | None = None
            if not _in_memory(parsed.database, parsed.query) and "uri" not in parsed.query:
                self._hot = create_engine(parsed, echo=echo, connect_args=timeout, **json_options)
                _sqlite_pragmas(self._hot, synchronous.upper(), self._file)
                # The threads' own connections (`Held`), outside the pool's bound: a
                # thread keeps one for as long as it lives.
                self._own = create_engine(
                    parsed, echo=echo, connect_args=timeout, poolclass=NullPool, **json_options
                )
                _sqlite_pragmas(self._own, synchronous.upper(), self._file)
        else:
            self.engine = create_engine(parsed, echo=echo, pool_pre_ping=True, **json_options)
            self._writer = self.engine
            self._hot = None
        self._held = Held()

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
        """A write transaction on a bare connection (the service's hot path):
        committed when the block ends, rolled back on error."""
        if self._hot is None:
            with self._writer.begin() as connection:
                yield connection
            return
        held = self._held.take(self._own)
        if held is None:  # this thread is inside a transaction already: another connection
            with self._turn_to_write(), self._hot.begin() as connection:
                _BEGIN_WRITE.run(connection, {})
                yield connection
            return
        with self._turn_to_write(), self._held.transaction(held, _BEGIN_WRITE.run):
            yield held

    @contextmanager
    def _turn_to_write(self) -> Iterator[None]:
        """This process's SQLite writers take turns on a lock before BEGIN
        IMMEDIATE: a writer that found the database locked would sleep in SQLite's
        busy handler (1, 2, 5, 10 ... ms, each longer than a move) while the lock
        may have been free for most of it; a thread waiting here starts the moment
        the one before it ends. Writers in other processes still queue in SQLite.
        A writer that waits here as long as the busy timeout goes on without its
        turn (and then waits in SQLite, as it always did)."""
        turn = self._writers.acquire(timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            yield
        finally:
            if turn:
                self._writers.release()

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read transaction on a bare connection: one consistent view."""
        if self._hot is None:
            with self.engine.begin() as connection:
                yield connection
            return
        held = self._held.take(self._own)
        if held is None:
            with self._hot.begin() as connection:
                _BEGIN_READ.run(connection, {})
                yield connection
            return
        with self._held.transaction(held, _BEGIN_READ.run):
            yield held

    def dispose(self) -> None:
        self._held.close_all()
        self.engine.dispose()
        if self._hot is not None:
            self._hot.dispose()
            self._own.dispose()


class Statement:
    """A Core statement compiled once for each dialect and run as its SQL text on
    the transaction's own driver connection: a prebuilt statement then costs a
    fifth of what `Connection.execute` costs (which rebuilds the statement's cache
    key and its execution context on every call). Parameters go to the driver as
    they are: a JSON column's value is passed as its JSON text (`json_text`,
    `state_text`); `rows` and `first` convert each selected column as Core would
    (JSON, booleans). Driver errors are raised as SQLAlchemy's (IntegrityError ...),
    and a connection the database dropped is invalidated, as Core does."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[type[Dialect], _Compiled] = {}

    def run(self, conn: Connection | OrmSession, params: Mapping[str, Any]) -> None:
        """Execute the statement (an INSERT, an UPDATE) in `conn`'s transaction."""
        self._execute(_connection(conn), params).close()

    def rows(self, conn: Connection | OrmSession, params: Mapping[str, Any]) -> list[Any]:
        """The selected rows, each a named tuple of the columns, converted (in a
        connection's transaction, or a session's)."""
        conn = _connection(conn)
        compiled = self._for(conn.dialect)
        cursor = self._execute(conn, params)
        try:
            found = cursor.fetchall()
        finally:
            cursor.close()
        convert, make = compiled.convert, compiled.row
        if not any(convert):
            return [make._make(row) for row in found]
        return [
            make._make(
                [value if c is None else c(value) for c, value in zip(convert, row, strict=True)]
            )
            for row in found
        ]

    def first(self, conn: Connection | OrmSession, params: Mapping[str, Any]) -> Any | None:
        """The first selected row (see `rows`), or None."""
        found = self.rows(conn, params)
        return found[0] if found else None

    def _execute(self, conn: Connection, params: Mapping[str, Any]) -> Any:
        compiled = self._for(conn.dialect)
        args = compiled.args(params)
        driver = conn.connection.dbapi_connection
        if driver is None:
            raise RuntimeError("the connection is closed")
        cursor = driver.cursor()
        dbapi_error = conn.dialect.loaded_dbapi.Error
        try:
            cursor.execute(compiled.sql, args)
        except dbapi_error as error:
            dropped = conn.dialect.is_disconnect(error, driver, cursor)
            cursor.close()
            if dropped:
                conn.invalidate(error)
            raise DBAPIError.instance(
                compiled.sql,
                args,
                error,
                dbapi_error,
                connection_invalidated=dropped,
                dialect=conn.dialect,
            ) from error
        return cursor

    def _for(self, dialect: Dialect) -> _Compiled:
        compiled = self._compiled.get(type(dialect))
        if compiled is None:
            compiled = self._compiled[type(dialect)] = _Compiled(self.statement, dialect)
        return compiled


def _connection(conn: Connection | OrmSession) -> Connection:
    """The connection a statement runs on: a session's is that of its transaction."""
    return conn.connection() if isinstance(conn, OrmSession) else conn


class _Compiled:
    """A statement's SQL for one dialect, its parameters' order (for a driver that
    takes them by position), the values of its parameters the statement itself
    holds (`column == "sent"`: converted for the driver once, here) and its result
    columns' conversions (a SELECT's, or the columns an UPDATE ... RETURNING
    returns). An IN of a list of values is not prebuilt (its SQL depends on the
    list): it takes one bindparam per value."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        if not isinstance(compiled, SQLCompiler):
            raise TypeError(f"{statement} does not compile to SQL")
        self.sql = str(compiled)
        positions = compiled.positiontup
        self.order = None if positions is None else tuple(positions)
        fixed: dict[str, Any] = {}
        for bind, name in compiled.bind_names.items():
            if bind.expanding:
                raise TypeError(f"{statement}: an IN of a list takes one bindparam per value")
            if not bind.required:
                convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
                value = bind.effective_value
                fixed[name] = value if convert is None or value is None else convert(value)
        self.args: Callable[[Mapping[str, Any]], Any] = _arguments(self.order, fixed)
        selected: Any = getattr(statement, "selected_columns", None)
        if selected is None:  # an INSERT or UPDATE ... RETURNING's columns (or none)
            selected = getattr(statement, "exported_columns", ())
        columns = list(selected)
        self.convert = [
            c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns
        ]
        self.row: Any = namedtuple("Row", [c.key for c in columns], rename=True)  # type: ignore[misc]


def _arguments(
    order: tuple[str, ...] | None, fixed: Mapping[str, Any] | None = None
) -> Callable[[Mapping[str, Any]], Any]:
    """What a statement's parameters are given to the driver as: a dict (named
    parameters), or a tuple in the SQL's order (positional), picked in C; with the
    `fixed` values the statement holds itself."""
    if fixed:
        given = _arguments(order)
        return lambda params: given({**fixed, **params})
    if order is None:
        return dict
    if len(order) == 0:
        return lambda _params: ()
    if len(order) == 1:
        name = order[0]
        return lambda params: (params[name],)
    return operator.itemgetter(*order)


_BEGIN_WRITE = Statement(text("BEGIN IMMEDIATE"))
_BEGIN_READ = Statement(text("BEGIN"))


def state_text(value: Any) -> str:
    """Compact JSON of a rules state (plain dicts, lists, text, whole numbers):
    orjson, an order of magnitude faster on a whole game's state; the standard
    library for what orjson will not write (keys that are not text, integers
    beyond 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json_text(value)


def private_file(path: Path) -> None:
    """Make `path` an empty file only its owner reads, unless it exists: a database
    or a backup holds every seat's token hash and every player's address, and SQLite
    gives its -wal and journal files the mode of the database's."""
    # an existing file is kept as it is; a missing folder is SQLite's to report
    with suppress(FileExistsError, FileNotFoundError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _in_memory(database: str | None, query: Mapping[str, Any]) -> bool:
    return database in (None, "", ":memory:") or query.get("mode") == "memory"


def _sqlite_pragmas(engine: Engine, synchronous: str, file: Path | None) -> None:
    @event.listens_for(engine, "do_connect")
    def _own_file(*_: Any) -> None:
        if file is not None:  # made 0600 just before SQLite would make it
            private_file(file)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions begin below, not in pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()


def _sqlite_begin(engine: Engine) -> None:
    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("pbem_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")
