"""Public profiles, opt-in: a person signed in to My games may turn on a page at
/players/SLUG (a random slug that names nothing) with a name of their choosing,
listing their finished games and results. Off by default; turning it off deletes
it, and its page is gone at once. It never shows an address, a game still in
play, or an opponent's name from a game that is not public."""

from __future__ import annotations

import re
import secrets
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from pbem.events import timestamp
from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.store.people import Profile
from pbem.store.tables import core_table

from . import archive, rows
from .addresses import address_key
from .errors import BadRequest
from .unit import Context

PROFILES = core_table(Profile)
SLUG = re.compile(r"[A-Za-z0-9_-]{16}")  # secrets.token_urlsafe(12)
MOST_GAMES = 200  # a profile lists at most this many games, the newest first


def profile_of(ctx: Context, address: str) -> dict[str, Any] | None:
    """The address's profile (`slug`, `name`), or None while it is off."""
    with ctx.reading() as conn:
        found = conn.execute(
            select(PROFILES.c.slug, PROFILES.c.name).where(
                PROFILES.c.address == address_key(address)
            )
        ).first()
    return None if found is None else {"slug": found.slug, "name": found.name}


def publish(ctx: Context, address: str, name: str) -> str:
    """Turn the address's profile on under `name` (or rename it); its slug."""
    from . import visible  # ICU: loaded at the first text to check

    shown = visible.shown_name(name if isinstance(name, str) else "")
    if not shown or len(shown) > 100:
        raise BadRequest(_("a profile's name is 1 to 100 characters"))
    key = address_key(address)
    with ctx.db.writing() as conn:
        renamed = conn.execute(
            update(PROFILES).where(PROFILES.c.address == key).values(name=shown)
        ).rowcount
        if renamed:
            slug: str = conn.execute(
                select(PROFILES.c.slug).where(PROFILES.c.address == key)
            ).scalar_one()
            return slug
        slug = secrets.token_urlsafe(12)
        row = {"address": key, "slug": slug, "name": shown, "created_at": timestamp(ctx.clock())}
        conn.execute(insert(PROFILES), row)
    return slug


def withdraw(ctx: Context, address: str) -> None:
    """Turn the address's profile off: its page is gone from now on (a new one
    gets a new slug)."""
    with ctx.db.writing() as conn:
        conn.execute(delete(PROFILES).where(PROFILES.c.address == address_key(address)))


def public_record(ctx: Context, slug: str) -> dict[str, Any] | None:
    """The page of the profile `slug`: its `name` and its finished `games`, newest
    first, each with the game's title, when it ended and the result; None when no
    profile has this slug (never was, or turned off)."""
    if not isinstance(slug, str) or SLUG.fullmatch(slug) is None:
        return None
    with ctx.reading() as conn:
        found = conn.execute(
            select(PROFILES.c.address, PROFILES.c.name).where(PROFILES.c.slug == slug)
        ).first()
        if found is None:
            return None
        held = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat, rows.GAMES.c.updated_at)
            .join(rows.GAMES, rows.GAMES.c.id == rows.SEATS.c.game_id)
            .where(
                func.lower(rows.SEATS.c.email) == found.address,
                rows.SEATS.c.controller == "human",
                rows.GAMES.c.status == "finished",
            )
            .order_by(rows.GAMES.c.updated_at.desc(), rows.GAMES.c.id)
            .limit(MOST_GAMES)
        ).all()
    return {
        "name": found.name,
        "games": [_game(ctx, r.game_id, r.seat, r.updated_at) for r in held],
    }


def _game(ctx: Context, game_id: str, seat: int, ended: str) -> dict[str, Any]:
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
    result = archive.result(ctx, game_id, seat) or {}
    public = bool(row.public)
    return {
        "game_id": game_id if public else None,  # a private game's page is not linked
        "title": _(GAMES[row.game].title),
        "ended": ended[:10],
        "place": result.get("place"),
        "of": result.get("of"),
        "score": result.get("score"),
        "won": result.get("won", False),
        "winners": result.get("winners", []) if public else None,
    }
