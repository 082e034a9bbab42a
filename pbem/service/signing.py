"""Signing in to My games by mailed links, and signing out. Asking for a link (to
sign in, or to sign out everywhere) writes one queued request, whatever the address:
the page, and the database work behind it, are the same for an address that plays
here and for a stranger. The scheduler answers the queue: a link goes only to an
address that plays here, at most once per MAIL_EVERY for each kind. A sign-in link
opens a browser's sign-in; a sign-out link, or a signed-in browser, ends every
sign-in of the address and the seat sessions they opened. Links are single-use and
short-lived; the database keeps only the SHA-256 of their nonces and of the
sessions, and a link is an HMAC over its nonce, so a database dump opens nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select, update

from pbem import i18n
from pbem.events import timestamp
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.store.tables import LinkRequest, SignIn, SignOutLink, core_table

from . import rows
from .addresses import address_key, checked_address
from .errors import Forbidden
from .notices import Kind
from .sessions import SIGNED_IN, end_opened_by
from .unit import Context

log = logging.getLogger(__name__)
SIGN_INS, SIGN_OUTS = core_table(SignIn), core_table(SignOutLink)
REQUESTS = core_table(LinkRequest)
LINK_LIFE = timedelta(minutes=30)  # a mailed link works once, within this time
MAIL_EVERY = timedelta(minutes=10)  # at most one mail of each kind per address in this time
ANSWERED_AT_ONCE = 500  # requests one sweep answers (the rest: the next sweep)
REFUSED = N_("this sign-in link has expired or was used already: ask for a new one on My games")
REFUSED_SIGN_OUT = N_(
    "this sign-out link has expired or was used already: ask for a new one on My games"
)
# What each kind of request mails, and the table its link's nonce is kept in.
KINDS = {"sign_in": (Kind.SIGN_IN, SIGN_INS), "sign_out": (Kind.SIGN_OUT, SIGN_OUTS)}


@dataclass(frozen=True)
class SignedIn:
    """A browser's sign-in that holds: its address, and the sign-in's name (the
    SHA-256 of its link's nonce) that the seat sessions it opens carry."""

    address: str
    sign_in: str


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _link_token(key: bytes, purpose: str, nonce: str) -> str:
    mac = hmac.new(key, f"{purpose}|{nonce}".encode(), hashlib.sha256).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(mac[:18]).decode('ascii')}"


def sign_in_token(key: bytes, nonce: str) -> str:
    """The secret of a sign-in link: the nonce and its HMAC under the server's key."""
    return _link_token(key, "sign in", nonce)


def sign_out_token(key: bytes, nonce: str) -> str:
    """The secret of a sign-out-everywhere link (never a sign-in link's)."""
    return _link_token(key, "sign out", nonce)


def _nonce_of(key: bytes, token: str, purpose: str) -> str | None:
    """The nonce of a link token this server made for `purpose`; None for any other."""
    if not isinstance(token, str) or len(token) > 100 or not token.isascii():
        return None
    nonce, _, _ = token.partition(".")
    if not nonce:
        return None
    return nonce if hmac.compare_digest(_link_token(key, purpose, nonce), token) else None


# -- asking: one queued request, whoever the address is ---------------------------------


def ask(ctx: Context, kind: str, email: str) -> None:
    """Queue a request for a link of `kind` ("sign_in", "sign_out") to `email`. It
    does the same for any address a mail can be built for: whether one is mailed
    is the scheduler's to decide (answer_requests), and nobody tells the asker."""
    if kind not in KINDS:
        raise ValueError(f"{kind!r} is not a kind of link")
    # No mail can be built for what fails the check a player's address passed
    # (NotAnAddress, saying why): refusing it tells nothing of who plays here.
    address = address_key(checked_address(email))
    row = {
        "kind": kind,
        "address": address,
        "language": i18n.language(),  # the page's that asked: the mail's
        "created_at": timestamp(ctx.clock()),
    }
    with ctx.db.writing() as conn:
        conn.execute(insert(REQUESTS), row)


def answer_requests(ctx: Context) -> list[int]:
    """Answer the queued requests, oldest first: a link, in the outbox, for each
    address that plays here and was not mailed one of that kind within MAIL_EVERY;
    nothing for any other. The outbox rows written. A request that cannot be
    answered is logged and dropped; the others are answered as usual."""
    with ctx.reading() as conn:
        waiting = list(
            conn.execute(select(REQUESTS.c.id).order_by(REQUESTS.c.id).limit(ANSWERED_AT_ONCE))
            .scalars()
            .all()
        )
    mails: list[int] = []
    for request_id in waiting:
        try:
            mails += _answer(ctx, request_id)
        except Exception:
            log.exception("link request %s dropped: it cannot be answered", request_id)
            with ctx.db.writing() as conn:
                conn.execute(delete(REQUESTS).where(REQUESTS.c.id == request_id))
    return mails


def _answer(ctx: Context, request_id: int) -> list[int]:
    now = ctx.clock()
    with ctx.db.writing() as conn:
        taken = conn.execute(
            delete(REQUESTS)
            .where(REQUESTS.c.id == request_id)
            .returning(REQUESTS.c.kind, REQUESTS.c.address, REQUESTS.c.language)
        ).first()
        if taken is None:  # answered meanwhile (another scheduler)
            return []
        kind, links = KINDS[taken.kind]
        seats = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat).where(
                func.lower(rows.SEATS.c.email) == taken.address,
                rows.SEATS.c.controller == "human",
            )
        ).all()
        if not seats:
            return []
        recent = conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.kind == kind.value,
                rows.OUTBOX.c.address == taken.address,
                rows.OUTBOX.c.created_at > timestamp(now - MAIL_EVERY),
            )
        ).first()
        if recent is not None:
            return []
        nonce = secrets.token_hex(16)
        conn.execute(
            insert(links),
            {"id_sha256": _digest(nonce), "address": taken.address, "created_at": timestamp(now)},
        )
        payload = {"nonce": nonce, "seats": [[s.game_id, s.seat] for s in seats]}
        mail = rows.new_mail(
            None, None, kind, None, taken.address, payload, timestamp(now), language=taken.language
        )
        return rows.add_mails(conn, [mail])


# -- signing in -------------------------------------------------------------------------


def sign_in(ctx: Context, token: str) -> tuple[str, str]:
    """Use a sign-in link: once, within LINK_LIFE. The address and the id of the
    browser's new session; Forbidden for a link that is forged, used or expired."""
    nonce = _nonce_of(ctx.key, token, "sign in")
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


def signed_in(ctx: Context, session_id: str) -> SignedIn | None:
    """The sign-in a browser's session is; None when it was signed out, is too old,
    or never was."""
    if not isinstance(session_id, str) or not session_id or len(session_id) > 100:
        return None
    with ctx.reading() as conn:
        found = conn.execute(
            select(SIGN_INS.c.address, SIGN_INS.c.id_sha256).where(
                SIGN_INS.c.session_sha256 == _digest(session_id),
                SIGN_INS.c.used_at > timestamp(ctx.clock() - SIGNED_IN),
            )
        ).first()
    return None if found is None else SignedIn(found.address, found.id_sha256)


# -- signing out ------------------------------------------------------------------------


def sign_out(ctx: Context, session_id: str) -> None:
    """End a sign-in session and the seat sessions it opened: every copy of their
    cookies is dead from now on."""
    mine = select(SIGN_INS.c.id_sha256).where(SIGN_INS.c.session_sha256 == _digest(session_id))
    with ctx.db.writing() as conn:
        end_opened_by(conn, mine)
        conn.execute(delete(SIGN_INS).where(SIGN_INS.c.session_sha256 == _digest(session_id)))


def sign_out_address(ctx: Context, address: str) -> int:
    """End every sign-in of the address (its browsers', and links not used yet) and
    every seat session they opened; how many sign-ins went."""
    with ctx.db.writing() as conn:
        return _end_address(conn, address)


def _end_address(conn: Connection, address: str) -> int:
    theirs = select(SIGN_INS.c.id_sha256).where(SIGN_INS.c.address == address)
    end_opened_by(conn, theirs)
    gone: int = conn.execute(delete(SIGN_INS).where(SIGN_INS.c.address == address)).rowcount
    return gone


def sign_out_everywhere(ctx: Context, token: str) -> str:
    """Use a sign-out-everywhere link (once, within LINK_LIFE): every sign-in of its
    address ends, with the seat sessions they opened. The address; Forbidden for a
    link that is forged, used or expired."""
    nonce = _nonce_of(ctx.key, token, "sign out")
    if nonce is None:
        raise Forbidden(_(REFUSED_SIGN_OUT))
    now = ctx.clock()
    with ctx.db.writing() as conn:
        used = conn.execute(
            delete(SIGN_OUTS)
            .where(
                SIGN_OUTS.c.id_sha256 == _digest(nonce),
                SIGN_OUTS.c.created_at > timestamp(now - LINK_LIFE),
            )
            .returning(SIGN_OUTS.c.address)
        ).first()
        if used is None:
            raise Forbidden(_(REFUSED_SIGN_OUT))
        _end_address(conn, used.address)
    address: str = used.address
    return address


# -- forgetting what is over ------------------------------------------------------------


def prune_links(conn: Connection, now: datetime) -> dict[str, int]:
    """Delete the sign-ins that can no longer be used (links unused past LINK_LIFE,
    browsers' SIGNED_IN time over), sign-out links past LINK_LIFE, and requests
    the scheduler left unanswered that long. How many of each went."""
    stale = timestamp(now - LINK_LIFE)
    unused = SIGN_INS.c.used_at.is_(None) & (SIGN_INS.c.created_at < stale)
    over = SIGN_INS.c.used_at.is_not(None) & (SIGN_INS.c.used_at < timestamp(now - SIGNED_IN))
    gone: dict[str, Any] = {
        "sign_ins": conn.execute(delete(SIGN_INS).where(unused | over)).rowcount,
        "sign_out_links": conn.execute(
            delete(SIGN_OUTS).where(SIGN_OUTS.c.created_at < stale)
        ).rowcount,
        "link_requests": conn.execute(
            delete(REQUESTS).where(REQUESTS.c.created_at < stale)
        ).rowcount,
    }
    return gone
