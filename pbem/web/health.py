"""What the server says of itself to the machines around it: /healthz (the process
answers; it never asks the database), /readyz (every part it needs answers: 200, or
503 naming each part that does not) and /metrics (Prometheus text, for the admin
key only, or on the listening address kept for it). All three answer JSON for any
refusal, take no cookie or form, and are neither rate limited nor CSRF checked."""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, request

from pbem import metrics
from pbem.service.gauges import StoreGauges
from pbem.service.health import readiness

from .bearer import bearer_is
from .context import parts

bp = Blueprint("health", __name__)
PATHS = ("/healthz", "/readyz", "/metrics")  # answered in JSON, errors included
NO_STORE = {"Cache-Control": "no-store"}


@bp.get("/healthz")
def healthz() -> tuple:
    """Alive: the process answers (nothing else is asked)."""
    return {"ok": True}, 200, NO_STORE


@bp.get("/readyz")
def readyz() -> tuple:
    """Ready: the database (at the current migration), the broker, the scheduler and
    the workers all answer; else 503 saying which does not."""
    built = parts()
    answer = readiness(built.database, built.settings, built.service.clock)
    return answer, 200 if answer["ready"] else 503, NO_STORE


@bp.get("/metrics")
def prometheus() -> Response:
    """Every web process's counts and the database's gauges, in Prometheus text;
    only with `Authorization: Bearer <admin key>` (no admin key: no such page), or
    to a request that came in on the `metrics_bind` address."""
    built = parts()
    key = built.settings.admin_key
    if not _on(built.settings.metrics_bind):
        if not key:
            abort(404)
        if not bearer_is(key):
            return _key_please()
    gauges = StoreGauges(built.database, built.service.clock, built.settings.heartbeat_seconds)
    text = metrics.exposition(gauges)
    return Response(text, 200, {**NO_STORE, "Content-Type": metrics.CONTENT_TYPE})


ANY_HOST = ("0.0.0.0", "::", "*")


def _on(bind: str) -> bool:
    """Whether the request came in on the listening address `bind` (IP:PORT): the
    connection's own socket says so (gunicorn's and werkzeug's servers hand it to
    the app), never anything the client sent."""
    if not bind:
        return False
    connection = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    try:
        local = connection.getsockname() if connection is not None else None
    except OSError:
        return False
    if not isinstance(local, tuple):  # a Unix socket
        return False
    host, _, port = bind.rpartition(":")
    host = host.strip("[]")
    return str(local[1]) == port and (host in ANY_HOST or host == local[0])


def _key_please() -> Response:
    response = jsonify(error="send the admin key: Authorization: Bearer <key>", detail=None)
    response.status_code = 401
    response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return response
