"""Events as stored forever (docs/design.md contract): the typed events and their codec
(`kinds`, `codec`), the envelope an event is read back in, and the hash chain. The
type names live here and nowhere else: the rest of the server uses the classes."""

from __future__ import annotations

import hashlib
import secrets
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
    REMATCH_TYPES,
    RESOLVED,
    SEAT_REPLACED,
    SEAT_RESIGNED,
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
    Resolved,
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
from .table import (
    RematchAccepted,
    RematchClosed,
    RematchOffered,
    RematchStarted,
    SeatResigned,
)

GENESIS = "0" * 64
# The hash chain's rule, per game (docs/design.md contract): version 1 hashes each event's
# fields themselves; version 2 (every game created since) hashes a salted commitment
# to them, so that the public hashes confirm no guess about a hidden event.
CHAIN_V1 = 1
CHAIN_V2 = 2
CHAIN = CHAIN_V2  # the version of a new game's chain
SALT_BYTES = 16  # 128 random bits per event, written as 32 hex digits


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
    salt: str | None = None  # a version 2 chain's salt (None in version 1)

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


def new_salt() -> str:
    """A fresh salt for one event of a version 2 chain: SALT_BYTES from `secrets`."""
    return secrets.token_hex(SALT_BYTES)


def commitment(
    salt: str, seq: int, type: str, payload: dict[str, Any], actor: str, created_at: str
) -> str:
    """Version 2: SHA-256 of the ASCII salt followed by the UTF-8 canonical JSON of
    {seq, type, payload, actor, created_at}. Without the salt it confirms no guess."""
    body = canonical_json(
        {"seq": seq, "type": type, "payload": payload, "actor": actor, "created_at": created_at}
    )
    return hashlib.sha256(salt.encode("ascii") + body.encode("utf-8")).hexdigest()


def link_hash(prev_hash: str, seq: int, commitment: str) -> str:
    """Version 2: SHA-256 of the ASCII previous hash followed by the UTF-8 canonical
    JSON of {seq, commitment}."""
    body = canonical_json({"commitment": commitment, "seq": seq})
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def chain_hash(
    prev_hash: str,
    seq: int,
    type: str,
    payload: dict[str, Any],
    actor: str,
    created_at: str,
    salt: str | None,
) -> str:
    """An event's hash by its chain's rule: version 2 when it has a salt, else 1."""
    if salt is None:
        return event_hash(prev_hash, seq, type, payload, actor, created_at)
    return link_hash(prev_hash, seq, commitment(salt, seq, type, payload, actor, created_at))


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
    """The moves (actions, timeouts and the game's own resolutions) that count after
    every undo in `events`: an UndoDone takes back every move after its `back_to`."""
    moves: list[Envelope] = []
    for envelope in events:
        if envelope.type not in MOVES and envelope.type != UNDO_DONE:
            continue  # not decoded: nothing else changes which moves count
        event = envelope.event
        if isinstance(event, (*MOVE_TYPES, Resolved)):
            moves.append(envelope)
        elif isinstance(event, UndoDone):
            moves = [m for m in moves if m.seq <= event.back_to]
    return moves


__all__ = [
    "ACTION_TAKEN",
    "BY_TYPE",
    "CHAIN",
    "CHAIN_V1",
    "CHAIN_V2",
    "EVENT_TYPES",
    "GAME_CREATED",
    "GENESIS",
    "LANGUAGE_CHOSEN",
    "MAIL_CHOICES",
    "MAIL_PREFERENCE",
    "MAIL_TOPICS",
    "MOVES",
    "MOVE_TYPES",
    "REMATCH_TYPES",
    "RESOLVED",
    "SALT_BYTES",
    "SEAT_REPLACED",
    "SEAT_RESIGNED",
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
    "RematchAccepted",
    "RematchClosed",
    "RematchOffered",
    "RematchStarted",
    "Resolved",
    "SeatReplaced",
    "SeatResigned",
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
    "chain_hash",
    "commitment",
    "decode",
    "encode",
    "event_hash",
    "link_hash",
    "mail_choices",
    "mail_column",
    "moves_in_force",
    "new_salt",
    "parse_timestamp",
    "read",
    "stored_payload",
    "timestamp",
    "upcast",
    "upcaster",
]
