"""Derived tables are a cache of the events: drop every read model and snapshot and
the rebuild recreates them identically; a tampered event is caught by verify."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import col, delete, select, update

from pbem.service import PlayerSpec
from pbem.store.tables import Event, Game, Seat, Snapshot

from support import token, two_players


def derived_rows(service) -> dict[str, list]:
    with service.db.read() as s:
        return {
            "games": [g.model_dump() for g in s.exec(select(Game).order_by(Game.id)).all()],
            "seats": [
                x.model_dump() for x in s.exec(select(Seat).order_by(Seat.game_id, Seat.seat)).all()
            ],
            "snapshots": [
                x.model_dump()
                for x in s.exec(select(Snapshot).order_by(Snapshot.game_id, Snapshot.seq)).all()
            ],
        }


def test_dropping_every_read_model_and_snapshot_then_rebuilding_gives_identical_rows(service):
    first = two_players(service, {"seed": "rebuild"})
    for _ in range(11):
        doc = service.state_at(first.game_id)
        action = service.legal(first.game_id, doc["turn"])[0]
        service.submit_action(first.game_id, token(first, doc["turn"]), action, doc["seq"])
    doc = service.state_at(first.game_id)
    service.time_out(first.game_id, doc["turn"], doc["seq"])
    service.replace_seat(first.game_id, 2, "bot")
    second = service.create_game([PlayerSpec("X"), PlayerSpec("Y")], None, {"pile": 9}, game="nim")
    service.submit_action(second.game_id, token(second, 1), "take 2", 1)
    service.undo(second.game_id, token(second, 1))
    before = derived_rows(service)
    assert [s["seq"] for s in before["snapshots"]] == [5, 10]  # checkpoints every 5 events
    with service.db.write() as s:
        for table in (Snapshot, Seat, Game):
            s.exec(delete(table))
    assert derived_rows(service) == {"games": [], "seats": [], "snapshots": []}
    assert service.rebuild() == 2
    assert derived_rows(service) == before


def test_verify_catches_one_tampered_event(service, database_url):
    created = two_players(service, {"seed": "tamper"})
    for seq, action in ((1, "money L"), (2, "money R"), (3, "money L")):
        seat = 1 if seq % 2 else 2
        service.submit_action(created.game_id, token(created, seat), action, seq)
    assert service.verify(created.game_id) == []
    with service.db.write() as s:  # someone with database access changes history
        connection = s.connection()
        if database_url.startswith("sqlite"):
            connection.execute(text("DROP TRIGGER events_no_update"))
        else:
            connection.execute(text("ALTER TABLE events DISABLE TRIGGER events_immutable"))
        forged = {"v": 2, "seat": 2, "action": {"type": "money", "column": "L"}}
        s.exec(
            update(Event)
            .where(col(Event.game_id) == created.game_id, col(Event.seq) == 3)
            .values(payload=forged)
        )
    # the forged move folds, so the head state kept in the games row is no longer
    # the state the (forged) events give: both are reported
    assert service.verify(created.game_id) == [
        "seq 3: the stored hash does not match its contents",
        "games row: state is not what the events give",
    ]
