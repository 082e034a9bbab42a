"""Web Push subscriptions and the push notices: a browser's subscription checked
hard and kept for one seat (while its holder holds it) or for every seat of a
signed-in address, while the browser's session that asked lasts; and, where the
policy writes a notice to a seat, one outbox row of channel "push" for each
subscription that reaches the seat, for the kinds that are pushed, as the seat's
mail preference has them (a topic set to "none" pushes nothing either). The push
channel's adapter reads a subscription back by its id, and drops it when the push
service says it is gone."""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, and_, delete, exists, func, insert, or_, select, update

from pbem.events import mail_choices, parse_timestamp, timestamp
from pbem.i18n import gettext as _
from pbem.store.database import Database
from pbem.store.people import PushSubscription
from pbem.store.tables import core_table

from . import rows
from .errors import BadRequest
from .notices import ALWAYS, Kind
from .rows import Record
from .sessions import SESSIONS, SIGN_INS, SIGNED_IN
from .unit import Tx, is_bot

SUBSCRIPTIONS = core_table(PushSubscription)
CHANNEL = "push"
# The kinds pushed, each under its topic of the seat's mail preference.
PUSHED = {Kind.YOUR_TURN: "turn", Kind.GAME_OVER: "other", Kind.UNDO_REQUEST: "other"}
PUSHED[Kind.CHAT] = "other"
CHAT_QUIET = timedelta(minutes=3)  # at most one push of table talk per this, per device
MOST_PER_SCOPE = 10  # subscriptions one seat (or one address) may have
ENDPOINT_LONGEST = 1024
P256DH_BYTES, AUTH_BYTES = 65, 16  # an uncompressed P-256 point; the auth secret
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


class Subscription:
    """A subscription as the browser gave it, checked: its endpoint and keys."""

    def __init__(self, endpoint: str, p256dh: str, auth: str) -> None:
        self.endpoint, self.p256dh, self.auth = endpoint, p256dh, auth

    @property
    def endpoint_sha256(self) -> str:
        return hashlib.sha256(self.endpoint.encode("utf-8")).hexdigest()


def _refused(why: str) -> BadRequest:
    return BadRequest(_("this push subscription cannot be used: %(why)s", why=why))


def _key(value: object, size: int, name: str) -> str:
    """A base64url key of `size` bytes, as the browser writes it (padding allowed)."""
    longest = (size * 4 + 2) // 3 + 2
    if not isinstance(value, str) or not 1 <= len(value) <= longest:
        raise _refused(_("its %(key)s key is missing or too long", key=name))
    bare = value.rstrip("=")
    if not bare.isascii() or not all(c.isalnum() or c in "-_" for c in bare):
        raise _refused(_("its %(key)s key is not base64url", key=name))
    try:
        raw = base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))
    except (binascii.Error, ValueError):
        raise _refused(_("its %(key)s key is not base64url", key=name)) from None
    if len(raw) != size or (name == "p256dh" and raw[0] != 4):
        raise _refused(_("its %(key)s key has the wrong length", key=name))
    return bare


def endpoint_of(value: object, *, loopback_http: bool = False) -> str:
    """A push endpoint: an https URL of a public host on the standard port, no
    user, no fragment; `loopback_http` (tests and development) also takes http on
    the loopback. Raises BadRequest saying why not."""
    if not isinstance(value, str) or not 1 <= len(value) <= ENDPOINT_LONGEST:
        raise _refused(_("its endpoint is missing or too long"))
    if not value.isascii() or not value.isprintable() or " " in value:
        raise _refused(_("its endpoint is not a web address"))
    try:
        parts = urlsplit(value)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise _refused(_("its endpoint is not a web address")) from None
    if not host or parts.username or parts.password or parts.fragment:
        raise _refused(_("its endpoint is not a web address"))
    if loopback_http and parts.scheme in ("http", "https") and host in LOOPBACK:
        return value
    if parts.scheme != "https" or port not in (None, 443) or not _public(host):
        raise _refused(_("its endpoint is not an https address of a push service"))
    return value


def _public(host: str) -> bool:
    """Whether `host` may be a push service: a name with a dot (not the loopback
    nor a local name), or an address that is global."""
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        pass
    lowered = host.lower().rstrip(".")
    local = lowered in LOOPBACK or lowered.endswith((".localhost", ".local", ".internal"))
    return "." in lowered and not local


def checked(body: object, *, loopback_http: bool = False) -> Subscription:
    """The subscription in a request's JSON body (PushSubscription.toJSON(): the
    endpoint and keys p256dh and auth), checked; BadRequest saying what is wrong."""
    if not isinstance(body, Mapping):
        raise _refused(_("it is not a JSON object"))
    keys = body.get("keys")
    if not isinstance(keys, Mapping):
        raise _refused(_("it has no keys"))
    endpoint = endpoint_of(body.get("endpoint"), loopback_http=loopback_http)
    p256dh = _key(keys.get("p256dh"), P256DH_BYTES, "p256dh")
    auth = _key(keys.get("auth"), AUTH_BYTES, "auth")
    return Subscription(endpoint, p256dh, auth)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seat_scope(game_id: str, seat: int) -> str:
    return f"seat:{game_id}:{seat}"


def address_scope(address: str) -> str:
    return f"address:{address.lower()}"


class Subscriptions:
    """The subscriptions kept, added and ended by the pages, read by the channel."""

    def __init__(self, database: Database, clock: Callable[[], datetime]) -> None:
        self.db = database
        self.clock = clock

    def add_for_seat(
        self, game_id: str, seat: int, holder: str, session_id: str, found: Subscription
    ) -> int:
        """Keep `found` for the seat while `holder` (the token's hash) holds it and
        the browser's seat session (`session_id`) lasts."""
        values = {"game_id": game_id, "seat": seat, "holder": holder, "address": None}
        values["session_sha256"] = _sha256(session_id)
        return self._add(seat_scope(game_id, seat), values, found)

    def add_for_address(self, address: str, sign_in: str, found: Subscription) -> int:
        """Keep `found` for every seat of a signed-in `address` while the sign-in
        (its name, `sign_in`) lasts."""
        values = {"game_id": None, "seat": None, "holder": None, "address": address.lower()}
        values["session_sha256"] = sign_in
        return self._add(address_scope(address), values, found)

    def _add(self, scope: str, values: dict[str, Any], found: Subscription) -> int:
        table = SUBSCRIPTIONS
        digest = found.endpoint_sha256
        keys = {"p256dh": found.p256dh, "auth": found.auth}
        with self.db.writing() as conn:
            same = table.c.scope == scope
            known = conn.execute(
                select(table.c.id).where(same, table.c.endpoint_sha256 == digest)
            ).scalar()
            if known is not None:  # the same browser again: its keys may be new
                conn.execute(update(table).where(table.c.id == known).values(**keys, **values))
                return int(known)
            # the devices of browsers whose session is over count no more: gone
            seat_lasts, sign_in_lasts = _lasting(timestamp(self.clock()))
            lasts = or_(
                and_(table.c.address.is_(None), seat_lasts),
                and_(table.c.address.is_not(None), sign_in_lasts),
            )
            conn.execute(delete(table).where(same, ~lasts))
            count = conn.execute(select(func.count()).where(same)).scalar() or 0
            if count >= MOST_PER_SCOPE:
                raise _refused(
                    _(
                        "at most %(most)s devices get pushes here; turn one off first",
                        most=MOST_PER_SCOPE,
                    )
                )
            row = {
                "scope": scope,
                "endpoint": found.endpoint,
                "endpoint_sha256": digest,
                "created_at": timestamp(self.clock()),
                **keys,
                **values,
            }
            return int(conn.execute(insert(table).returning(table.c.id), row).scalar_one())

    def remove(self, scope: str, endpoint: object) -> bool:
        """End the subscription of `endpoint` in `scope`; whether there was one."""
        if not isinstance(endpoint, str) or len(endpoint) > ENDPOINT_LONGEST:
            return False
        digest = hashlib.sha256(endpoint.encode("utf-8", "replace")).hexdigest()
        table = SUBSCRIPTIONS
        with self.db.writing() as conn:
            where = (table.c.scope == scope, table.c.endpoint_sha256 == digest)
            return bool(conn.execute(delete(table).where(*where)).rowcount)

    def has(self, scope: str, endpoint: object) -> bool:
        if not isinstance(endpoint, str) or len(endpoint) > ENDPOINT_LONGEST:
            return False
        digest = hashlib.sha256(endpoint.encode("utf-8", "replace")).hexdigest()
        table = SUBSCRIPTIONS
        with self.db.reading() as conn:
            where = (table.c.scope == scope, table.c.endpoint_sha256 == digest)
            return conn.execute(select(table.c.id).where(*where)).first() is not None

    def get(self, subscription_id: object) -> Record | None:
        if isinstance(subscription_id, bool) or not isinstance(subscription_id, int):
            return None
        with self.db.reading() as conn:
            found: Record | None = conn.execute(
                select(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == subscription_id)
            ).first()
            return found

    def drop(self, subscription_id: int) -> None:
        """The push service says the subscription is gone: end it."""
        with self.db.writing() as conn:
            conn.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == subscription_id))

    def count(self) -> int:
        with self.db.reading() as conn:
            return int(conn.execute(select(func.count()).select_from(SUBSCRIPTIONS)).scalar() or 0)


# -- the outbox rows --------------------------------------------------------------------


def also(tx: Tx, seq: int, kind: Kind, seat: Record, payload: dict[str, Any]) -> None:
    """Where a notice of `kind` is written to the seat's person: one row of channel
    "push" for each subscription that reaches them (their seat's, as its holder, or
    their signed-in address's), when `kind` is pushed and their preference for its
    topic is not "none". Table talk is pushed at most once per CHAT_QUIET to each."""
    topic = PUSHED.get(kind)
    if topic is None or is_bot(seat):
        return
    if kind not in ALWAYS and mail_choices(seat.mail or "every")[topic] == "none":
        return
    table, now = SUBSCRIPTIONS, tx.time()
    session_lasts, sign_in_lasts = _lasting(now)
    reaches = [and_(table.c.game_id == tx.game_id, table.c.seat == seat.seat, session_lasts)]
    if seat.email:
        reaches.append(and_(table.c.address == str(seat.email).lower(), sign_in_lasts))
    found = tx.conn.execute(
        select(table.c.id, table.c.holder, table.c.address, table.c.endpoint_sha256)
        .where(or_(*reaches))
        .order_by(table.c.id)
    ).all()
    seen = set()
    for sub in found:
        if sub.endpoint_sha256 in seen or (sub.address is None and sub.holder != seat.token_sha256):
            continue  # one push per device; a seat's subscription only for its holder
        seen.add(sub.endpoint_sha256)
        to = f"push:{sub.id}"
        if kind is Kind.CHAT and _pushed_lately(tx, seat.seat, to, now):
            continue
        facts = {**payload, "holder": seat.token_sha256, "subscription": sub.id}
        row = rows.new_mail(
            tx.game_id,
            seq,
            kind,
            seat.seat,
            to,
            facts,
            now,
            channel=CHANNEL,
            language=seat.language,
        )
        tx.mails.append({**row, "topic": f"s{sub.id}"})


def _lasting(now: str) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """Whether a subscription's browser session lasts at `now`: a seat's (its seat
    session is there), and an address's (its sign-in is used and not over)."""
    table = SUBSCRIPTIONS
    session_lasts = exists().where(SESSIONS.c.id_sha256 == table.c.session_sha256)
    signed_in = timestamp(parse_timestamp(now) - SIGNED_IN)
    sign_in_lasts = exists().where(
        SIGN_INS.c.id_sha256 == table.c.session_sha256, SIGN_INS.c.used_at > signed_in
    )
    return session_lasts, sign_in_lasts


def _pushed_lately(tx: Tx, seat: int, to: str, now: str) -> bool:
    since = timestamp(parse_timestamp(now) - CHAT_QUIET)
    out = rows.OUTBOX.c
    found = tx.conn.execute(
        select(out.id).where(
            out.game_id == tx.game_id,
            out.channel == CHANNEL,
            out.kind == Kind.CHAT.value,
            out.seat == seat,
            out.address == to,
            out.created_at > since,
        )
    ).first()
    written = any(m["address"] == to and m["kind"] == Kind.CHAT.value for m in tx.mails)
    return found is not None or written
