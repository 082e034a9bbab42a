"""The read models (games, seats) and checkpoint snapshots as a function of the
events: the service runs each new event through `project`, and `rebuild` runs all of
them, so both write the same rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from pbem.games import Game as Rules
from pbem.games import get

from . import log
from .events import (
    GAME_CREATED,
    SEAT_REPLACED,
    TURN_TIMED_OUT,
    UNDO_ANSWERED,
    UNDO_REQUESTED,
    Envelope,
)
from .states import Folder, checkpoint, initial_state
from .tables import Game, Seat, Snapshot

GAMES, SEATS, SNAPSHOTS = Game.__table__, Seat.__table__, Snapshot.__table__
_HEAD_COLUMNS = (
    "status",
    "turn",
    "round",
    "head_seq",
    "head_hash",
    "updated_at",
    "undo_request_seq",
    "engine_version",
    "state",
)
_UPDATE_HEAD = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("g"))
    .values({name: bindparam(f"v_{name}") for name in _HEAD_COLUMNS})
)
_INSERT_GAME = insert(GAMES)
_INSERT_SEAT = insert(SEATS)
_SEAT = (SEATS.c.game_id == bindparam("g")) & (SEATS.c.seat == bindparam("s"))
_COUNT_TIMEOUT = update(SEATS).where(_SEAT).values(timeouts=SEATS.c.timeouts + 1)


def project(
    conn: Connection,
    rules: Rules,
    event: Envelope,
    state: Any,
    *,
    undo_request: int | None,
    every: int,
) -> dict[str, Any]:
    """Bring the game's rows up to `event`, whose resulting rules state is `state`;
    `undo_request` is the pending undo request before it. Returns the head columns."""
    payload = event.payload
    head = {
        "status": "playing" if rules.to_move(state) is not None else "finished",
        "turn": rules.to_move(state),
        "round": rules.round(state),
        "head_seq": event.seq,
        "head_hash": event.hash,
        "updated_at": event.created_at,
        "undo_request_seq": _undo_request(event, undo_request),
        "engine_version": rules.version,
        "state": rules.dump_state(state),
    }
    if event.type == GAME_CREATED:
        conn.execute(
            _INSERT_GAME,
            {
                "id": event.game_id,
                "game": payload["game"],
                "created_at": event.created_at,
                "deadline_at": None,
                "public": bool(payload["options"].get("public", False)),
                "options": payload["options"],
                **head,
            },
        )
        conn.execute(
            _INSERT_SEAT,
            [
                {
                    "game_id": event.game_id,
                    "seat": p["seat"],
                    "name": p["name"],
                    "email": p.get("email"),
                    "token_sha256": p["token_sha256"],
                    "token_nonce": p["token_nonce"],
                    "controller": p.get("controller", "human"),
                    "timeouts": 0,
                }
                for p in payload["players"]
            ],
        )
    else:
        if event.type == SEAT_REPLACED:
            changes = {
                k: payload[k]
                for k in ("controller", "name", "email", "token_sha256", "token_nonce")
                if k in payload
            }
            conn.execute(
                update(SEATS).where(_SEAT).values(changes),
                {"g": event.game_id, "s": payload["seat"]},
            )
        elif event.type == TURN_TIMED_OUT:
            conn.execute(_COUNT_TIMEOUT, {"g": event.game_id, "s": payload["seat"]})
        conn.execute(_UPDATE_HEAD, {"g": event.game_id, **{f"v_{k}": v for k, v in head.items()}})
    if event.seq % every == 0:
        checkpoint(conn, rules, event.game_id, event.seq, state)
    return head


def _undo_request(event: Envelope, pending: int | None) -> int | None:
    """An undo request waits from its event until any event but an agreement."""
    if event.type == UNDO_REQUESTED:
        return event.seq
    if event.type == UNDO_ANSWERED and event.payload["agree"]:
        return pending
    return None


def rebuild(conn: Connection, every: int) -> int:
    """Drop every read model and snapshot and recreate them from the events alone.
    The outbox is left as it is: recreating it would send every mail again.
    Returns the number of games rebuilt."""
    for table in (SNAPSHOTS, SEATS, GAMES):
        conn.execute(delete(table))
    game_ids = (
        conn.execute(select(log.EVENTS.c.game_id).where(log.EVENTS.c.seq == 1)).scalars().all()
    )
    for game_id in game_ids:
        events = log.events(conn, game_id)
        rules = get(events[0].payload["game"])
        folder = Folder(rules, 1, initial_state(rules, events[0].payload))
        pending = None
        for event in events:
            state = folder.push(event) if event.seq > 1 else folder.state
            pending = project(conn, rules, event, state, undo_request=pending, every=every)[
                "undo_request_seq"
            ]
    return len(game_ids)
