"""Seat sessions: a browser holds a seat through a random session id in its cookie,
never the seat token itself. The database keeps the id's SHA-256, so neither a
database dump nor a copied cookie outlives "Forget my seat" (the row is deleted),
and a seat handed on (a new token) ends every session of the old one.

A session that a sign-in opened names the sign-in and lives only as long as it does
(signed out, signed out everywhere, or its SIGNED_IN time over). A sign-in opens at
most one session per game: its id is derived from the sign-in's own session id and
the game (an HMAC under the server's key), so asking again, from any copy of the
cookie and at the same moment, finds the same row (the database's unique key on
sign-in and game decides a race), and at most MAX_PER_SIGN_IN of them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import (
    ColumnElement,
    Connection,
    and_,
    bindparam,
    delete,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from pbem.events import parse_timestamp, timestamp
from pbem.store.database import Database
from pbem.store.tables import Seat, SeatSession, SignIn, core_table

from .tokens import seat_token, token_hash

SESSIONS, SEATS, SIGN_INS = core_table(SeatSession), core_table(Seat), core_table(SignIn)
IDLE = timedelta(days=365)  # a session unused this long is over
SEEN_EVERY = timedelta(hours=1)  # last_seen_at is written at most this often
SIGNED_IN = timedelta(days=30)  # a browser stays signed in this long
# The most seat sessions one sign-in opens (the address's newest games first): the
# address's games bound them already; this bounds a sign-in whatever happens to them.
MAX_PER_SIGN_IN = 200
_HELD = (
    select(
        SESSIONS,
        SEATS.c.token_nonce,
        SEATS.c.controller,
        SIGN_INS.c.used_at.label("signed_in_at"),
    )
    .join(
        SEATS,
        (SEATS.c.game_id == SESSIONS.c.game_id)
        & (SEATS.c.seat == SESSIONS.c.seat)
        & (SEATS.c.token_sha256 == SESSIONS.c.token_sha256),
    )
    .outerjoin(SIGN_INS, SIGN_INS.c.id_sha256 == SESSIONS.c.sign_in_sha256)
    .where(SESSIONS.c.id_sha256 == bindparam("id"), SESSIONS.c.game_id == bindparam("g"))
)


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


def sign_in_alive(now: datetime) -> ColumnElement[bool]:
    """Whether a seat session's sign-in (if it has one) still holds: it was not
    opened by a sign-in, or its sign-in is in use and its SIGNED_IN time not over."""
    alive = exists().where(
        SIGN_INS.c.id_sha256 == SESSIONS.c.sign_in_sha256,
        SIGN_INS.c.used_at > timestamp(now - SIGNED_IN),
    )
    return or_(SESSIONS.c.sign_in_sha256.is_(None), alive)


def end_opened_by(conn: Connection, sign_ins: object) -> int:
    """Delete the seat sessions the sign-ins named by `sign_ins` (a SELECT of their
    id_sha256) opened; how many went."""
    gone: int = conn.execute(
        delete(SESSIONS).where(SESSIONS.c.sign_in_sha256.in_(sign_ins))  # type: ignore[arg-type]
    ).rowcount
    return gone


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
            "sign_in_sha256": None,
        }
        with self.db.writing() as conn:
            conn.execute(insert(SESSIONS), row)
        return session_id

    def signed_in_id(self, sign_in_session: str, game_id: str) -> str:
        """The id of the seat session a sign-in (by its browser's session id) has in
        a game: the same every time it is asked for."""
        mac = hmac.new(
            self.key, f"seat session|{sign_in_session}|{game_id}".encode(), hashlib.sha256
        ).digest()
        return base64.urlsafe_b64encode(mac[:30]).decode("ascii")

    def open_signed_in(
        self, sign_in: str, sign_in_session: str, seats: Sequence[tuple[str, int, str]]
    ) -> dict[str, str]:
        """The sign-in's session (game: session id) in each game of `seats` (game,
        seat, token: the address's, newest last), opening those it lacks, at most
        MAX_PER_SIGN_IN in all (the newest games). Idempotent and race-safe: a game
        it has a session in gets no second one, however often and at once it asks."""
        chosen = list(seats)[-MAX_PER_SIGN_IN:]
        ids = {game_id: self.signed_in_id(sign_in_session, game_id) for game_id, _, _ in chosen}
        with self.db.reading() as conn:
            have = set(
                conn.execute(
                    select(SESSIONS.c.game_id).where(SESSIONS.c.sign_in_sha256 == sign_in)
                ).scalars()
            )
        missing = [s for s in chosen if s[0] not in have][: max(0, MAX_PER_SIGN_IN - len(have))]
        if missing:
            now = timestamp(self.clock())
            new = [
                {
                    "id_sha256": _digest(ids[game_id]),
                    "game_id": game_id,
                    "seat": seat,
                    "token_sha256": token_hash(token),
                    "created_at": now,
                    "last_seen_at": now,
                    "sign_in_sha256": sign_in,
                }
                for game_id, seat, token in missing
            ]
            with self.db.writing() as conn:
                conn.execute(_insert_new(conn), new)
                have |= set(
                    conn.execute(
                        select(SESSIONS.c.game_id).where(SESSIONS.c.sign_in_sha256 == sign_in)
                    ).scalars()
                )
        return {game_id: session_id for game_id, session_id in ids.items() if game_id in have}

    def token(self, game_id: str, session_id: str) -> str | None:
        """The seat token the session holds in this game; None when the session was
        ended, idles too long, its sign-in ended, or its seat has a new token since."""
        if not session_id or len(session_id) > 100:
            return None
        digest = _digest(session_id)
        with self.db.reading() as conn:
            row = conn.execute(_HELD, {"id": digest, "g": game_id}).first()
        if row is None or row.controller.startswith("bot:"):
            return None
        now = self.clock()
        seen = parse_timestamp(row.last_seen_at)
        signed_in = row.signed_in_at and now - parse_timestamp(row.signed_in_at) <= SIGNED_IN
        if now - seen > IDLE or (row.sign_in_sha256 is not None and not signed_in):
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


def _insert_new(conn: Connection) -> Insert:
    """An INSERT of seat sessions that leaves out, rather than fails on, a row whose
    id or (sign-in, game) another request has written meanwhile."""
    if conn.dialect.name == "postgresql":
        return postgresql.insert(SESSIONS).on_conflict_do_nothing()
    return sqlite.insert(SESSIONS).on_conflict_do_nothing()


def prune(conn: Connection, now: datetime) -> int:
    """Delete every session that can no longer open its seat: idle longer than IDLE,
    of a seat handed on since (a new token), or to a bot, or gone, or opened by a
    sign-in that has ended. Returns how many went."""
    held = exists().where(
        and_(
            SEATS.c.game_id == SESSIONS.c.game_id,
            SEATS.c.seat == SESSIONS.c.seat,
            SEATS.c.token_sha256 == SESSIONS.c.token_sha256,
            ~SEATS.c.controller.startswith("bot:"),
        )
    )
    idle = SESSIONS.c.last_seen_at < timestamp(now - IDLE)
    gone: int = conn.execute(delete(SESSIONS).where(idle | ~held | ~sign_in_alive(now))).rowcount
    return gone
