"""What the server says of itself to the machines around it: /healthz (the process
answers; it never asks the database), /readyz (every part it needs answers: 200, or
503 naming each part that does not) and /metrics (Prometheus text, for the admin
key only). All three answer JSON for any refusal, take no cookie or form, and are
neither rate limited nor CSRF checked."""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify

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
    only with `Authorization: Bearer <admin key>` (no admin key: no such page)."""
    built = parts()
    key = built.settings.admin_key
    if not key:
        abort(404)
    if not bearer_is(key):
        response = jsonify(error="send the admin key: Authorization: Bearer <key>", detail=None)
        response.status_code = 401
        response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    text = metrics.exposition(StoreGauges(built.database, built.service.clock))
    return Response(text, 200, {**NO_STORE, "Content-Type": metrics.CONTENT_TYPE})
