"""Joining an open table: asking mails a one-use link to the address given, and
only that link, used within LINK_LIFE (by a button: a mail scanner that opens
links takes no seat), takes the seat. Asking answers the same whoever the address
is; an address is mailed at most once per MAIL_EVERY, whoever asks, and not at all
when it has a seat at the table already. Taking a seat is a conditional update of
the table's version, so two people taking the last seat at once cannot both have
it: one gets it, the other is told the table filled. The link is an HMAC over its
nonce, and the database keeps only the nonce's SHA-256."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, delete, insert, select, update

from pbem import i18n
from pbem.events import timestamp
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.store.people import OpenJoin
from pbem.store.tables import core_table

from . import rows
from .addresses import address_key, checked_address
from .errors import BadRequest, Forbidden, ServiceError
from .notices import Kind
from .opentables import public, read, start, take
from .signing import LINK_LIFE, MAIL_EVERY
from .unit import Context

JOINS = core_table(OpenJoin)
REFUSED = N_("this link to join a table has expired or was used already: ask for a new one")


class Filled(ServiceError):
    """The table was filled (or closed) before this seat could be taken."""

    status = 409


@dataclass(frozen=True)
class Joined:
    """A seat taken: the table, and once the table was full, its game and the
    joiner's own seat link's token."""

    table_id: str
    seat: int
    game_id: str | None = None
    token: str | None = None


def join_token(key: bytes, nonce: str) -> str:
    """The secret of a join link: the nonce and its HMAC under the server's key."""
    mac = hmac.new(key, f"open table join|{nonce}".encode(), hashlib.sha256).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(mac[:18]).decode('ascii')}"


def _nonce_of(key: bytes, token: str) -> str | None:
    if not isinstance(token, str) or len(token) > 100 or not token.isascii():
        return None
    nonce = token.partition(".")[0]
    return nonce if nonce and hmac.compare_digest(join_token(key, nonce), token) else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def checked_name(name: Any, seats: list[dict[str, Any]]) -> str:
    """The name a joiner plays under: fit to show, and like no name at the table."""
    from . import visible  # ICU: loaded at the first text to check

    shown = visible.shown_name(name if isinstance(name, str) else "")
    if not shown or len(shown) > 100:
        raise BadRequest(_("every player needs a name of 1 to 100 characters"))
    visible.unlike(shown, {n: s["name"] for n, s in enumerate(seats, start=1)})
    return shown


def _joinable(ctx: Context, row: Any) -> None:
    if public(row, ctx)["status"] != "open":
        raise Filled(_("this table is no longer open: find another on the open tables page"))


def ask(ctx: Context, table_id: str, name: Any, email: Any) -> None:
    """Mail a link that takes a seat at the table to `email`, unless the address
    was mailed one within MAIL_EVERY or sits at the table already. The asker is
    told the same either way."""
    row = read(ctx, table_id)
    _joinable(ctx, row)
    shown = checked_name(name, list(row.seats))
    address = address_key(checked_address(email if isinstance(email, str) else ""))
    now = ctx.clock()
    if any(address_key(s["email"] or "") == address for s in row.seats):
        return
    with ctx.db.writing() as conn:
        recent = conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.kind == Kind.JOIN_CONFIRM.value,
                rows.OUTBOX.c.address == address,
                rows.OUTBOX.c.created_at > timestamp(now - MAIL_EVERY),
            )
        ).first()
        if recent is not None:
            return
        nonce = secrets.token_hex(16)
        language = i18n.language()  # the page's that asked: the mail's and the seat's
        conn.execute(
            insert(JOINS),
            {
                "id_sha256": _digest(nonce),
                "table_id": row.id,
                "name": shown,
                "address": address,
                "language": language,
                "created_at": timestamp(now),
            },
        )
        payload = {"nonce": nonce, "table": row.id, "name": shown}
        mail = rows.new_mail(
            None, None, Kind.JOIN_CONFIRM, None, address, payload, timestamp(now), language=language
        )
        rows.add_mails(conn, [mail])


def pending(ctx: Context, token: str) -> dict[str, Any]:
    """The table a join link (not yet used, not expired) is for; Forbidden else."""
    nonce = _nonce_of(ctx.key, token)
    if nonce is None:
        raise Forbidden(_(REFUSED))
    with ctx.reading() as conn:
        found = conn.execute(select(JOINS).where(_usable(ctx, nonce))).first()
    if found is None:
        raise Forbidden(_(REFUSED))
    return {**public(read(ctx, found.table_id), ctx), "joiner": found.name}


def _usable(ctx: Context, nonce: str) -> Any:
    return and_(
        JOINS.c.id_sha256 == _digest(nonce),
        JOINS.c.used_at.is_(None),
        JOINS.c.created_at > timestamp(ctx.clock() - LINK_LIFE),
    )


def confirm(ctx: Context, token: str) -> Joined:
    """Use a join link: once, within LINK_LIFE. The seat is taken; when it was the
    last, the game is made. Forbidden for a forged, used or expired link, Filled
    when the table filled or closed first."""
    nonce = _nonce_of(ctx.key, token)
    if nonce is None:
        raise Forbidden(_(REFUSED))
    with ctx.db.writing() as conn:
        used = conn.execute(
            update(JOINS)
            .where(_usable(ctx, nonce))
            .values(used_at=timestamp(ctx.clock()))
            .returning(JOINS.c.table_id, JOINS.c.name, JOINS.c.address, JOINS.c.language)
        ).first()
    if used is None:
        raise Forbidden(_(REFUSED))
    for _attempt in range(10):
        row = read(ctx, used.table_id)
        _joinable(ctx, row)
        if any(address_key(s["email"] or "") == used.address for s in row.seats):
            raise BadRequest(_("this address has a seat at this table already"))
        name = checked_name(used.name, list(row.seats))
        seat = {"name": name, "email": used.address, "bot": None, "language": used.language}
        if not take(ctx, row, [seat]):
            continue  # another seat was taken meanwhile: read the table again
        if len(row.seats) + 1 < row.wanted:
            return Joined(row.id, len(row.seats) + 1)
        created = start(ctx, row.id, list(row.seats))
        mine = created.seats[len(row.seats)]
        return Joined(row.id, len(row.seats) + 1, created.game_id, mine.token)
    raise Filled(_("this table is no longer open: find another on the open tables page"))


def prune(conn: Connection, now: datetime) -> int:
    """Delete the join links past LINK_LIFE, used or not; how many went."""
    gone: int = conn.execute(
        delete(JOINS).where(JOINS.c.created_at < timestamp(now - LINK_LIFE))
    ).rowcount
    return gone
