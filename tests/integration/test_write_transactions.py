"""SQLite write transactions: a failed one changes nothing and the next commits, and
writers on many threads each commit whole, never interleaved."""

from __future__ import annotations

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
