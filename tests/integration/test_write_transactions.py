"""SQLite write transactions: a failed one changes nothing and the next commits, and
writers on many threads each commit whole, never interleaved. Each thread keeps its
own connection between transactions: a read inside a write takes another one, a
failure at COMMIT rolls back, a thread that ended gives its connection back, and a
forked process opens its own."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from pbem.store.database import Database


@pytest.fixture
def db(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    with database.writing() as conn:
        conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)"))
    yield database
    database.dispose()


def _rows(database: Database) -> list[tuple[int, str]]:
    with database.reading() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT id, who FROM t ORDER BY id"))]


def test_a_failed_transaction_changes_nothing_and_the_next_one_commits(db):
    with db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'a')"))
    with pytest.raises(IntegrityError), db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (2, 'b')"))
        conn.execute(text("INSERT INTO t VALUES (1, 'again')"))
    with pytest.raises(RuntimeError), db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (3, 'c')"))
        raise RuntimeError("the command failed after its first write")
    with db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (4, 'd')"))
    assert _rows(db) == [(1, "a"), (4, "d")]


def test_writers_on_many_threads_each_commit_whole(db):
    errors: list[BaseException] = []

    def write(who: int) -> None:
        try:
            for n in range(25):
                with db.writing() as conn:
                    conn.execute(text("INSERT INTO t (who) VALUES (:w)"), {"w": f"{who}"})
                    conn.execute(text("INSERT INTO t (who) VALUES (:w)"), {"w": f"{who}-{n}"})
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    rows = _rows(db)
    assert len(rows) == 6 * 25 * 2
    # Each transaction's two rows are neighbours: no transaction interleaved another.
    for (_, first), (_, second) in zip(rows[::2], rows[1::2], strict=True):
        assert second.startswith(first + "-")


def _connections(database: Database) -> int:
    """How many connections the threads hold (the store's own count)."""
    return len(database._held._all)


def test_a_read_inside_a_write_takes_another_connection_and_sees_only_committed_rows(db):
    with db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'a')"))
    with db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (2, 'b')"))
        assert _rows(db) == [(1, "a")]  # the write's own rows are not committed yet
        assert _connections(db) == 1  # the read's came from the pool
        conn.execute(text("INSERT INTO t VALUES (3, 'c')"))  # the write goes on
    assert _rows(db) == [(1, "a"), (2, "b"), (3, "c")]


def test_a_failure_at_commit_rolls_back_and_the_connection_goes_on(db):
    with db.writing() as conn:  # a foreign key checked only at COMMIT
        conn.execute(
            text(
                "CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES t (id)"
                " DEFERRABLE INITIALLY DEFERRED)"
            )
        )
    with pytest.raises(IntegrityError, match="FOREIGN KEY"), db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'a')"))
        conn.execute(text("INSERT INTO child VALUES (1, 99)"))
    with db.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (2, 'b')"))
    assert _rows(db) == [(2, "b")]
    with db.reading() as conn:
        assert conn.execute(text("SELECT count(*) FROM child")).scalar() == 0


def test_each_thread_keeps_one_connection_and_an_ended_threads_is_closed(db):
    _rows(db)
    assert _connections(db) == 1  # this thread's, kept

    def use() -> None:
        for _ in range(3):
            _rows(db)

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert _connections(db) == 2  # one more for the worker, however many transactions
    later = threading.Thread(target=use)
    later.start()
    later.join()
    assert _connections(db) == 2  # the ended worker's was closed for the new one's
    db.dispose()
    assert _connections(db) == 0
    assert _rows(db) == []  # and a new one is taken after dispose


def _write_in_child(database: Database, done) -> None:
    with database.writing() as conn:
        conn.execute(text("INSERT INTO t VALUES (7, 'child')"))
    done.put(_connections(database))


def test_a_forked_process_opens_its_own_connection(db):
    assert _rows(db) == []  # the parent holds one before the fork
    context = multiprocessing.get_context("fork")
    done = context.Queue()
    child = context.Process(target=_write_in_child, args=(db, done))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert done.get(timeout=5) == 1  # its own, not the parent's
    assert _rows(db) == [(7, "child")]  # and the parent's still works


def test_a_connection_in_use_is_closed_only_when_its_transaction_ends(db):
    """Disposing of the database (a test's end, a shutdown) while another thread is
    inside a transaction leaves that thread's statements running on its connection
    (closing it under them can crash the driver); it is closed once that ends."""
    inside, disposed = threading.Event(), threading.Event()
    seen: list[object] = []

    def read() -> None:
        try:
            with db.reading() as conn:
                inside.set()
                disposed.wait(10)
                seen.append(conn.execute(text("SELECT count(*) FROM t")).scalar())
                seen.append(conn)
        except Exception as error:  # the old way: "Cannot operate on a closed database"
            seen.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    assert inside.wait(10)
    db.dispose()
    disposed.set()
    reader.join(10)
    assert seen[0] == 0, seen
    assert seen[1].closed  # closed as its transaction ended
    assert _rows(db) == []  # and this thread goes on with a new one
