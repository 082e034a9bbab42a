"""The schema: Alembic migrations create what the models declare, on SQLite and
PostgreSQL, and the database itself refuses to change or delete an event."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError, IntegrityError

from pbem.events import event_hash
from pbem.service import rows as rows_module
from pbem.store import migrate
from pbem.store.database import Database

from support import migrate_to, two_players

ROOT = Path(__file__).resolve().parents[2]


def test_the_migrations_create_exactly_what_the_models_declare(database):
    assert migrate.differences(database) == []
    assert migrate.current_revision(database) == "0020"


def test_upgrading_an_up_to_date_database_changes_nothing(database):
    migrate.upgrade(database)
    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []


def test_a_database_that_is_not_migrated_is_refused_with_the_command_to_run(tmp_path):
    empty = Database(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    with pytest.raises(migrate.OutOfDate, match="run `pbem db upgrade`"):
        migrate.require_current(empty)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET actor = 'mallory' WHERE seq = 1",
        "DELETE FROM events WHERE seq = 1",
    ],
)
def test_the_database_refuses_to_update_or_delete_an_event(service, statement):
    two_players(service)
    with pytest.raises(DatabaseError, match="events are never"), service.db.write() as s:
        s.connection().execute(text(statement))


def test_the_developers_alembic_config_works_from_any_folder(tmp_path):
    heads = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", ROOT / "alembic.ini", "heads"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PBEM_INSTANCE_DIR": str(tmp_path)},
    )
    assert heads.returncode == 0, heads.stderr
    assert heads.stdout.split() == ["0020", "(head)"]


# -- 0003: the outbox keyed by channel and address -------------------------------------

_OLD_OUTBOX = sa.table(
    "outbox",
    sa.column("game_id", sa.String()),
    sa.column("seq", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("seat", sa.Integer()),
    sa.column("to_address", sa.String()),
    sa.column("payload", sa.JSON()),
    sa.column("status", sa.String()),
    sa.column("attempts", sa.Integer()),
    sa.column("next_attempt_at", sa.String()),
    sa.column("message_id", sa.String()),
    sa.column("created_at", sa.String()),
)
_AT = "2026-01-01T00:00:00.000000Z"


def _old_row(kind: str, to: str, payload: dict, message_id: str | None, game="g1", seat=1):
    return {
        "game_id": game,
        "seq": None if game is None else 3,
        "kind": kind,
        "seat": seat,
        "to_address": to,
        "payload": payload,
        "status": "sent" if message_id else "pending",
        "attempts": 1 if message_id else 0,
        "next_attempt_at": _AT,
        "message_id": message_id,
        "created_at": _AT,
    }


def _outbox(database: Database) -> list[tuple]:
    with database.engine.connect() as conn:
        found = conn.execute(text("SELECT * FROM outbox ORDER BY id")).mappings().all()
    # raw SQL: SQLite gives the JSON column as its text
    return [
        {**row, "payload": json.loads(p) if isinstance(p := row["payload"], str) else p}
        for row in found
    ]


def test_the_outbox_migration_keeps_every_mail_as_an_email_row_and_reminders_by_their_hours(
    database_url,
):
    database = Database(database_url)
    migrate_to(database, "0002", "downgrade")
    with database.engine.begin() as conn:
        conn.execute(
            sa.insert(_OLD_OUTBOX),
            [
                _old_row("invitation", "ann@example.com", {"holder": "h"}, "<a@mall.example>"),
                _old_row("reminder-24", "ann@example.com", {"hours": 24}, None),
                _old_row("reminder-2.5", "ann@example.com", {"hours": 2.5}, None),
                _old_row("digest", "Ben@Example.com", {"seats": [["g1", 2]]}, None, None, None),
            ],
        )

    migrate.upgrade(database)

    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
    rows = _outbox(database)
    assert [
        (r["channel"], r["kind"], r["topic"], r["address"], r["delivery_id"], r["payload"])
        for r in rows
    ] == [
        ("email", "invitation", "", "ann@example.com", "<a@mall.example>", {"holder": "h"}),
        ("email", "reminder", "24", "ann@example.com", None, {"hours": 24}),
        ("email", "reminder", "2.5", "ann@example.com", None, {"hours": 2.5}),
        ("email", "digest", "", "Ben@Example.com", None, {"seats": [["g1", 2]]}),
    ]
    assert "to_address" not in rows[0] and "message_id" not in rows[0]
    # the new key still tells the two reminders of one turn apart, and a third
    # reminder of the same hours is the same notice: it is found, and refused twice
    again = rows_module.new_mail("g1", 3, "reminder", 1, "ann@example.com", {"hours": 24}, _AT)
    other = rows_module.new_mail("g1", 3, "reminder", 1, "ann@example.com", {"hours": 1}, _AT)
    with database.engine.begin() as conn:
        assert rows_module.mail_exists(conn, again)
        assert not rows_module.mail_exists(conn, other)
        rows_module.add_mails(conn, [other])
    with pytest.raises(IntegrityError), database.engine.begin() as conn:
        rows_module.add_mails(conn, [again])
    database.dispose()


def test_the_outbox_migration_goes_back_to_the_old_shape(database_url):
    database = Database(database_url)
    migrate_to(database, "0002", "downgrade")
    with database.engine.begin() as conn:
        conn.execute(
            sa.insert(_OLD_OUTBOX),
            [
                _old_row("your_turn", "ann@example.com", {}, "<t@mall.example>"),
                _old_row("reminder-24", "ann@example.com", {"hours": 24}, None),
            ],
        )
    migrate.upgrade(database)
    migrate_to(database, "0002", "downgrade")
    rows = _outbox(database)
    assert [(r["kind"], r["to_address"], r["message_id"]) for r in rows] == [
        ("your_turn", "ann@example.com", "<t@mall.example>"),
        ("reminder-24", "ann@example.com", None),
    ]
    migrate.upgrade(database)
    assert migrate.differences(database) == []
    database.dispose()


# -- 0009: the salts of version 2 hash chains --------------------------------------------


def test_migration_0009_keeps_every_older_game_a_version_1_chain_that_verifies(service):
    """A game made before the upgrade has no salts and keeps version 1: its hashes
    are what they were and verify as before; the event guards still hold."""
    database = service.db
    migrate_to(database, "0008", "downgrade")
    with database.engine.begin() as conn:
        columns = [sa.column(c, sa.JSON() if c == "payload" else None) for c in _OLD_EVENT]
        conn.execute(sa.insert(sa.table("events", *columns)), _old_game())
    migrate.upgrade(database)
    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
    service.rebuild()
    with database.reading() as conn:
        chain = conn.execute(text("SELECT chain FROM games WHERE id = 'old'")).scalar()
        salts = conn.execute(text("SELECT salt FROM events WHERE game_id = 'old'")).all()
    assert chain == 1 and salts == [(None,)]
    assert service.verify("old") == []
    with pytest.raises(DatabaseError, match="events are never"), database.write() as s:
        s.connection().execute(text("UPDATE events SET salt = 'x'"))


_OLD_EVENT = ("game_id", "seq", "type", "payload", "actor", "created_at", "prev_hash", "hash")


def _old_game() -> list[dict]:
    """A nim game's GameCreated as a server before version 2 stored it."""
    players = [
        {"seat": s, "name": n, "token_sha256": f"{s:064d}", "token_nonce": "n"}
        for s, n in ((1, "Ann"), (2, "Ben"))
    ]
    payload = {
        "v": 1,
        "game_id": "old",
        "game": "nim",
        "content": "nim",
        "engine_version": "1",
        "players": players,
        "options": {},
        "setup": {"pile": 5},
        "seed_sha256": None,
    }
    at = "2026-01-01T00:00:00.000000Z"
    digest = event_hash("0" * 64, 1, "GameCreated", payload, "admin", at)
    row = ("old", 1, "GameCreated", payload, "admin", at, "0" * 64, digest)
    return [dict(zip(_OLD_EVENT, row, strict=True))]
