"""Events as stored forever (DESIGN.md contract): their types and versions, the
upcasters that turn old payloads into current ones, and the hash chain."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pbem.games import get as get_game

GENESIS = "0" * 64

GAME_CREATED = "GameCreated"
ACTION_TAKEN = "ActionTaken"
TURN_TIMED_OUT = "TurnTimedOut"
SEAT_REPLACED = "SeatReplaced"
UNDO_REQUESTED = "UndoRequested"
UNDO_ANSWERED = "UndoAnswered"
UNDO_DONE = "UndoDone"
UNDO_LAPSED = "UndoLapsed"
MAIL_PREFERENCE = "MailPreferenceChanged"
VACATION = "VacationStarted"

# The version each type is written at today. Payloads carry it as "v".
VERSIONS = {
    GAME_CREATED: 1,
    ACTION_TAKEN: 2,
    TURN_TIMED_OUT: 1,
    SEAT_REPLACED: 1,
    UNDO_REQUESTED: 1,
    UNDO_ANSWERED: 1,
    UNDO_DONE: 1,
    UNDO_LAPSED: 1,
    MAIL_PREFERENCE: 1,
    VACATION: 1,
}
MOVES = (ACTION_TAKEN, TURN_TIMED_OUT)  # the events the rules fold


@dataclass(frozen=True)
class Envelope:
    """An event as read back: payload upcast to the current version."""

    game_id: str
    seq: int
    type: str
    payload: dict[str, Any]
    actor: str
    created_at: str
    idempotency_key: str | None
    prev_hash: str
    hash: str


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_hash(
    prev_hash: str, seq: int, type: str, payload: dict[str, Any], actor: str, created_at: str
) -> str:
    """SHA-256 of the ASCII previous hash followed by the UTF-8 canonical JSON of
    {seq, type, payload, actor, created_at}."""
    body = canonical_json(
        {"seq": seq, "type": type, "payload": payload, "actor": actor, "created_at": created_at}
    )
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def timestamp(moment: datetime) -> str:
    """Canonical text of a moment: UTC, microseconds, a Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


# -- upcasting ------------------------------------------------------------------------

Upcaster = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(type: str, version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the function that turns a `type` payload of `version` into the next."""

    def register(function: Upcaster) -> Upcaster:
        UPCASTERS[(type, version)] = function
        return function

    return register


def upcast(type: str, payload: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """`payload` brought to the current version of its type, one step at a time.
    `created` is the game's GameCreated payload (an upcaster may need the game)."""
    version = payload.get("v", 1)
    current = VERSIONS.get(type)
    if current is None:
        raise ValueError(f"unknown event type {type!r}")
    while version < current:
        step = UPCASTERS.get((type, version))
        if step is None:
            raise ValueError(f"no upcaster for {type} v{version}")
        payload = step(payload, created)
        version = payload["v"]
    if version > current:
        raise ValueError(f"{type} v{version} is newer than this server (v{current})")
    return payload


@upcaster(ACTION_TAKEN, 1)
def _action_text_to_json(payload: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """ActionTaken v1 stored the action as notation text; v2 stores its JSON form."""
    game = get_game(created["game"])
    return {"v": 2, "seat": payload["seat"], "action": game.to_json(game.parse(payload["action"]))}


# -- which moves count ----------------------------------------------------------------


def moves_in_force(events: list[Envelope]) -> list[Envelope]:
    """The moves (actions and timeouts) that count after every undo in `events`:
    an UndoDone takes back every move after its `back_to`."""
    moves: list[Envelope] = []
    for event in events:
        if event.type in MOVES:
            moves.append(event)
        elif event.type == UNDO_DONE:
            moves = [m for m in moves if m.seq <= event.payload["back_to"]]
    return moves
