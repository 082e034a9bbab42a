"""Events as stored forever (DESIGN.md contract): the typed events and their codec
(`kinds`, `codec`), the envelope an event is read back in, and the hash chain. The
type names live here and nowhere else: the rest of the server uses the classes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from .codec import (
    UPCASTERS,
    EventError,
    Upcaster,
    canonical_json,
    decode,
    encode,
    read,
    stored_payload,
    upcast,
    upcaster,
)
from .kinds import (
    ACTION_TAKEN,
    BY_TYPE,
    EVENT_TYPES,
    GAME_CREATED,
    LANGUAGE_CHOSEN,
    MAIL_CHOICES,
    MAIL_PREFERENCE,
    MAIL_TOPICS,
    MOVE_TYPES,
    MOVES,
    SEAT_REPLACED,
    SPECTATOR_TALK,
    TABLE_TALK,
    TALK,
    TURN_TIMED_OUT,
    UNDO_ANSWERED,
    UNDO_DONE,
    UNDO_LAPSED,
    UNDO_REQUESTED,
    VACATION,
    VERSIONS,
    ActionTaken,
    Event,
    GameCreated,
    Holder,
    LanguageChosen,
    MailPreferenceChanged,
    Move,
    Player,
    SeatReplaced,
    SpectatorTalk,
    TableTalk,
    TurnTimedOut,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    VacationStarted,
    mail_choices,
    mail_column,
)

GENESIS = "0" * 64


@dataclass(frozen=True)
class Envelope:
    """An event as read back: payload upcast to the current version, and the typed
    event it stores (`event`, decoded on first use and kept)."""

    game_id: str
    seq: int
    type: str
    payload: dict[str, Any]
    actor: str
    created_at: str
    idempotency_key: str | None
    prev_hash: str
    hash: str

    @cached_property
    def event(self) -> Event:
        """The typed event; raises EventError naming the game and seq when the
        payload is not one this server can read."""
        try:
            return decode(self.type, self.payload)
        except EventError as error:
            raise EventError(f"game {self.game_id} seq {self.seq}: {error}") from None


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
    utc = moment.astimezone(UTC)
    if utc.year < 1000:  # strftime writes such a year without its leading zeros
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # the same text as the strftime above, written five times faster
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def moves_in_force(events: list[Envelope]) -> list[Envelope]:
    """The moves (actions and timeouts) that count after every undo in `events`:
    an UndoDone takes back every move after its `back_to`."""
    moves: list[Envelope] = []
    for envelope in events:
        if envelope.type not in MOVES and envelope.type != UNDO_DONE:
            continue  # not decoded: nothing else changes which moves count
        event = envelope.event
        if isinstance(event, MOVE_TYPES):
            moves.append(envelope)
        elif isinstance(event, UndoDone):
            moves = [m for m in moves if m.seq <= event.back_to]
    return moves


__all__ = [
    "ACTION_TAKEN",
    "BY_TYPE",
    "EVENT_TYPES",
    "GAME_CREATED",
    "GENESIS",
    "LANGUAGE_CHOSEN",
    "MAIL_CHOICES",
    "MAIL_PREFERENCE",
    "MAIL_TOPICS",
    "MOVES",
    "MOVE_TYPES",
    "SEAT_REPLACED",
    "SPECTATOR_TALK",
    "TABLE_TALK",
    "TALK",
    "TURN_TIMED_OUT",
    "UNDO_ANSWERED",
    "UNDO_DONE",
    "UNDO_LAPSED",
    "UNDO_REQUESTED",
    "UPCASTERS",
    "VACATION",
    "VERSIONS",
    "ActionTaken",
    "Envelope",
    "Event",
    "EventError",
    "GameCreated",
    "Holder",
    "LanguageChosen",
    "MailPreferenceChanged",
    "Move",
    "Player",
    "SeatReplaced",
    "SpectatorTalk",
    "TableTalk",
    "TurnTimedOut",
    "UndoAnswered",
    "UndoDone",
    "UndoLapsed",
    "UndoRequested",
    "Upcaster",
    "VacationStarted",
    "canonical_json",
    "decode",
    "encode",
    "event_hash",
    "mail_choices",
    "mail_column",
    "moves_in_force",
    "parse_timestamp",
    "read",
    "stored_payload",
    "timestamp",
    "upcast",
    "upcaster",
]
