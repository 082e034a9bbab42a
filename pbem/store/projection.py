"""The read models (games, seats) as a function of the events: the service runs each
new event through `project`, and `rebuild` runs all of them, so both give the same
rows."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, delete, select

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
from .states import Folder, initial_state, keep_snapshot
from .tables import Event, Game, Seat, Snapshot


def project(session: Session, rules: Rules, event: Envelope, state: Any) -> Game:
    """Bring the game's rows up to `event`, whose resulting rules state is `state`."""
    payload = event.payload
    if event.type == GAME_CREATED:
        game = Game(
            id=event.game_id,
            game=payload["game"],
            status="playing",
            round=1,
            head_seq=0,
            head_hash="",
            created_at=event.created_at,
            updated_at=event.created_at,
            public=bool(payload["options"].get("public", False)),
            options=payload["options"],
        )
        session.add(game)
        for player in payload["players"]:
            session.add(
                Seat(
                    game_id=event.game_id,
                    seat=player["seat"],
                    name=player["name"],
                    email=player.get("email"),
                    token_sha256=player["token_sha256"],
                    token_nonce=player["token_nonce"],
                    controller=player.get("controller", "human"),
                )
            )
    else:
        game = session.get(Game, event.game_id)
    if event.type == SEAT_REPLACED:
        seat = session.get(Seat, (event.game_id, payload["seat"]))
        seat.controller = payload["controller"]
        if "name" in payload:
            seat.name = payload["name"]
        if "email" in payload:
            seat.email = payload["email"]
        if "token_sha256" in payload:
            seat.token_sha256 = payload["token_sha256"]
            seat.token_nonce = payload["token_nonce"]
        session.add(seat)
    elif event.type == TURN_TIMED_OUT:
        seat = session.get(Seat, (event.game_id, payload["seat"]))
        seat.timeouts += 1
        session.add(seat)

    if event.type == UNDO_REQUESTED:
        game.undo_request_seq = event.seq
    elif event.type != UNDO_ANSWERED or not payload["agree"]:
        game.undo_request_seq = None
    turn = rules.to_move(state)
    game.status = "playing" if turn is not None else "finished"
    game.turn = turn
    game.round = rules.round(state)
    game.head_seq = event.seq
    game.head_hash = event.hash
    game.updated_at = event.created_at
    session.add(game)
    return game


def rebuild(session: Session, snapshot_every: int) -> int:
    """Drop every read model and snapshot and recreate them from the events alone.
    The outbox is left as it is: recreating it would send every mail again.
    Returns the number of games rebuilt."""
    session.exec(delete(Snapshot))
    session.exec(delete(Seat))
    session.exec(delete(Game))
    session.flush()
    game_ids = session.exec(select(Event.game_id).where(Event.seq == 1)).all()
    for game_id in game_ids:
        events = log.events(session, game_id)
        rules = get(events[0].payload["game"])
        folder = Folder(rules, 1, initial_state(rules, events[0].payload))
        for event in events:
            state = folder.push(event)
            project(session, rules, event, state)
            session.flush()
            keep_snapshot(session, rules, game_id, event.seq, state, snapshot_every)
            session.flush()
    return len(game_ids)
