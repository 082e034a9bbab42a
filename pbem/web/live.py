"""Pages that update themselves: a small JSON answer of a game's head, polled by the
page with If-None-Match on the game's seq (304 while nothing happened), and what the
others did since a seq the browser last saw. Polling, not server-sent events: each
poll is one short request, so it works behind gunicorn's sync workers and any number
of web processes, with nothing held open and nothing shared between processes."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug import Response

from pbem.i18n import gettext as _
from pbem.service import BadRequest

from .context import parts
from .play import _may_watch, _seat, _token
from .present import pages_of

bp = Blueprint("live", __name__)
MOST_TOLD = 50  # at most this many of the latest events in one answer
SEEN = "X-Pbem-Seen"  # the header in which a seat's page says how far it showed the game


@bp.get("/g/<game_id>/live")
def head(game_id: str) -> Response:
    """The game's seq, status, seat to move and deadline; with `since=N`, the
    others' events after seq N as the viewer may read them (`watch=1`: as a
    spectator) and `marks`, what they changed on the board (for outlining). 304
    when If-None-Match names the tag the game is at for the viewer (a spectator's
    chat line changes no player's tag while the game is on). With the header
    `X-Pbem-Seen: N`, a seat's page says it showed the game up to seq N (recorded
    for the seat of the browser's session, cut to the head)."""
    watching = request.args.get("watch") == "1"
    seat = None if watching else _seat(game_id)
    _may_watch(game_id, seat)
    service = parts().service
    # The seat's page showed the game this far: said in a header, which only the
    # page's own script can send (a link or a form from another site cannot).
    seen = request.headers.get(SEEN)
    if seen is not None:
        if not (seen.isascii() and seen.isdigit() and len(seen) < 10):
            raise BadRequest(_("a seq is a whole number from 0"))
        if seat is not None:
            service.saw(game_id, _token(game_id), int(seen))
    clock = service.clock_of(game_id, seat)
    since = request.args.get("since", "")
    told: list[dict[str, Any]] = []
    marks: list[str] = []
    if since.isascii() and since.isdigit() and len(since) < 10:
        later = service.history(game_id, seat, after=int(since))  # only what is new
        told = [
            {"seq": h.seq, "seat": h.seat, "text": h.text}
            for h in later[-MOST_TOLD:]
            if seat is None or h.seat != seat
        ]
        if told:
            marks = _outlined(game_id, max(int(since), 1), seat)
    answer = jsonify({**clock, "seat": seat, "since": told, "marks": marks})
    answer.headers["Cache-Control"] = "no-cache"
    answer.headers["Vary"] = "Cookie"
    if not told:  # an answer with events depends on more than the seq
        answer.set_etag(clock["tag"])
        return answer.make_conditional(request)
    return answer


def _outlined(game_id: str, since: int, seat: int | None) -> list[str]:
    """What the others changed on the board since `since`, as the viewer sees it:
    the drawing's ids the page outlines (the game's Pages say which)."""
    service = parts().service
    now = service.state_at(game_id, None, seat)
    before = service.state_at(game_id, since, seat)
    _plugin, pages = pages_of(now)
    return pages.outlined(before, now, seat)


@bp.app_template_global()
def game_clock(game_id: str, viewer: int | None = None) -> dict[str, Any]:
    """For the game page: the head, the seat to move and its deadline, and the tag
    its polling compares (what `viewer`, a seat or None, would be shown)."""
    return parts().service.clock_of(game_id, viewer)
