"""A game's hash chain as one viewer may check it (`GET /api/games/<id>/chain`):
every event's seq and commitment, and in full (its fields and salt) each event the
viewer may see whole — by the rules the pages, chat and exports redact with. An
event the viewer may not see whole gives nothing but its commitment, which without
the salt confirms no guess. A version 1 game has no commitments: it answers the
events the viewer may see whole with their hashes, and nothing of the others."""

from __future__ import annotations

from typing import Any

from pbem.events import (
    CHAIN_V2,
    Envelope,
    EventError,
    GameCreated,
    SeatReplaced,
    SpectatorTalk,
    TableTalk,
    commitment,
)
from pbem.games import get
from pbem.store import log

from . import rows, veiled
from .history import PRIVATE, reads, seat_of
from .sealed import hidden_from, sealed_moves
from .unit import Context


def chain_of(ctx: Context, game_id: str, viewer: int | None) -> dict[str, Any]:
    """The chain answer for `viewer` (a seat, or None for a spectator), at the head
    the game's row has in the same transaction."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        rules = get(row.game)
        veils = veiled.veils(conn, rules, game_id, (s.seat for s in rows.seats(conn, game_id)))
        stored = log.as_stored(conn, game_id)
        sealed = sealed_moves(conn, rules, game_id, [e for _, e in stored if e is not None])
    playing = row.status == "playing"
    events = []
    for raw, event in stored:
        whole = event is not None and in_full(event, viewer, playing) and not veils.hides(event)
        whole = whole and not hidden_from(sealed, raw.seq, viewer)
        told: dict[str, Any] = {"seq": raw.seq}
        fields = (raw.seq, raw.type, raw.payload, raw.actor, raw.created_at)
        if row.chain == CHAIN_V2:
            told["commitment"] = commitment(raw.salt or "", *fields)
        if whole:
            told.update(type=raw.type, payload=raw.payload, actor=raw.actor)
            told["created_at"] = raw.created_at
            told.update({"salt": raw.salt} if row.chain == CHAIN_V2 else {"hash": raw.hash})
        events.append(told)
    return {
        "id": game_id,
        "chain": row.chain,
        "viewer": viewer,
        "head_seq": row.head_seq,
        "head_hash": row.head_hash,
        "events": events,
    }


def in_full(event: Envelope, viewer: int | None, playing: bool) -> bool:
    """Whether `viewer` may see `event` whole: not the game's creation (it holds the
    players' addresses and link hashes, and the seed or the deal), nor a seat handed
    to a person (the same of them); a seat's private choice for that seat alone; the
    spectators' chat not for a player while the game is on (their pages never show
    it); a private line of table talk for its sayer and addressees alone. (Nor a
    move an undo veiled, nor a sealed move for another seat: see `chain_of`.)"""
    try:
        typed = event.event
    except EventError:
        return False
    if isinstance(typed, GameCreated):
        return False
    if isinstance(typed, SeatReplaced) and typed.holder is not None:
        return False
    if isinstance(typed, PRIVATE):
        return viewer is not None and seat_of(event) == viewer
    if isinstance(typed, SpectatorTalk) and viewer is not None and playing:
        return False
    return not (isinstance(typed, TableTalk) and not reads(typed, viewer))
