"""For the tests and the benchmark of long chats: lines of talk stored in bulk (each
an event appended and counted by the store, many to a unit of work), and `Work`,
what the database does for a block of code, counted deterministically."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pbem.events import SpectatorTalk, TableTalk, encode
from pbem.games import get
from pbem.service import Service
from pbem.store import log, talk
from pbem.store.database import Database

BATCH = 100  # lines stored in one unit of work
STEPS = 10  # SQLite's instructions counted as one


def talk_in_bulk(
    service: Service, game_id: str, lines: int, seats: int = 2, *, spectators: bool = False
) -> None:
    """`lines` lines of talk in the game, half the players' (the seats in turn) and
    half the spectators' (names in turn): as the chat would hold them after days of
    talk at the allowed rate, without the days and without a request each. Each
    line is appended to the log and counted by the store, BATCH to a unit of work;
    the last line of each is projected as the service projects every event (the
    others change no read model but the counts: talk moves nothing). With
    `spectators`, every line is a spectator's."""
    ctx = service._ctx
    for first in range(0, lines, BATCH):
        with ctx.transaction() as tx:
            row = ctx.open(tx, game_id)
            rules = get(row.game)
            state = ctx.state(tx.conn, rules, row)
            last = min(first + BATCH, lines) - 1
            for n in range(first, last + 1):
                line, actor = _line(2 * n if spectators else n, seats)
                if n == last:
                    ctx.record(tx, rules, line, actor, state)
                    break
                kind, _, payload = encode(line)
                event = log.append(tx.conn, game_id, tx.head, kind, payload, actor, tx.time())
                talk.count(tx.conn, event)
                tx.head = (event.seq, event.hash)


def _line(n: int, seats: int) -> tuple[TableTalk | SpectatorTalk, str]:
    """The nth line of a long chat and its actor: a seat's and a spectator's in turn."""
    if n % 2:
        seat = (n // 2) % seats + 1
        return TableTalk(seat, f"line {n}"), f"seat:{seat}"
    return SpectatorTalk(f"watcher {n % 7}", f"line {n}"), "spectator"


@dataclass
class Counted:
    """What the database did: statements run, and the work they took — on SQLite its
    virtual machine's instructions (in tens: every row a statement visits costs
    some, whether it returns it or not), on PostgreSQL the rows it read from the
    events table (through an index or not, returned or not)."""

    statements: int = 0
    work: int = 0


class Work:
    """Counts what the database does inside `counting()`, on every connection the
    server's parts open a transaction on (the store's bare connections and its
    sessions), by hooks of the databases themselves: SQLite's trace and progress
    callbacks, PostgreSQL's statistics of the transaction (pg_stat_xact_*)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.counted = Counted()
        self._on = False
        for name in ("reading", "writing", "read", "write"):
            setattr(database, name, self._watched(getattr(database, name), name))

    @contextmanager
    def counting(self) -> Iterator[Counted]:
        self.counted = Counted()
        self._on = True
        try:
            yield self.counted
        finally:
            self._on = False

    def _watched(self, opened: Callable[[], Any], name: str) -> Callable[[], Any]:
        @contextmanager
        def watched() -> Iterator[Any]:
            with opened() as conn:
                if not self._on:
                    yield conn
                    return
                bare = conn.connection() if name in ("read", "write") else conn
                with self._hooked(bare):
                    yield conn

        return watched

    @contextmanager
    def _hooked(self, conn: Any) -> Iterator[None]:
        driver = conn.connection.dbapi_connection
        counted = self.counted
        if self.database.dialect == "sqlite":

            def statement(_sql: str) -> None:
                counted.statements += 1

            def step() -> int:
                counted.work += 1
                return 0  # go on

            driver.set_trace_callback(statement)
            driver.set_progress_handler(step, STEPS)
            try:
                yield
            finally:
                driver.set_trace_callback(None)
                driver.set_progress_handler(None, STEPS)
            return
        before = _pg_rows(driver)
        factory = driver.cursor_factory

        class Counting(factory):  # type: ignore[misc, valid-type]
            def execute(self, *args: Any, **kwargs: Any) -> Any:
                counted.statements += 1
                return super().execute(*args, **kwargs)

        driver.cursor_factory = Counting
        try:
            yield
        finally:
            driver.cursor_factory = factory
        counted.work += _pg_rows(driver) - before


def _pg_rows(driver: Any) -> int:
    """The rows this transaction has read from the events table so far, by a scan
    or through an index (PostgreSQL's count of the transaction, not yet flushed)."""
    with driver.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)"
            " FROM pg_stat_xact_user_tables WHERE relname = 'events'"
        )
        return int(cursor.fetchone()[0])
