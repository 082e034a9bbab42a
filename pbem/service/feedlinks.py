"""The links in a deadline feed's entries: each opens its seat's page, signed for
that feed and the seat's current holder. A link works only while its feed lists
the seat: "New feed address", signing out, the seat forgotten or handed on (a new
token) each make it name nothing, as does a new server key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, tuple_

from pbem.events import parse_timestamp
from pbem.store.log import EVENTS

from . import rows
from .feeds import feed_seats, is_feed_id
from .tokens import seat_token
from .unit import Context

_SIGNATURE = re.compile(r"[A-Za-z0-9_-]{24}")  # 18 bytes of HMAC, urlsafe base64


def _signature(key: bytes, feed_id: str, game_id: str, seat: int, token_sha256: str) -> str:
    text = f"feed entry|{feed_id}|{game_id}|{seat}|{token_sha256}"
    mac = hmac.new(key, text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:18]).decode("ascii")


def entry_links(
    ctx: Context, feed_id: str, seats: Sequence[tuple[str, int]]
) -> dict[tuple[str, int], str]:
    """The signature of each listed seat's link in the feed `feed_id`."""
    if not seats or not is_feed_id(feed_id):
        return {}
    with ctx.reading() as conn:
        found = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat, rows.SEATS.c.token_sha256).where(
                tuple_(rows.SEATS.c.game_id, rows.SEATS.c.seat).in_(list(seats))
            )
        ).all()
    return {
        (r.game_id, r.seat): _signature(ctx.key, feed_id, r.game_id, r.seat, r.token_sha256)
        for r in found
    }


def entry_token(ctx: Context, feed_id: str, game_id: str, seat: int, signature: str) -> str | None:
    """The seat token a feed entry's link opens; None unless the feed exists, lists
    the seat now, and the signature is the one made for this feed and holder."""
    if not isinstance(signature, str) or _SIGNATURE.fullmatch(signature) is None:
        return None
    listed = feed_seats(ctx, feed_id)
    if listed is None or (game_id, seat) not in listed:
        return None
    with ctx.reading() as conn:
        held = conn.execute(
            select(rows.SEATS.c.token_sha256, rows.SEATS.c.token_nonce).where(
                rows.SEATS.c.game_id == game_id, rows.SEATS.c.seat == seat
            )
        ).first()
    if held is None:
        return None
    wanted = _signature(ctx.key, feed_id, game_id, seat, held.token_sha256)
    if not hmac.compare_digest(wanted, signature):
        return None
    return seat_token(ctx.key, game_id, seat, held.token_nonce)


def changed_at(ctx: Context, game_id: str, seq: int) -> datetime:
    """When the event at `seq` of the game was stored (the last change a feed
    entry tells of)."""
    with ctx.reading() as conn:
        found = conn.execute(
            select(func.max(EVENTS.c.created_at)).where(
                EVENTS.c.game_id == game_id, EVENTS.c.seq == seq
            )
        ).scalar()
    return parse_timestamp(found) if found else ctx.clock()
