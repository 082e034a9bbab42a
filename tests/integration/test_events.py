"""The event log (docs/design.md contract): the hash chain's exact formula, canonical
timestamps, and old payloads upcast on reading (a recorded v1 log)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sqlmodel import col, select

from pbem.events import CHAIN_V1, GENESIS
from pbem.games.mall import apply, parse, setup
from pbem.service import PlayerSpec
from pbem.store import log
from pbem.store.tables import Event

from support import token

RECORDED = Path(__file__).parent / "recorded" / "mall_v1_events.json"


def stored(service, game_id) -> list[Event]:
    with service.db.read() as s:
        return list(
            s.exec(select(Event).where(Event.game_id == game_id).order_by(col(Event.seq))).all()
        )


def test_each_hash_is_sha256_of_the_previous_hash_and_the_canonical_json(service):
    """The version 1 rule, which every game made before version 2 keeps."""
    created = service.create_game(
        [PlayerSpec("Zoë", "zoe@example.com"), PlayerSpec("Ben")],
        setup={"seed": "chain"},
        chain=CHAIN_V1,
    )
    service.submit_action(created.game_id, token(created, 1), "money L", 1)
    rows = stored(service, created.game_id)
    previous = "0" * 64
    for row in rows:
        body = json.dumps(
            {
                "seq": row.seq,
                "type": row.type,
                "payload": row.payload,
                "actor": row.actor,
                "created_at": row.created_at,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        if row.seq == 1:
            assert '"name":"Zoë"' in body  # UTF-8, not \u escapes
        assert row.prev_hash == previous
        assert (
            row.hash == hashlib.sha256(previous.encode("ascii") + body.encode("utf-8")).hexdigest()
        )
        previous = row.hash
    assert [r.seq for r in rows] == [1, 2]
    assert rows[0].prev_hash == GENESIS
    assert all(row.salt is None for row in rows)


def test_a_new_games_hash_links_a_salted_commitment_to_each_event(service):
    """Version 2, every new game's: commitment = SHA-256 of the salt followed by the
    canonical JSON of the fields; hash = SHA-256 of the previous hash followed by
    the canonical JSON of {seq, commitment}. Each salt is fresh, 128 bits or more."""
    created = service.create_game(
        [PlayerSpec("Zoë", "zoe@example.com"), PlayerSpec("Ben")], setup={"seed": "chain"}
    )
    service.submit_action(created.game_id, token(created, 1), "money L", 1)
    rows = stored(service, created.game_id)
    previous = "0" * 64
    for row in rows:
        fields = {
            "seq": row.seq,
            "type": row.type,
            "payload": row.payload,
            "actor": row.actor,
            "created_at": row.created_at,
        }
        body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert len(bytes.fromhex(row.salt)) >= 16
        committed = hashlib.sha256((row.salt + body).encode("utf-8")).hexdigest()
        link = json.dumps({"seq": row.seq, "commitment": committed}, sort_keys=True)
        link = link.replace(" ", "")  # {"commitment":"<hex>","seq":N}
        assert row.prev_hash == previous
        assert row.hash == hashlib.sha256((previous + link).encode("ascii")).hexdigest()
        previous = row.hash
    assert [r.seq for r in rows] == [1, 2]
    assert len({row.salt for row in rows}) == len(rows)
    assert service.state_at(created.game_id)["head_hash"] == rows[-1].hash


def test_events_carry_their_type_version_and_a_canonical_utc_time(service, clock):
    created = service.create_game([PlayerSpec("Ann"), PlayerSpec("Ben")], setup={"seed": "v"})
    clock.advance(minutes=5, microseconds=7)
    service.submit_action(created.game_id, token(created, 1), "money R", 1)
    first, second = stored(service, created.game_id)
    assert (first.type, first.payload["v"], first.created_at) == (
        "GameCreated",
        1,
        "2026-11-01T12:00:00.000000Z",
    )
    assert (second.type, second.payload["v"], second.created_at) == (
        "ActionTaken",
        2,
        "2026-11-01T12:05:00.000007Z",
    )
    assert second.payload["action"] == {"type": "money", "column": "R"}
    assert second.actor == "seat:1"


def test_a_recorded_v1_log_is_upcast_folded_and_verified(service):
    rows = json.loads(RECORDED.read_text(encoding="utf-8"))
    with service.db.write() as s:
        for row in rows:
            s.add(Event(**row))
    assert service.rebuild() == 1
    game_id = rows[0]["game_id"]
    with service.db.read() as s:
        events = log.events(s, game_id)
    assert events[1].payload == {"v": 2, "seat": 1, "action": {"type": "money", "column": "L"}}
    assert events[2].payload["action"] == {"type": "build", "slot": "L1", "x": 1, "y": 2}
    expected = setup(["Zoë", "Ben"], seed="recorded-v1")
    for text in ("money L", "build L1 at 1,2", "money R"):
        expected = apply(expected, parse(text))
    doc = service.state_at(game_id)
    assert doc["seq"] == 4 and doc["turn"] == 2 and doc["round"] == 2
    assert doc["players"][0]["money"] == expected.players[0].money
    assert [t["id"] for t in doc["players"][1]["tiles"]] == [
        t.id for t in expected.players[1].mall.tiles
    ]
    assert service.verify(game_id) == []
    # the stored rows keep their v1 payloads: the chain is over what was written
    assert stored(service, game_id)[1].payload == {"v": 1, "seat": 1, "action": "money L"}
