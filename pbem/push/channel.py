"""The Web Push channel: an adapter of the notification port (pbem.service.notices)
that turns a claimed outbox row of channel "push" into a short notice in the seat's
language (a title, a line, the address of the seat's page; nothing any page would
not show that person) and sends it to the subscription's push service, encrypted
to the browser's keys (aes128gcm, RFC 8291) and signed with the server's VAPID key
(RFC 8292). A subscription the push service says is gone (404, 410) is dropped and
its notice skipped; 429 and 5xx answers, and a service that cannot be reached, are
tried again later; any other answer fails the notice for good."""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

import requests
from pywebpush import WebPusher

from pbem import i18n
from pbem.config import Settings
from pbem.games.names import said_name
from pbem.i18n import gettext as _
from pbem.service import naming, rows
from pbem.service.notices import DeliveryFailed, Kind, Moot, kind_of
from pbem.service.push import Subscriptions
from pbem.store.database import Database

from .keys import subject, vapid

TIMEOUT = 10.0  # seconds to wait for a push service
SIGNED_FOR = 12 * 3600  # how long a push's VAPID signature holds, in seconds
# How long a push service keeps a notice for a browser that is away (its TTL), and
# how urgently it is delivered (RFC 8030 Urgency), per kind.
TTL = {Kind.YOUR_TURN: 86_400, Kind.UNDO_REQUEST: 86_400, Kind.GAME_OVER: 259_200}
TTL[Kind.CHAT] = 3_600
URGENCY = {Kind.YOUR_TURN: "high", Kind.UNDO_REQUEST: "normal", Kind.GAME_OVER: "normal"}
URGENCY[Kind.CHAT] = "low"


class PushChannel:
    """The Web Push adapter: `name` "push", one HTTP session per thread."""

    name = "push"

    def __init__(self, database: Database, settings: Settings, subscriptions: Subscriptions):
        self.db = database
        self.settings = settings
        self.subscriptions = subscriptions
        self._local = threading.local()

    def delivery_id(self) -> str:
        return uuid.uuid4().hex

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            session.trust_env = False  # no proxy or netrc of the environment
            session.max_redirects = 0  # a push service answers; it never sends us on
        return session

    def notice(self, row: Any) -> dict[str, str]:
        """What the push says (in the row's language): title, body, the seat's page,
        and a tag that lets a newer notice of the kind replace an older one. Moot
        when the seat changed hands or the turn was played since."""
        kind = kind_of(row.kind)
        with self.db.reading() as conn:
            game = rows.game(conn, row.game_id)
            seats = rows.seats(conn, row.game_id) if game is not None else []
        seat = next((s for s in seats if s.seat == row.seat), None)
        if game is None or seat is None or seat.token_sha256 != row.payload.get("holder"):
            raise Moot("the seat has changed hands since this push was written")
        if kind is Kind.YOUR_TURN and (not seat.waiting or game.status != "playing"):
            raise Moot("the turn was played before this push went")
        chosen = row.language if row.language in i18n.LANGUAGES else i18n.DEFAULT
        with i18n.speaking(chosen):
            names = {s.seat: said_name(s.name) for s in seats}
            about = {"game": naming.label(game.name, names, row.seat)}
            if kind is Kind.YOUR_TURN:
                title, body = _("Your turn"), _("%(game)s: it is your turn.", **about)
            elif kind is Kind.GAME_OVER:
                title = _("Game over")
                body = _("%(game)s has ended: see the final scores.", **about)
            elif kind is Kind.UNDO_REQUEST:
                asker = names.get(row.payload.get("asked_by"), "?")
                title = _("Undo asked")
                body = _("%(game)s: %(asker)s asks to take back a move.", asker=asker, **about)
            elif kind is Kind.CHAT:
                title, body = (
                    _("Table talk"),
                    _("%(game)s: new lines at the table.", **about),
                )
            else:
                raise ValueError(f"no push is written for {row.kind!r} rows")
        url = f"{self.settings.base_url.rstrip('/')}/g/{row.game_id}"
        return {"title": title, "body": body, "url": url, "tag": f"{row.game_id}:{kind.value}"}

    def deliver(self, row: Any) -> None:
        found = self.subscriptions.get(row.payload.get("subscription"))
        if found is None:
            raise Moot("the device turned its pushes off")
        if not reaches_public(found.endpoint, loopback=self.settings.push_loopback_http):
            self.subscriptions.drop(found.id)
            raise Moot("the push endpoint names no public address: dropped")
        data = json.dumps(self.notice(row), ensure_ascii=False).encode("utf-8")
        kind = kind_of(row.kind)
        endpoint = urlsplit(found.endpoint)
        claims = {
            "sub": subject(self.settings),
            "aud": f"{endpoint.scheme}://{endpoint.netloc}",
            "exp": int(time.time()) + SIGNED_FOR,
        }
        try:
            signed = vapid(self.settings).sign(claims)
        except (OSError, ValueError) as error:  # the instance's key pair, for now
            raise DeliveryFailed(f"the VAPID key pair cannot be had: {error}") from error
        headers = {**signed, "Urgency": URGENCY.get(kind, "normal")}
        info = {"endpoint": found.endpoint, "keys": {"p256dh": found.p256dh, "auth": found.auth}}
        try:
            answer = WebPusher(info, requests_session=self._session()).send(
                data,
                headers,
                ttl=TTL.get(kind, 3600),
                content_encoding="aes128gcm",
                timeout=TIMEOUT,
            )
        except requests.TooManyRedirects as error:
            raise DeliveryFailed(
                "the push service answered with a redirect", permanent=True
            ) from error
        except requests.RequestException as error:
            raise DeliveryFailed(
                f"the push service cannot be reached: {type(error).__name__}"
            ) from error
        status = int(getattr(answer, "status_code", 0))
        if 200 <= status < 300:
            return
        if status in (404, 410):
            self.subscriptions.drop(found.id)
            raise Moot(f"the push service says the subscription is gone ({status}): dropped")
        said = f"the push service answered {status}"
        raise DeliveryFailed(said, permanent=not (status == 429 or status >= 500))

    def warm(self) -> None:
        vapid(self.settings)

    def close(self) -> None:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is not None:
            session.close()
            self._local.session = None


def reaches_public(endpoint: str, *, loopback: bool = False) -> bool:
    """Whether every address `endpoint`'s host resolves to now is global (and so no
    subscription makes a worker post into the server's own network: a name checked
    when subscribed may resolve elsewhere later); `loopback` (tests, development)
    also takes the loopback. A host that does not resolve is let through: the send
    fails and is tried again, as for any service that cannot be reached."""
    parts = urlsplit(endpoint)
    try:
        found = socket.getaddrinfo(parts.hostname or "", parts.port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return True
    for *_rest, address in found:
        ip = ipaddress.ip_address(str(address[0]).split("%")[0])
        if not (ip.is_global or (loopback and ip.is_loopback)):
            return False
    return True
