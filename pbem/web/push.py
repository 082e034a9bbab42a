"""Web Push on the pages: the service worker (served at the site's root, so that its
scope is the whole site), the panel that turns a device's notifications on and off
(templates/_push.html, static/push.js), and the JSON endpoints it posts a browser's
subscription to: for the seat this browser holds in a game, or for every seat of the
address it is signed in with on My games. Every request needs the page's CSRF token;
the subscription is checked in pbem.service.push, and lasts as long as the browser's seat
session (or its sign-in)."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    request,
    send_from_directory,
    session,
    url_for,
)

from pbem import resources
from pbem.i18n import gettext as _
from pbem.push.keys import application_server_key
from pbem.service import BadRequest, Forbidden
from pbem.service.push import Subscriptions, address_scope, checked, seat_scope
from pbem.service.signing import SignedIn
from pbem.service.tokens import token_hash

from . import mine, play
from .context import parts

bp = Blueprint("push", __name__)
LONGEST_BODY = 4096  # bytes: a subscription is a few hundred


@bp.app_context_processor
def _panel() -> dict[str, Any]:
    return {"push_panel": push_panel}


def push_panel(game_id: str | None) -> dict[str, str] | None:
    """What the panel needs: the server's key and where it posts, for a game's seat
    (`game_id`) or for the signed-in address (None). None (no panel) when the key
    pair cannot be read or made (an instance folder this process may not write)."""
    try:
        key = application_server_key(parts().settings)
    except (OSError, ValueError) as error:
        current_app.logger.warning("no Web Push: the VAPID key pair cannot be had: %s", error)
        return None
    if game_id is None:
        on, off, state = "push.address_on", "push.address_off", "push.address_state"
        urls = {k: url_for(v) for k, v in (("on", on), ("off", off), ("state", state))}
    else:
        on, off, state = "push.seat_on", "push.seat_off", "push.seat_state"
        urls = {
            k: url_for(v, game_id=game_id) for k, v in (("on", on), ("off", off), ("state", state))
        }
    return {
        **urls,
        "key": key,
        "worker": url_for("push.worker"),
    }


def _subscriptions() -> Subscriptions:
    return Subscriptions(parts().database, parts().service.clock)


def _body() -> Any:
    """The request's JSON, small; BadRequest for anything else."""
    if (request.content_length or 0) > LONGEST_BODY:
        raise BadRequest(_("this request is too large"))
    body = request.get_json(silent=True)
    if body is None:
        raise BadRequest(_("this request cannot be read"))
    return body


def _seat(game_id: str) -> tuple[int, str, str]:
    """The seat this browser holds in the game, its token's hash and the browser's
    seat session."""
    token = play._token(game_id)
    seat = parts().service.seat_of(game_id, token) if token else None
    session_id = session.get("seats", {}).get(game_id)
    if seat is None or token is None or not isinstance(session_id, str):
        raise Forbidden(_("open your personal link to get notifications of this game"))
    return seat, token_hash(token), session_id


def _address() -> SignedIn:
    signed = mine.signed_in()
    if signed is None:
        raise Forbidden(_("sign in on My games to get notifications of all your games"))
    return signed


def _endpoint() -> object:
    body = _body()
    return body.get("endpoint") if isinstance(body, dict) else None


@bp.get("/push-sw.js")
def worker() -> Response:
    """The service worker, at the root: its scope is the whole site."""
    answer = send_from_directory(resources.STATIC, "push-sw.js", mimetype="text/javascript")
    answer.headers["Cache-Control"] = "no-cache"
    return answer


@bp.post("/g/<game_id>/push")
def seat_on(game_id: str) -> tuple[dict[str, str], int]:
    seat, holder, session_id = _seat(game_id)
    found = checked(_body(), loopback_http=parts().settings.push_loopback_http)
    _subscriptions().add_for_seat(game_id, seat, holder, session_id, found)
    return {"push": "on"}, 201


@bp.post("/g/<game_id>/push/off")
def seat_off(game_id: str) -> dict[str, str]:
    seat, _holder, _session = _seat(game_id)
    _subscriptions().remove(seat_scope(game_id, seat), _endpoint())
    return {"push": "off"}


@bp.post("/g/<game_id>/push/state")
def seat_state(game_id: str) -> dict[str, str]:
    seat, _holder, _session = _seat(game_id)
    on = _subscriptions().has(seat_scope(game_id, seat), _endpoint())
    return {"push": "on" if on else "off"}


@bp.post("/my-games/push")
def address_on() -> tuple[dict[str, str], int]:
    signed = _address()
    found = checked(_body(), loopback_http=parts().settings.push_loopback_http)
    _subscriptions().add_for_address(signed.address, signed.sign_in, found)
    return {"push": "on"}, 201


@bp.post("/my-games/push/off")
def address_off() -> dict[str, str]:
    _subscriptions().remove(address_scope(_address().address), _endpoint())
    return {"push": "off"}


@bp.post("/my-games/push/state")
def address_state() -> dict[str, str]:
    on = _subscriptions().has(address_scope(_address().address), _endpoint())
    return {"push": "on" if on else "off"}
