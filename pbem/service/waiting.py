"""How many games wait on a browser's move: one query over the seat sessions its
cookie holds, for the count every page shows in its title and header (the same
count as My games': games in play whose seat to move is the session's seat)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import datetime

from sqlalchemy import func, select

from pbem.events import timestamp
from pbem.store.database import Database
from pbem.store.tables import Game, Seat, SeatSession, core_table

from .sessions import IDLE, sign_in_alive

SESSIONS, SEATS, GAMES = core_table(SeatSession), core_table(Seat), core_table(Game)
MOST = 400  # a cookie holds at most this many sessions worth counting


def waiting(database: Database, clock: Callable[[], datetime], held: Mapping[str, str]) -> int:
    """How many of the games in `held` (game: seat session id, as a cookie holds
    them) are in play with the session's seat to move; a session that was ended,
    idles too long, whose sign-in ended or whose seat was handed on counts nothing,
    nor does a seat a bot plays. Reads only, in one query."""
    pairs = [
        (game_id, hashlib.sha256(session_id.encode("utf-8")).hexdigest())
        for game_id, session_id in list(held.items())[:MOST]
        if isinstance(game_id, str)
        and isinstance(session_id, str)
        and 0 < len(session_id) <= 100
        and len(game_id) <= 32
    ]
    if not pairs:
        return 0
    now = clock()
    query = (
        select(func.count())
        .select_from(SESSIONS)
        .join(
            SEATS,
            (SEATS.c.game_id == SESSIONS.c.game_id)
            & (SEATS.c.seat == SESSIONS.c.seat)
            & (SEATS.c.token_sha256 == SESSIONS.c.token_sha256),
        )
        .join(GAMES, GAMES.c.id == SESSIONS.c.game_id)
        .where(
            SESSIONS.c.id_sha256.in_([digest for _game, digest in pairs]),
            SESSIONS.c.game_id.in_([game_id for game_id, _digest in pairs]),
            SESSIONS.c.last_seen_at > timestamp(now - IDLE),
            sign_in_alive(now),
            SEATS.c.controller == "human",
            GAMES.c.status == "playing",
            SEATS.c.waiting.is_(True),
        )
    )
    with database.reading() as conn:
        found = conn.execute(query).scalar_one()
    return int(found)
