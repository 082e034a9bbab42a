"""Open tables: a game waiting for players, listed publicly so that anyone can
find one. An open table is not a game yet: its creator names some seats (at least
their own, with an address) and leaves the others open; people join by a mailed
link (`joining`), and once the last seat is taken, or the creator fills the rest
with bots, the game is made by `create_game` like any other. The creator manages
the table (cancel it, fill it with bots) by a private link: an HMAC of the
table's id under the server's key, so it is kept nowhere."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, insert, select, update

from pbem.events import parse_timestamp, timestamp
from pbem.games import NAMES, SetupError, plugin
from pbem.games.names import bot_name
from pbem.i18n import gettext as _
from pbem.store.people import OpenTable
from pbem.store.tables import core_table

from . import options as game_options
from . import queries
from .addresses import address_key
from .create import PlayerSpec, checked_players, create_game, seats_refused
from .errors import BadRequest, Created, Forbidden, NotFound, ServiceError, TooMany
from .unit import Context

TABLES = core_table(OpenTable)
LIFE = timedelta(days=14)  # an open table nobody fills is gone after this
PER_ADDRESS = 5  # open tables one address may hold at once
PAGE = 20  # tables a page of the list shows


@dataclass(frozen=True)
class Opened:
    """A new open table: its id, and the secret of its creator's management link."""

    table_id: str
    manage: str


def manage_token(key: bytes, table_id: str) -> str:
    """The secret of a table's management link."""
    mac = hmac.new(key, f"open table manage|{table_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:18]).decode("ascii")


def creation_key(key: bytes, table_id: str) -> str:
    """The creation key of the table's game: secret (it shows where the invitations
    went), and the same every time, so the game is made once."""
    return hmac.new(key, f"open table game|{table_id}".encode(), hashlib.sha256).hexdigest()


def open_table(
    ctx: Context,
    players: Sequence[PlayerSpec],
    open_seats: int,
    options: Mapping[str, Any] | None = None,
    setup: Mapping[str, Any] | None = None,
    *,
    game: str | None = None,
) -> Opened:
    """List a new open table of `game`: `players` are the seats taken (the first
    person with an address is its creator), `open_seats` how many wait for people."""
    name = NAMES[0] if game is None else game
    if not isinstance(name, str) or name not in NAMES:
        raise BadRequest(_("unknown game %(game)s", game=repr(str(name)[:40])))
    if not isinstance(open_seats, int) or open_seats < 1:
        raise BadRequest(_("an open table has at least one open seat"))
    total = len(players) + open_seats
    seats_refused(name, total)
    specs = checked_players(players, name)
    people = [s for s in specs if s.email and not s.bot]
    if not people:
        raise BadRequest(_("an open table needs your seat: a person with an email address"))
    chosen = game_options.checked(options)
    if setup is not None and not isinstance(setup, Mapping):
        raise BadRequest(_("setup is an object"))
    kept = dict(setup) if setup else None
    trial = [s.name for s in specs] + [f"open {n}" for n in range(open_seats)]
    try:  # the game's own setup is checked now, not when the last seat is taken
        plugin(name).rules.setup(trial, {**(kept or {}), "seed": secrets.token_hex(24)})
    except SetupError as error:
        raise BadRequest(_("setup: %(error)s", error=error)) from None
    creator = address_key(str(people[0].email))
    now = ctx.clock()
    table_id = secrets.token_urlsafe(9)
    row = {
        "id": table_id,
        "game": name,
        "options": chosen,
        "setup": kept,
        "seats": [seat_row(s) for s in specs],
        "wanted": total,
        "creator": creator,
        "status": "open",
        "game_id": None,
        "version": 0,
        "created_at": timestamp(now),
        "expires_at": timestamp(now + LIFE),
    }
    with ctx.db.writing() as conn:
        held = conn.execute(
            select(func.count()).where(TABLES.c.creator == creator, _listed(timestamp(now)))
        ).scalar_one()
        if held >= PER_ADDRESS:
            raise TooMany(
                _(
                    "an address holds at most %(most)s open tables at once: cancel one,"
                    " or wait until one fills",
                    most=PER_ADDRESS,
                )
            )
        conn.execute(insert(TABLES), row)
    return Opened(table_id, manage_token(ctx.key, table_id))


def seat_row(spec: PlayerSpec) -> dict[str, Any]:
    return {"name": spec.name, "email": spec.email, "bot": spec.bot, "language": spec.language}


def _listed(now: str) -> Any:
    return and_(TABLES.c.status == "open", TABLES.c.expires_at > now)


def listing(ctx: Context, page: int = 1) -> tuple[list[dict[str, Any]], int]:
    """A page of the tables waiting for players, the newest first, and how many
    pages there are."""
    now = timestamp(ctx.clock())
    with ctx.reading() as conn:
        count = conn.execute(select(func.count()).where(_listed(now))).scalar_one()
        found = conn.execute(
            select(TABLES)
            .where(_listed(now))
            .order_by(TABLES.c.created_at.desc(), TABLES.c.id)
            .offset((page - 1) * PAGE)
            .limit(PAGE)
        ).all()
    return [public(row, ctx) for row in found], max(1, -(-count // PAGE))


def public(row: Any, ctx: Context) -> dict[str, Any]:
    """What anyone may see of a table: never an address."""
    expired = parse_timestamp(row.expires_at) <= ctx.clock()
    return {
        "id": row.id,
        "game": row.game,
        "options": dict(row.options),
        "names": [seat["name"] for seat in row.seats],
        "bots": [bool(seat["bot"]) for seat in row.seats],
        "left": row.wanted - len(row.seats),
        "wanted": row.wanted,
        "created_at": row.created_at,
        "expires_at": row.expires_at,
        "status": "expired" if row.status == "open" and expired else row.status,
        "game_id": row.game_id,
    }


def read(ctx: Context, table_id: str) -> Any:
    """A table's row; NotFound for an id that names none."""
    if not isinstance(table_id, str) or len(table_id) > 32:
        raise NotFound(_("there is no such open table"))
    with ctx.reading() as conn:
        row = conn.execute(select(TABLES).where(TABLES.c.id == table_id)).first()
    if row is None:
        raise NotFound(_("there is no such open table"))
    return row


def view(ctx: Context, table_id: str) -> dict[str, Any]:
    return public(read(ctx, table_id), ctx)


def managed(ctx: Context, table_id: str, token: str) -> Any:
    """The table whose management link this is; Forbidden for any other secret."""
    row = read(ctx, table_id)
    if not isinstance(token, str) or not hmac.compare_digest(
        manage_token(ctx.key, row.id).encode(), token.encode("utf-8", "replace")
    ):
        raise Forbidden(_("this is not the link to manage this table"))
    return row


def seat_of(ctx: Context, table_id: str, seat: int) -> tuple[str, str] | None:
    """The game and the seat token of the table's `seat` (from 1) once its game is
    made, while the person who took that seat at the table still holds it; None
    otherwise."""
    row = read(ctx, table_id)
    if row.status != "started" or row.game_id is None or not 1 <= seat <= len(row.seats):
        return None
    link = queries.seat_links(ctx, row.game_id)[seat - 1]
    email = row.seats[seat - 1]["email"]
    if link.token is None or not email or (link.email or "").lower() != email.lower():
        return None
    return row.game_id, link.token


def creator_seat(row: Any) -> int:
    """The seat of a table's creator: its first person with an address."""
    return next(n for n, s in enumerate(row.seats, start=1) if s["email"] and not s["bot"])


def cancel(ctx: Context, table_id: str, token: str) -> None:
    """The creator takes the table off the list; nobody can join it from now on."""
    row = managed(ctx, table_id, token)
    with ctx.db.writing() as conn:
        done = conn.execute(
            update(TABLES)
            .where(TABLES.c.id == row.id, TABLES.c.status == "open")
            .values(status="cancelled", version=TABLES.c.version + 1)
        ).rowcount
    if not done:
        raise BadRequest(_("this table is no longer open"))


def fill_with_bots(ctx: Context, table_id: str, token: str, bot: str) -> str:
    """The creator fills the open seats with `bot`s and the game starts; its id."""
    row = managed(ctx, table_id, token)
    if not isinstance(bot, str) or bot not in plugin(row.game).bots:
        raise BadRequest(
            _("choose one of the bots: %(bots)s", bots=", ".join(plugin(row.game).bots))
        )
    for _attempt in range(5):
        row = read(ctx, table_id)
        if row.status != "open":
            raise BadRequest(_("this table is no longer open"))
        added = [
            {"name": bot_name(bot), "email": None, "bot": bot, "language": None}
            for _seat in range(row.wanted - len(row.seats))
        ]
        if take(ctx, row, added):
            return start(ctx, table_id, list(row.seats)).game_id
    raise BadRequest(_("this table changed meanwhile: try again"))


def take(ctx: Context, row: Any, added: list[dict[str, Any]]) -> bool:
    """Add seats to the table as it was read (`row`); False when it changed
    meanwhile (another seat was taken first: the caller reads it again)."""
    seats = list(row.seats) + added
    status = "starting" if len(seats) == row.wanted else "open"
    with ctx.db.writing() as conn:
        done = conn.execute(
            update(TABLES)
            .where(
                TABLES.c.id == row.id,
                TABLES.c.version == row.version,
                TABLES.c.status == "open",
                TABLES.c.expires_at > timestamp(ctx.clock()),
            )
            .values(seats=seats, status=status, version=row.version + 1)
        ).rowcount
    return bool(done)


def start(ctx: Context, table_id: str, before: list[dict[str, Any]]) -> Created:
    """Make the full table's game with every seat (each person gets the usual
    invitation). Should the game be refused (an address had too many invitations
    today), the table is open again with the seats it had `before`."""
    row = read(ctx, table_id)
    specs = [PlayerSpec(s["name"], s["email"], s["bot"], s["language"]) for s in row.seats]
    key = creation_key(ctx.key, table_id)
    try:
        created = create_game(
            ctx, specs, row.options, row.setup, game=row.game, actor="open table", key=key
        )
    except ServiceError:
        with ctx.db.writing() as conn:
            conn.execute(
                update(TABLES)
                .where(TABLES.c.id == table_id, TABLES.c.status == "starting")
                .values(seats=before, status="open", version=TABLES.c.version + 1)
            )
        raise
    with ctx.db.writing() as conn:
        conn.execute(
            update(TABLES)
            .where(TABLES.c.id == table_id)
            .values(status="started", game_id=created.game_id, version=TABLES.c.version + 1)
        )
    return created
