"""My games across games: the seats of an address, each game's clock (whose turn,
until when) for a seat, and signing in by a mailed link. A sign-in link is single-use
and short-lived; the database keeps only the SHA-256 of its nonce and of the session
it opens, and the link itself is an HMAC over the nonce, so a database dump opens
nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select, update

from pbem import i18n
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.store import log
from pbem.store.events import timestamp
from pbem.store.tables import SeatSession, SignIn, core_table

from . import history, queries, rows
from .addresses import address_key
from .errors import Forbidden
from .notices import Kind
from .sessions import IDLE
from .sessions import prune as prune_sessions
from .tokens import seat_token
from .unit import Context

SIGN_INS, SESSIONS = core_table(SignIn), core_table(SeatSession)
LINK_LIFE = timedelta(minutes=30)  # a sign-in link works once, within this time
SIGNED_IN = timedelta(days=30)  # a browser stays signed in this long
REFUSED = N_("this sign-in link has expired or was used already: ask for a new one on My games")


@dataclass(frozen=True)
class HeldSeat:
    """A seat of a person: the game, the seat and its current token."""

    game_id: str
    seat: int
    token: str


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sign_in_token(key: bytes, nonce: str) -> str:
    """The secret of a sign-in link: the nonce and its HMAC under the server's key."""
    mac = hmac.new(key, f"sign in|{nonce}".encode(), hashlib.sha256).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(mac[:18]).decode('ascii')}"


def _nonce_of(key: bytes, token: str) -> str | None:
    """The nonce of a sign-in token this server made; None for any other text."""
    nonce, _, _ = token.partition(".")
    if not nonce or len(token) > 100 or not token.isascii():
        return None
    return nonce if hmac.compare_digest(sign_in_token(key, nonce), token) else None


def seats_of(ctx: Context, address: str) -> list[HeldSeat]:
    """Every seat a person with this address holds now, oldest game first."""
    with ctx.reading() as conn:
        found = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat, rows.SEATS.c.token_nonce)
            .join(rows.GAMES, rows.GAMES.c.id == rows.SEATS.c.game_id)
            .where(
                func.lower(rows.SEATS.c.email) == address_key(address),
                rows.SEATS.c.controller == "human",
            )
            .order_by(rows.GAMES.c.created_at, rows.SEATS.c.seat)
        ).all()
    return [
        HeldSeat(r.game_id, r.seat, seat_token(ctx.key, r.game_id, r.seat, r.token_nonce))
        for r in found
    ]


def prune_sign_ins(conn: Connection, now: datetime) -> int:
    """Delete the sign-ins that can no longer be used: links unused past LINK_LIFE,
    and sign-ins whose browser's time (SIGNED_IN) is over. Returns how many went."""
    unused = SIGN_INS.c.used_at.is_(None) & (SIGN_INS.c.created_at < timestamp(now - LINK_LIFE))
    over = SIGN_INS.c.used_at.is_not(None) & (SIGN_INS.c.used_at < timestamp(now - SIGNED_IN))
    gone: int = conn.execute(delete(SIGN_INS).where(unused | over)).rowcount
    return gone


def prune(ctx: Context) -> dict[str, int]:
    """Forget what can no longer be used: seat sessions that cannot open their seat,
    and sign-ins that are over. How many of each went."""
    now = ctx.clock()
    with ctx.db.writing() as conn:
        return {"seat_sessions": prune_sessions(conn, now), "sign_ins": prune_sign_ins(conn, now)}


def ask_to_sign_in(ctx: Context, email: str, window: timedelta) -> list[int]:
    """Queue a sign-in mail (the link, and the links of the address's games) unless
    one was queued for the address within `window`, or it plays nothing here. The
    new row's id, if any; callers must not tell the asker (the page is the same)."""
    address = address_key(email)
    now = ctx.clock()
    with ctx.db.writing() as conn:
        seats = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat).where(
                func.lower(rows.SEATS.c.email) == address,
                rows.SEATS.c.controller == "human",
            )
        ).all()
        if not seats:
            return []
        recent = conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.kind == Kind.SIGN_IN.value,
                rows.OUTBOX.c.address == address,
                rows.OUTBOX.c.created_at > timestamp(now - window),
            )
        ).first()
        if recent is not None:
            return []
        nonce = secrets.token_hex(16)
        conn.execute(
            insert(SIGN_INS),
            {"id_sha256": _digest(nonce), "address": address, "created_at": timestamp(now)},
        )
        payload = {"nonce": nonce, "seats": [[s.game_id, s.seat] for s in seats]}
        mail = rows.new_mail(
            None,
            None,
            Kind.SIGN_IN,
            None,
            address,
            payload,
            timestamp(now),
            language=i18n.language(),  # the page's that asked
        )
        return rows.add_mails(conn, [mail])


def sign_in(ctx: Context, token: str) -> tuple[str, str]:
    """Use a sign-in link: once, within LINK_LIFE. The address and the id of the
    browser's new session; Forbidden for a link that is forged, used or expired."""
    nonce = _nonce_of(ctx.key, token)
    if nonce is None:
        raise Forbidden(_(REFUSED))
    now = ctx.clock()
    session_id = secrets.token_urlsafe(32)
    with ctx.db.writing() as conn:
        done = conn.execute(
            update(SIGN_INS)
            .where(
                and_(
                    SIGN_INS.c.id_sha256 == _digest(nonce),
                    SIGN_INS.c.used_at.is_(None),
                    SIGN_INS.c.created_at > timestamp(now - LINK_LIFE),
                )
            )
            .values(used_at=timestamp(now), session_sha256=_digest(session_id))
        )
        if done.rowcount != 1:
            raise Forbidden(_(REFUSED))
        address: str = conn.execute(
            select(SIGN_INS.c.address).where(SIGN_INS.c.id_sha256 == _digest(nonce))
        ).scalar_one()
    return address, session_id


def signed_in(ctx: Context, session_id: str) -> str | None:
    """The address a browser's sign-in session is for; None when it was signed out,
    is too old, or never was."""
    if not session_id or len(session_id) > 100:
        return None
    with ctx.reading() as conn:
        address: str | None = conn.execute(
            select(SIGN_INS.c.address).where(
                SIGN_INS.c.session_sha256 == _digest(session_id),
                SIGN_INS.c.used_at > timestamp(ctx.clock() - SIGNED_IN),
            )
        ).scalar()
    return address


def sign_out(ctx: Context, session_id: str) -> None:
    """End a sign-in session: every copy of its cookie is dead from now on."""
    with ctx.db.writing() as conn:
        conn.execute(delete(SIGN_INS).where(SIGN_INS.c.session_sha256 == _digest(session_id)))


def session_digest(session_id: str) -> str:
    """How a seat session is named in the database (and in a feed's token)."""
    return _digest(session_id)


def feed_seats(ctx: Context, named: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    """Of (game, seat, session digest), the seats still held through that session:
    the session was not ended and the seat has the token it had then."""
    if not named:
        return []
    with ctx.reading() as conn:
        held = conn.execute(
            select(SESSIONS.c.game_id, SESSIONS.c.seat, SESSIONS.c.id_sha256)
            .join(
                rows.SEATS,
                (rows.SEATS.c.game_id == SESSIONS.c.game_id)
                & (rows.SEATS.c.seat == SESSIONS.c.seat)
                & (rows.SEATS.c.token_sha256 == SESSIONS.c.token_sha256),
            )
            .where(
                SESSIONS.c.id_sha256.in_([str(digest) for _, _, digest in named]),
                SESSIONS.c.last_seen_at > timestamp(ctx.clock() - IDLE),
                rows.SEATS.c.controller == "human",
            )
        ).all()
    found = {(r.game_id, r.seat, r.id_sha256) for r in held}
    return [(g, s) for g, s, digest in named if (g, s, digest) in found]


def clock_of(ctx: Context, game_id: str, viewer: int | None = None) -> dict[str, Any]:
    """The game's status, seat to move and its deadline (UTC text or None), and
    `seq` and `tag`, the last event worth showing `viewer` (a seat, or None for a
    spectator): not a seat's private choices (so a poll tells no one else that one
    was made), nor, while the game is on, the spectators' chat on a player's page."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        ignored = history.PRIVATE
        if viewer is not None and row.status == "playing":
            ignored = (*ignored, *history.OFF_THE_LOG)
        shown = log.last_but(conn, game_id, ignored)
    return {
        "tag": f"seq-{shown}",
        "seq": shown,
        "status": row.status,
        "turn": row.turn,
        "round": row.round,
        "deadline": row.deadline_at if row.status == "playing" else None,
    }


def seat_summary(ctx: Context, game_id: str, seat: int) -> dict[str, Any]:
    """One game as the dashboard shows it to `seat`: whose turn, until when, the
    others' names, and the latest event the seat may be told of."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
    names = {s.seat: s.name for s in seats}
    told = queries.history_of(ctx, game_id, seat)
    censor = queries.censor(ctx, game_id, seat)
    playing = row.status == "playing"
    return {
        "game_id": game_id,
        "game": row.game,
        "seat": seat,
        "name": names.get(seat, ""),
        "opponents": [name for s, name in sorted(names.items()) if s != seat],
        "status": row.status,
        "round": row.round,
        "seq": row.head_seq,
        "turn": row.turn if playing else None,
        "turn_name": names.get(row.turn) if playing and row.turn is not None else None,
        "yours": playing and row.turn == seat,
        "deadline": row.deadline_at if playing else None,
        "last": censor(told[-1].text) if told else "",
    }


def urgency(summary: dict[str, Any]) -> tuple[int, str]:
    """The dashboard's order: my turn first, then games running, finished last;
    within each, the least time left first (no deadline after any deadline)."""
    rank = 0 if summary["yours"] else 1 if summary["status"] == "playing" else 2
    return rank, summary["deadline"] or "~"
