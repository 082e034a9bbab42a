"""Migration 0007 (seat sessions that name their sign-in, sign-out links, link
requests) goes up and down on SQLite and PostgreSQL, and a seat session stored
before it keeps working after it, naming no sign-in."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa

from pbem.service.sessions import SESSIONS, SeatSessions
from pbem.store import migrate
from pbem.store.database import Database

from support import migrate_to, two_players


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _tables(database: Database) -> set[str]:
    return set(sa.inspect(database.engine).get_table_names())


def _columns(database: Database, table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(database.engine).get_columns(table)}


def test_the_migration_goes_down_and_up_and_keeps_the_seat_sessions(database, service, clock):
    created = two_players(service)
    sessions = SeatSessions(database, service.settings.signing_key(), clock)
    migrate_to(database, "0006", "downgrade")
    assert "sign_in_sha256" not in _columns(database, "seat_sessions")
    assert not {"sign_out_links", "link_requests"} & _tables(database)
    old = sa.table("seat_sessions", *(sa.column(c) for c in _columns(database, "seat_sessions")))
    with database.engine.begin() as conn:  # a session of a seat link, stored before 0007
        session_id = "an old session"
        row = {c.name: None for c in old.columns}
        row |= {
            "id_sha256": _digest(session_id),
            "game_id": created.game_id,
            "seat": 1,
            "token_sha256": _digest(created.seats[0].token),
            "created_at": "2026-11-01T12:00:00.000000Z",
            "last_seen_at": "2026-11-01T12:00:00.000000Z",
        }
        conn.execute(sa.insert(old), row)

    migrate.upgrade(database)

    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
    assert {"sign_out_links", "link_requests"} <= _tables(database)
    assert sessions.token(created.game_id, session_id) == created.seats[0].token
    with database.reading() as conn:
        assert conn.execute(sa.select(SESSIONS.c.sign_in_sha256)).scalars().all() == [None]
