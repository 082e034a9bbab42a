"""Rate limits per client, shared by every web process: kept in Redis when the
broker is Redis, in the process otherwise (one web process: nothing to share)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from pbem.config import Settings

from .bearer import bearer_is

if TYPE_CHECKING:
    from flask.typing import RouteCallable

CREATING = "10 per hour"  # new games one client may create (POST /new, POST /api/games)
ASKING = "5 per 10 minutes"  # My games requests (sign in, sign out everywhere) of one client
SIGNING_IN = "10 per 10 minutes"  # mailed links (sign in, sign out) one client may try
# The dashboard's polls one client may make: its page asks every 3 seconds, 20 a
# minute, so three tabs open at once stay under it.
POLLING_DASHBOARD = "60 per minute"
TALKING = "20 per minute"  # chat lines one client may send (a seat's: 6 a minute, the service)
WATCHING_TALK = "5 per minute"  # spectators' chat lines one client may send
ADMIN_SIGNING_IN = "5 per 10 minutes"  # tries of the admin key one client may make
JOINING = "5 per 10 minutes"  # asks to join an open table one client may make
SUBSCRIBING = "30 per hour"  # push subscriptions one client may post (each game's, My games')
# endpoint: (limit, scope); endpoints of one scope share one count per client
LIMITED = {
    "api.create_game": (CREATING, "creating"),
    "games.create_game": (CREATING, "creating"),
    "mine.send": (ASKING, "asking"),
    "mine.ask_sign_out": (ASKING, "asking"),
    "api.say": (TALKING, "talking"),
    "chat.say": (TALKING, "talking"),
    "chat.spectator_says": (WATCHING_TALK, "watching talk"),
    "mine.sign_in": (SIGNING_IN, "signing in"),
    "mine.sign_out_everywhere": (SIGNING_IN, "signing in"),
    "mine.dashboard_live": (POLLING_DASHBOARD, "polling the dashboard"),
    "admin.sign_in": (ADMIN_SIGNING_IN, "admin signing in"),
    "open.ask": (JOINING, "joining"),
    "open.join": (SIGNING_IN, "joining links"),
    "open.cancel": (SIGNING_IN, "joining links"),
    "open.bots": (SIGNING_IN, "joining links"),
    "push.seat_on": (SUBSCRIBING, "subscribing"),
    "push.address_on": (SUBSCRIBING, "subscribing"),
}


def storage(settings: Settings) -> str:
    """Where the counts live: the broker's Redis, else this process's memory."""
    if settings.rate_limit_storage:
        return settings.rate_limit_storage
    if settings.broker_url.startswith(("redis://", "rediss://")):
        return settings.broker_url
    return "memory://"


def key_prefix(settings: Settings) -> str:
    """The storage keys of this installation (two on one Redis count apart)."""
    tag = hmac.new(settings.signing_key(), b"rate limits", hashlib.sha256).hexdigest()[:12]
    return f"pbem-limits-{tag}"


def init_app(app: Flask, settings: Settings) -> Limiter:
    """A limiter for `app` with the limits of LIMITED on its views."""
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=storage(settings),
        storage_options={"key_prefix": key_prefix(settings)},
        headers_enabled=True,
        # Redis away: count in this process for the while, rather than refuse all.
        swallow_errors=True,
        in_memory_fallback_enabled=True,
        strategy="moving-window",
    )

    def admin() -> bool:  # scripts with the admin key create games without a limit
        return bearer_is(settings.admin_key)

    for endpoint, (limit, scope) in LIMITED.items():
        view = app.view_functions.get(endpoint)
        if view is not None:
            decorate = limiter.shared_limit(limit, scope, exempt_when=admin)
            # the decorator keeps the view's signature; mypy would merge a sync and an
            # async view's return types into one callable that fits neither
            app.view_functions[endpoint] = cast("RouteCallable", decorate(view))
    _check_only_limited_views(app, limiter)
    return limiter


def _check_only_limited_views(app: Flask, limiter: Limiter) -> None:
    """Run the limiter's before-request check only on the views of LIMITED: on every
    other request it only finds that no limit applies, and finding that out (its
    limits resolved for the endpoint, the request's URL rebuilt) is a tenth of an
    API move. The limited views' own wrappers check as before."""
    hooks = app.before_request_funcs.get(None, [])
    for index, hook in enumerate(hooks):
        if hook == limiter._check_request_limit:

            def check(hook: Callable[[], None] = hook) -> None:
                if request.endpoint in LIMITED:
                    hook()

            hooks[index] = check
