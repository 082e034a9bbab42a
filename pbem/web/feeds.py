"""Feeds of my deadlines, Atom and iCalendar, behind a secret address: the token
names the seats and the browser's seat sessions they were held through, signed with
the server's key. A tampered token names nothing (404); a seat drops out of the feed
once that session ends ("Forget my seat", "Sign out") or the seat is handed on."""

from __future__ import annotations

import hmac
from datetime import datetime
from typing import Any

from feedgen.feed import FeedGenerator  # type: ignore[import-untyped]
from flask import Blueprint, Response, abort, url_for
from icalendar import Calendar, Event
from itsdangerous import BadSignature, URLSafeSerializer

from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service.dashboard import session_digest, urgency
from pbem.store.events import parse_timestamp

from .context import parts

bp = Blueprint("feeds", __name__, url_prefix="/feeds")
MOST_SEATS = 200  # a feed token naming more seats than this is refused


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(parts().settings.signing_key(), salt="pbem deadline feed")


def feed_token(held: list[tuple[str, int, str]]) -> str:
    """The secret of the feed of these seats (game, seat, session id)."""
    return str(_serializer().dumps([[g, s, session_digest(i)] for g, s, i in held]))


def _seats(token: str) -> list[tuple[str, int]]:
    """The seats a feed token names whose sessions still hold them; 404 for a
    token this server did not sign."""
    try:
        named = _serializer().loads(token)
    except BadSignature:
        abort(404)
    # Only the spelling this server wrote: base64 leaves the signature's last
    # character spare bits, and another letter there decodes to the same bytes.
    if not hmac.compare_digest(str(_serializer().dumps(named)), token):
        abort(404)
    if not isinstance(named, list) or len(named) > MOST_SEATS:
        abort(404)
    if not all(isinstance(n, list) and len(n) == 3 for n in named):
        abort(404)
    return parts().service.feed_seats([(g, s, d) for g, s, d in named])


def _summaries(token: str) -> list[dict[str, Any]]:
    found = [parts().service.seat_summary(g, s) for g, s in _seats(token)]
    for summary in found:
        summary["title"] = _(GAMES[summary["game"]].title)
    return sorted(found, key=urgency)


def _what(summary: dict[str, Any]) -> str:
    if summary["yours"]:
        return _("%(game)s %(id)s: your turn", game=summary["title"], id=summary["game_id"])
    return _(
        "%(game)s %(id)s: %(name)s to move",
        game=summary["title"],
        id=summary["game_id"],
        name=summary["turn_name"],
    )


@bp.get("/<token>.atom")
def atom(token: str) -> Response:
    games = [g for g in _summaries(token) if g["deadline"]]
    base = parts().settings.base_url.rstrip("/")
    feed = FeedGenerator()
    feed.id(f"{base}/feeds/{token}.atom")
    feed.title(_("My deadlines — %(site)s", site=parts().settings.site_name))
    feed.link(href=f"{base}{url_for('mine.ask')}", rel="alternate")
    feed.updated(max((_when(g["deadline"]) for g in games), default=_now()))
    for game in reversed(games):  # feedgen puts the last entry added first
        entry = feed.add_entry()
        entry.id(f"{base}/g/{game['game_id']}#seq-{game['seq']}")
        until = game["deadline"][:16].replace("T", " ")
        entry.title(_("%(what)s, until %(time)s UTC", what=_what(game), time=until))
        entry.link(href=f"{base}{url_for('play.game', game_id=game['game_id'])}")
        entry.updated(_now())
        entry.summary(game["last"] or _what(game))
    body = feed.atom_str(pretty=True)
    return Response(body, mimetype="application/atom+xml", headers={"Cache-Control": "no-store"})


@bp.get("/<token>.ics")
def calendar(token: str) -> Response:
    base = parts().settings.base_url.rstrip("/")
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")  # the software that wrote it
    cal.add("version", "2.0")
    cal.add("x-wr-calname", _("My deadlines — %(site)s", site=parts().settings.site_name))
    for game in _summaries(token):
        if not game["deadline"]:
            continue
        deadline = _when(game["deadline"])
        event = Event()
        event.add("uid", f"{game['game_id']}-{game['seat']}-{game['seq']}@pbem")
        event.add("summary", _what(game))
        event.add("dtstart", deadline)
        event.add("dtend", deadline)
        event.add("dtstamp", _now())
        event.add("url", f"{base}{url_for('play.game', game_id=game['game_id'])}")
        event.add("description", game["last"] or _what(game))
        cal.add_component(event)
    return Response(cal.to_ical(), mimetype="text/calendar", headers={"Cache-Control": "no-store"})


def _when(text: str) -> datetime:
    return parse_timestamp(text)


def _now() -> datetime:
    return parts().service.clock()
