"""Seat sessions: a browser holds a seat through a random session id in its cookie,
never the seat token itself. The database keeps the id's SHA-256, so neither a
database dump nor a copied cookie outlives "Forget my seat" (the row is deleted),
and a seat handed on (a new token) ends every session of the old one."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, bindparam, delete, exists, insert, select, update

from pbem.store.database import Database
from pbem.store.events import parse_timestamp, timestamp
from pbem.store.tables import Seat, SeatSession, core_table

from .tokens import seat_token, token_hash

SESSIONS, SEATS = core_table(SeatSession), core_table(Seat)
IDLE = timedelta(days=365)  # a session unused this long is over
SEEN_EVERY = timedelta(hours=1)  # last_seen_at is written at most this often
_HELD = (
    select(SESSIONS, SEATS.c.token_nonce, SEATS.c.controller)
    .join(
        SEATS,
        (SEATS.c.game_id == SESSIONS.c.game_id)
        & (SEATS.c.seat == SESSIONS.c.seat)
        & (SEATS.c.token_sha256 == SESSIONS.c.token_sha256),
    )
    .where(SESSIONS.c.id_sha256 == bindparam("id"), SESSIONS.c.game_id == bindparam("g"))
)


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class SeatSessions:
    """Open, resolve and end the seat sessions of browsers."""

    def __init__(self, database: Database, key: bytes, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.key = key
        self.clock = clock

    def open(self, game_id: str, seat: int, token: str) -> str:
        """A new session for the seat `token` opens (checked by the caller); its id."""
        session_id = secrets.token_urlsafe(32)
        now = timestamp(self.clock())
        row = {
            "id_sha256": _digest(session_id),
            "game_id": game_id,
            "seat": seat,
            "token_sha256": token_hash(token),
            "created_at": now,
            "last_seen_at": now,
        }
        with self.db.writing() as conn:
            conn.execute(insert(SESSIONS), row)
        return session_id

    def token(self, game_id: str, session_id: str) -> str | None:
        """The seat token the session holds in this game; None when the session was
        ended, idles too long, or its seat has a new token since."""
        if not session_id or len(session_id) > 100:
            return None
        digest = _digest(session_id)
        with self.db.reading() as conn:
            row = conn.execute(_HELD, {"id": digest, "g": game_id}).first()
        if row is None or row.controller.startswith("bot:"):
            return None
        now = self.clock()
        seen = parse_timestamp(row.last_seen_at)
        if now - seen > IDLE:
            self.end(game_id, session_id)
            return None
        if now - seen > SEEN_EVERY:
            with self.db.writing() as conn:
                conn.execute(
                    update(SESSIONS)
                    .where(SESSIONS.c.id_sha256 == digest)
                    .values(last_seen_at=timestamp(now))
                )
        return seat_token(self.key, game_id, row.seat, row.token_nonce)

    def end(self, game_id: str, session_id: str) -> None:
        """End the session: every copy of its cookie is dead from now on."""
        with self.db.writing() as conn:
            conn.execute(
                delete(SESSIONS).where(
                    SESSIONS.c.id_sha256 == _digest(session_id), SESSIONS.c.game_id == game_id
                )
            )


def prune(conn: Connection, now: datetime) -> int:
    """Delete every session that can no longer open its seat: idle longer than IDLE,
    or of a seat handed on since (a new token), or to a bot, or gone. Returns how
    many went."""
    held = exists().where(
        and_(
            SEATS.c.game_id == SESSIONS.c.game_id,
            SEATS.c.seat == SESSIONS.c.seat,
            SEATS.c.token_sha256 == SESSIONS.c.token_sha256,
            ~SEATS.c.controller.startswith("bot:"),
        )
    )
    idle = SESSIONS.c.last_seen_at < timestamp(now - IDLE)
    gone: int = conn.execute(delete(SESSIONS).where(idle | ~held)).rowcount
    return gone
