"""Pages that update themselves: a small JSON answer of a game's head, polled by the
page with If-None-Match on the game's seq (304 while nothing happened), and what the
others did since a seq the browser last saw. Polling, not server-sent events: each
poll is one short request, so it works behind gunicorn's sync workers and any number
of web processes, with nothing held open and nothing shared between processes."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug import Response

from .context import parts
from .play import _may_watch, _seat

bp = Blueprint("live", __name__)
MOST_TOLD = 50  # at most this many of the latest events in one answer


@bp.get("/g/<game_id>/live")
def head(game_id: str) -> Response:
    """The game's seq, status, seat to move and deadline; with `since=N`, the
    others' events after seq N as the viewer may read them (`watch=1`: as a
    spectator). 304 when If-None-Match names the tag the game is at for the viewer
    (a spectator's chat line changes no player's tag while the game is on)."""
    watching = request.args.get("watch") == "1"
    seat = None if watching else _seat(game_id)
    _may_watch(game_id, seat)
    service = parts().service
    clock = service.clock_of(game_id, seat)
    since = request.args.get("since", "")
    told: list[dict[str, Any]] = []
    if since.isascii() and since.isdigit() and len(since) < 10:
        censor = service.censor(game_id, seat)
        later = [h for h in service.history(game_id, seat) if h.seq > int(since)]
        told = [
            {"seq": h.seq, "seat": h.seat, "text": censor(h.text)}
            for h in later[-MOST_TOLD:]
            if seat is None or h.seat != seat
        ]
    answer = jsonify({**clock, "seat": seat, "since": told})
    answer.headers["Cache-Control"] = "no-cache"
    answer.headers["Vary"] = "Cookie"
    if not told:  # an answer with events depends on more than the seq
        answer.set_etag(clock["tag"])
        return answer.make_conditional(request)
    return answer


@bp.app_template_global()
def game_clock(game_id: str, viewer: int | None = None) -> dict[str, Any]:
    """For the game page: the head, the seat to move and its deadline, and the tag
    its polling compares (what `viewer`, a seat or None, would be shown)."""
    return parts().service.clock_of(game_id, viewer)
