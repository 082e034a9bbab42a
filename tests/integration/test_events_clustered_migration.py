"""Migration 0005 on SQLite and PostgreSQL: the events keep every row and their
guards (never updated nor deleted, a key once per game), a move writes fewer pages,
and the downgrade gives the old table back."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError, IntegrityError

from pbem.store import migrate
from pbem.store.database import Database

from support import migrate_to

BEFORE = "0004"
_EVENTS = sa.table(
    "events",
    *(
        sa.column(name)
        for name in (
            "game_id",
            "seq",
            "type",
            "payload",
            "actor",
            "created_at",
            "idempotency_key",
            "prev_hash",
            "hash",
        )
    ),
)


def _event(game: str, seq: int, key: str | None) -> dict:
    return {
        "game_id": game,
        "seq": seq,
        "type": "ActionTaken",
        "payload": '{"seat":1,"action":{"x":1},"v":1}',
        "actor": "seat:1",
        "created_at": "2026-01-01T00:00:00.000000Z",
        "idempotency_key": key,
        "prev_hash": f"{seq - 1:064d}",
        "hash": f"{seq:064d}",
    }


ROWS = [
    _event("g1", 1, None),
    _event("g1", 2, "seat1:k"),
    _event("g1", 3, None),
    _event("g2", 1, "seat1:k"),  # the same key in another game
    _event("g2", 2, None),
]


def _rows(database: Database) -> list[tuple]:
    with database.engine.connect() as conn:
        found = conn.execute(
            text(
                "SELECT game_id, seq, type, actor, idempotency_key, prev_hash, hash "
                "FROM events ORDER BY game_id, seq"
            )
        )
        return [tuple(row) for row in found]


def _expected() -> list[tuple]:
    return [
        (
            r["game_id"],
            r["seq"],
            r["type"],
            r["actor"],
            r["idempotency_key"],
            r["prev_hash"],
            r["hash"],
        )
        for r in ROWS
    ]


def _guards_hold(database: Database) -> None:
    """A key twice in one game is refused; events without keys are many; no event
    is updated or deleted."""
    with pytest.raises(IntegrityError), database.engine.begin() as conn:
        conn.execute(sa.insert(_EVENTS), [_event("g1", 4, "seat1:k")])
    with database.engine.begin() as conn:
        conn.execute(sa.insert(_EVENTS), [_event("g1", 4, None), _event("g1", 5, None)])
    for statement in ("UPDATE events SET actor = 'mallory'", "DELETE FROM events"):
        with (
            pytest.raises(DatabaseError, match="events are never"),
            database.engine.begin() as conn,
        ):
            conn.execute(text(statement))
    assert len(_rows(database)) == len(ROWS) + 2


def test_the_migration_keeps_every_event_and_its_guards(database_url):
    database = Database(database_url)
    migrate_to(database, BEFORE, "downgrade")
    with database.engine.begin() as conn:
        conn.execute(sa.insert(_EVENTS), ROWS)

    migrate.upgrade(database)

    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
    assert _rows(database) == _expected()
    if database.dialect == "sqlite":
        with database.engine.connect() as conn:
            created = conn.execute(
                text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'")
            ).scalar_one()
        assert created.rstrip().endswith("WITHOUT ROWID")
    _guards_hold(database)
    database.dispose()


def test_the_migration_goes_back_to_the_old_table(database_url):
    database = Database(database_url)
    migrate_to(database, BEFORE, "downgrade")
    with database.engine.begin() as conn:
        conn.execute(sa.insert(_EVENTS), ROWS)
    migrate.upgrade(database)
    migrate_to(database, BEFORE, "downgrade")

    assert migrate.current_revision(database) == BEFORE
    assert _rows(database) == _expected()
    _guards_hold(database)
    if database.dialect == "sqlite":
        with database.engine.connect() as conn:
            created = conn.execute(
                text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'")
            ).scalar_one()
        assert "WITHOUT ROWID" not in created and "UNIQUE (game_id, idempotency_key)" in created
    migrate.upgrade(database)
    assert migrate.differences(database) == []
    database.dispose()
