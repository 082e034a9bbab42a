"""A request id for every request, on every log line written while it is served and
in the answer's X-Request-ID header: the one a proxy in front sent, when it is a
sane one, else a new one; with the game (and seat) its address names."""

from __future__ import annotations

import re
import uuid

from flask import Flask, Response, g, request

from pbem import logs

HEADER = "X-Request-ID"
SANE = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id(given: str | None) -> str:
    """`given` when it is 1 to 64 letters, digits, dots, hyphens or underscores;
    else a new id."""
    if given and SANE.fullmatch(given):
        return given
    return uuid.uuid4().hex


def _begin() -> None:
    g.request_id = request_id(request.headers.get(HEADER))
    logs.clear()
    found = request.view_args or {}
    seat = found.get("seat")
    logs.bind(
        request_id=g.request_id,
        game_id=found.get("game_id") if isinstance(found.get("game_id"), str) else None,
        seat=seat if isinstance(seat, int) else None,
    )


def _tell(response: Response) -> Response:
    said = g.get("request_id")
    if said:
        response.headers[HEADER] = said
    return response


def _end(error: BaseException | None) -> None:
    logs.clear()


def init_app(app: Flask) -> None:
    """Give every request of `app` its id (first of its hooks, so that every line
    the others log carries it)."""
    app.before_request_funcs.setdefault(None, []).insert(0, _begin)
    app.after_request(_tell)
    app.teardown_request(_end)
