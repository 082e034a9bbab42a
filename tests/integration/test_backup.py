"""`pbem db backup` and `pbem db restore`: a backup taken in the middle of a game
restores into a fresh database (SQLite and PostgreSQL alike) where the game goes on
to its end with nothing lost and no mail sent twice; a backup of an older schema is
upgraded; a restore that would lose data, or cannot work, is refused in one line and
changes nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from alembic.script import ScriptDirectory
from click.testing import CliRunner
from sqlalchemy import create_engine, select, text, update
from sqlalchemy.engine import make_url

from pbem.cli import main
from pbem.service.delivery import deliver, deliver_due
from pbem.service.outbox import LEASE
from pbem.store import backup as backups
from pbem.store import heartbeats, migrate
from pbem.store.database import Database
from pbem.store.tables import Game, Outbox, Seat, Snapshot, core_table

from support import Kept, free_port, token, two_players

OUTBOX = core_table(Outbox)


@pytest.fixture
def fresh_url(database_url, tmp_path) -> Iterator[str]:
    """A second database of the same kind as `database_url`, empty: no schema at all."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'restored.sqlite3'}"
        return
    base = make_url(database_url)
    name = f"{base.database}_restored"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield base.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def smtp() -> Iterator[Kept]:
    kept = Kept()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    kept.url = f"smtp://127.0.0.1:{server.port}"
    yield kept
    server.stop()


def pbem(url: str, tmp_path, *args: str, expect: int = 0, **env: str) -> str:
    environment = {
        "PBEM_DATABASE_URL": url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
        **env,
    }
    result = CliRunner().invoke(main, list(args), env=environment)
    assert result.exit_code == expect, result.output
    return result.output


def move(parts, created, smtp_parts) -> bool:
    """One move of the seat to move (its first legal action), then every mail due
    delivered; False once the game is over."""
    state = parts.service.state_at(created.game_id)
    if state["turn"] is None:
        return False
    seat = state["turn"]
    action = parts.service.legal(created.game_id, seat)[0]
    parts.service.submit_action(created.game_id, token(created, seat), action, state["seq"])
    deliver_due(smtp_parts.outbox, smtp_parts.channels)
    return True


def read_models(database: Database) -> dict[str, list]:
    tables = [core_table(Game), core_table(Seat), core_table(Snapshot)]
    with database.reading() as conn:
        return {
            t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key)).all()]
            for t in tables
        }


@pytest.mark.slow
def test_a_game_backed_up_halfway_goes_on_after_a_restore_with_no_mail_twice(
    make_parts, clock, database_url, fresh_url, smtp, tmp_path
):
    source = make_parts(clock, database_url=database_url, smtp_url=smtp.url)
    created = two_players(source.service)
    deliver_due(source.outbox, source.channels)
    for _ in range(9):
        clock.advance(minutes=5)
        assert move(source, created, source)
    half = source.service.state_at(created.game_id)
    sent_before = len(smtp.mails)
    assert sent_before >= 10  # invitations and turn mails went out

    backup = tmp_path / "mid-game.backup"
    said = pbem(database_url, tmp_path, "db", "backup", str(backup))
    assert f"to {backup}" in said and "web-secret" not in said
    said = pbem(fresh_url, tmp_path, "db", "restore", str(backup))
    assert said.startswith(f"restored {backup} (revision ")
    assert "upgraded" not in said

    target = make_parts(clock, database_url=fresh_url, smtp_url=smtp.url)
    assert target.service.state_at(created.game_id) == half  # nothing lost
    with target.database.reading() as conn:
        statuses = set(conn.execute(select(OUTBOX.c.status)).scalars())
    assert statuses <= {"sent", "skipped", "held"}  # sent stays sent
    assert deliver_due(target.outbox, target.channels) == 0
    while move(target, created, target):
        clock.advance(minutes=5)
    assert target.service.state_at(created.game_id)["status"] == "finished"
    assert len(smtp.mails) > sent_before

    message_ids = [m["Message-ID"] for m in smtp.mails]
    assert len(message_ids) == len(set(message_ids)), "a mail went twice"
    with target.database.reading() as conn:
        sent = conn.execute(select(OUTBOX.c.delivery_id).where(OUTBOX.c.status == "sent")).all()
    assert sorted(r.delivery_id for r in sent) == sorted(message_ids)
    assert target.service.verify(created.game_id) == []
    stored = read_models(target.database)
    target.service.rebuild()
    assert read_models(target.database) == stored


def test_a_mail_being_sent_during_the_backup_goes_again_with_the_same_message_id(
    make_parts, clock, database_url, fresh_url, smtp, tmp_path
):
    source = make_parts(clock, database_url=database_url, smtp_url=smtp.url)
    two_players(source.service)
    first = source.outbox.take_due()[0]
    claimed = source.outbox.claim(first, channels=source.channels)
    assert claimed is not None and claimed.status == "sending"
    backup = tmp_path / "sending.backup"
    pbem(database_url, tmp_path, "db", "backup", str(backup))
    deliver_due(source.outbox, source.channels)  # the others, before the restore
    pbem(fresh_url, tmp_path, "db", "restore", str(backup))

    target = make_parts(clock, database_url=fresh_url, smtp_url=smtp.url)
    assert target.outbox.status(first) == "sending"
    assert first not in target.outbox.take_due()  # its sender's lease still holds
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert first in target.outbox.take_due()  # the sweep takes it back
    assert deliver(target.outbox, target.channels, first) == "sent"
    assert smtp.mails[-1]["Message-ID"] == claimed.delivery_id


def test_a_backup_of_an_older_schema_is_restored_and_upgraded(database_url, fresh_url, tmp_path):
    old = Database(fresh_url)
    head = migrate.head_revision()
    script = ScriptDirectory.from_config(migrate.alembic_config(old))
    before = script.get_revision(head).down_revision
    migrate.upgrade(old, before)
    backup = tmp_path / "old.backup"
    pbem(fresh_url, tmp_path, "db", "backup", str(backup))
    old.dispose()
    said = pbem(database_url, tmp_path, "db", "restore", "--force", str(backup))
    assert f"the backup was at revision {before}: upgraded to {head}" in said
    restored = Database(database_url)
    assert migrate.current_revision(restored) == head
    restored.dispose()


def test_a_restore_that_would_lose_data_or_cannot_work_is_refused(
    make_parts, clock, database_url, fresh_url, tmp_path
):
    parts = make_parts(clock, database_url=database_url)
    created = two_players(parts.service)
    backup = tmp_path / "one.backup"
    pbem(database_url, tmp_path, "db", "backup", str(backup))
    other = two_players(parts.service)

    said = pbem(database_url, tmp_path, "db", "restore", str(backup), expect=1)
    assert said.count("\n") == 1 and "is not empty" in said and "--force" in said
    assert parts.service.state_at(other.game_id)["seq"] >= 1  # nothing changed

    junk = tmp_path / "junk.backup"
    junk.write_bytes(b"not a backup at all")
    said = pbem(fresh_url, tmp_path, "db", "restore", str(junk), expect=1)
    assert said == f"Error: {junk} is not a backup (neither SQLite nor pg_dump's custom format)\n"
    said = pbem(fresh_url, tmp_path, "db", "restore", str(tmp_path / "missing"), expect=1)
    assert "cannot read" in said

    heartbeats.beat(parts.database, "scheduler", "host:1", clock(), sweep_seconds=30)
    with parts.database.writing() as conn:  # as if it beat a moment ago
        conn.execute(update(heartbeats.HEARTBEATS).values(beat_at="9999-01-01T00:00:00.000000Z"))
    said = pbem(database_url, tmp_path, "db", "restore", "--force", str(backup), expect=1)
    assert "processes are running" in said and "scheduler" in said
    assert parts.service.state_at(other.game_id)["seq"] >= 1

    with parts.database.writing() as conn:
        conn.execute(update(heartbeats.HEARTBEATS).values(beat_at="2000-01-01T00:00:00.000000Z"))
    said = pbem(database_url, tmp_path, "db", "restore", "--force", str(backup))
    assert "restored" in said
    restored = make_parts(clock, database_url=database_url)
    assert [g.id for g in restored.service.games()] == [created.game_id]
    assert heartbeats.beats(restored.database) == []  # the old processes are forgotten


def test_a_backup_restores_only_into_its_own_kind_and_needs_the_tools(database_url, tmp_path):
    if database_url.startswith("sqlite"):
        pg = "postgresql://nobody:secret-word@127.0.0.1:1/none"
        backup = tmp_path / "lite.backup"
        pbem(database_url, tmp_path, "db", "backup", str(backup))
        said = pbem(pg, tmp_path, "db", "restore", str(backup), expect=1)
        assert "is a sqlite backup; the database is postgresql" in said
        return
    said = pbem(
        database_url, tmp_path, "db", "backup", str(tmp_path / "x"), expect=1, PATH="/nowhere"
    )
    assert said.startswith("Error: pg_dump is not installed")
    password = make_url(database_url).password or ""
    wrong = make_url(database_url).set(password="not-the-password" + password)
    shown = wrong.render_as_string(hide_password=False)
    said = pbem(shown, tmp_path, "db", "backup", str(tmp_path / "x"), expect=1)
    assert said.startswith("Error: pg_dump failed") and "not-the-password" not in said
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_a_backup_taken_while_moves_are_written_is_consistent(
    make_parts, clock, database_url, fresh_url, tmp_path
):
    """A writer plays move after move while the backup is taken: the copy holds a
    moment between two transactions (every game's read models agree with its events,
    every chain holds), never half of one."""
    source = make_parts(clock, database_url=database_url)
    tables = [two_players(source.service, {"seed": f"busy {n}"}) for n in range(3)]
    moved = threading.Event()
    stop = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            while not stop.is_set():
                for created in tables:
                    state = source.service.state_at(created.game_id)
                    if state["turn"] is not None:
                        seat = state["turn"]
                        action = source.service.legal(created.game_id, seat)[0]
                        source.service.submit_action(
                            created.game_id, token(created, seat), action, state["seq"]
                        )
                moved.set()
        except BaseException as error:  # seen by the test below
            errors.append(error)
            moved.set()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert moved.wait(60)
        backup = tmp_path / "busy.backup"
        backups.backup(source.database, backup)
        moved.clear()
        assert moved.wait(60)  # the writer went on during and after the backup
    finally:
        stop.set()
        writer.join()
    assert errors == []
    target = Database(fresh_url)
    backups.restore(target, backup)
    target.dispose()
    restored = make_parts(clock, database_url=fresh_url)
    for created in tables:
        assert restored.service.verify(created.game_id) == []
    assert sum(restored.service.state_at(c.game_id)["seq"] for c in tables) < sum(
        source.service.state_at(c.game_id)["seq"] for c in tables
    )


def test_a_backup_and_a_sqlite_database_are_read_by_their_owner_only(
    database_url, fresh_url, tmp_path
):
    """They hold every seat's token hash and every player's address: whatever the
    umask, neither the group nor others read them."""
    import os
    import stat

    old_umask = os.umask(0o022)
    try:
        fresh = Database(fresh_url)
        migrate.upgrade(fresh, "head")
        backup = tmp_path / "kept.backup"
        pbem(fresh_url, tmp_path, "db", "backup", str(backup))
        fresh.dispose()
    finally:
        os.umask(old_umask)
    files = [backup]
    if fresh_url.startswith("sqlite"):
        database = tmp_path / "restored.sqlite3"
        files += [database, *database.parent.glob("restored.sqlite3-*")]
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
