"""The deadline feeds of My games: each behind a random id (192 bits) that names
nothing. The database keeps the id's HMAC under the server's key and the seat
sessions of the browser the feed was made in; the feed lists the seats those
sessions still hold. A new id replaces the old one on asking ("New feed address"),
signing out deletes the browser's feed, and a new server key revokes every feed."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence

from sqlalchemy import Connection, delete, insert, select, update

from pbem.events import timestamp
from pbem.store.tables import Feed, core_table

from . import rows
from .sessions import IDLE, SESSIONS, sign_in_alive
from .unit import Context, sha256

FEEDS = core_table(Feed)
MOST_SESSIONS = 200  # a feed follows at most this many seats
_ID = re.compile(r"[A-Za-z0-9_-]{32}")  # secrets.token_urlsafe(24)
_PRUNED_AT_ONCE = 500


def _mac(key: bytes, feed_id: str) -> str:
    return hmac.new(key, f"deadline feed|{feed_id}".encode(), hashlib.sha256).hexdigest()


def is_feed_id(text: str) -> bool:
    """Whether `text` has the shape of a feed id (anything else names no feed)."""
    return _ID.fullmatch(text) is not None


def feed_for(
    ctx: Context, feed_id: str | None, session_ids: Sequence[str], make: bool = True
) -> str | None:
    """The id of the feed that follows these seat sessions (a browser's): `feed_id`
    when it names a feed, which then follows these sessions instead of its old
    ones; else a new feed, or None when not to `make` one. Written only when
    something changed."""
    sessions = sorted({sha256(s) for s in session_ids})[:MOST_SESSIONS]
    if feed_id is not None and is_feed_id(feed_id):
        mac = _mac(ctx.key, feed_id)
        with ctx.reading() as conn:
            known = conn.execute(select(FEEDS.c.sessions).where(FEEDS.c.id_hmac == mac)).first()
        if known is not None and sorted(known.sessions) == sessions:
            return feed_id
        if known is not None:
            with ctx.db.writing() as conn:
                changed = conn.execute(
                    update(FEEDS).where(FEEDS.c.id_hmac == mac).values(sessions=sessions)
                ).rowcount
            if changed == 1:  # else revoked meanwhile: a new one
                return feed_id
    if not make:
        return None
    new = secrets.token_urlsafe(24)
    row = {"id_hmac": _mac(ctx.key, new), "sessions": sessions, "created_at": ctx.time()}
    with ctx.db.writing() as conn:
        conn.execute(insert(FEEDS), row)
    return new


def feed_seats(ctx: Context, feed_id: str) -> list[tuple[str, int]] | None:
    """(game, seat) of every seat the feed's sessions still hold (not ended, not
    idle too long, their sign-in if any still on, the seat not handed on since);
    None when the id names no feed."""
    if not is_feed_id(feed_id):
        return None
    with ctx.reading() as conn:
        known = conn.execute(
            select(FEEDS.c.sessions).where(FEEDS.c.id_hmac == _mac(ctx.key, feed_id))
        ).first()
        if known is None:
            return None
        if not known.sessions:
            return []
        held = conn.execute(
            select(SESSIONS.c.game_id, SESSIONS.c.seat)
            .join(
                rows.SEATS,
                (rows.SEATS.c.game_id == SESSIONS.c.game_id)
                & (rows.SEATS.c.seat == SESSIONS.c.seat)
                & (rows.SEATS.c.token_sha256 == SESSIONS.c.token_sha256),
            )
            .where(
                SESSIONS.c.id_sha256.in_([str(s) for s in known.sessions]),
                SESSIONS.c.last_seen_at > timestamp(ctx.clock() - IDLE),
                rows.SEATS.c.controller == "human",
                sign_in_alive(ctx.clock()),
            )
            .order_by(SESSIONS.c.game_id, SESSIONS.c.seat)
        ).all()
    return list(dict.fromkeys((r.game_id, r.seat) for r in held))


def drop(ctx: Context, feed_id: str) -> None:
    """Revoke a feed: its address names nothing from now on."""
    if is_feed_id(feed_id):
        with ctx.db.writing() as conn:
            conn.execute(delete(FEEDS).where(FEEDS.c.id_hmac == _mac(ctx.key, feed_id)))


def prune(conn: Connection) -> int:
    """Delete the feeds none of whose seat sessions exists any more (their seats
    were forgotten, handed on or idle, and the sessions pruned): nothing could list
    a seat in them again. Returns how many went."""
    found = conn.execute(select(FEEDS.c.id_hmac, FEEDS.c.sessions)).all()
    wanted = {s for row in found for s in row.sessions}
    alive: set[str] = set()
    listed = sorted(wanted)
    for at in range(0, len(listed), _PRUNED_AT_ONCE):
        chunk = listed[at : at + _PRUNED_AT_ONCE]
        alive |= set(
            conn.execute(select(SESSIONS.c.id_sha256).where(SESSIONS.c.id_sha256.in_(chunk)))
            .scalars()
            .all()
        )
    dead = [row.id_hmac for row in found if not alive.intersection(row.sessions)]
    for at in range(0, len(dead), _PRUNED_AT_ONCE):
        chunk = dead[at : at + _PRUNED_AT_ONCE]
        conn.execute(delete(FEEDS).where(FEEDS.c.id_hmac.in_(chunk)))
    return len(dead)
