"""Feeds of my deadlines, Atom and iCalendar, behind a secret address: a random id
that names nothing, one per browser that asks for it (a button on My games: a page
that is only looked at never sets the browser's cookie), following the seats the
browser holds (as of its last visit to My games). "New feed address" replaces the id
and "Sign out" drops it; a seat leaves the feed once its session ends ("Forget my seat") or the
seat is handed on. An unknown or revoked id is a 404; an address of the old, signed
kind (it carried its games and seat sessions readably) is 410 Gone. Each entry links
to its seat through the feed (`open_seat`): the link opens the seat in whatever
browser follows it, for as long as the feed lists the seat."""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta
from typing import Any

from feedgen.feed import FeedGenerator  # type: ignore[import-untyped]
from flask import Blueprint, Response, abort, redirect, session, url_for
from icalendar import Alarm, Calendar, Event
from itsdangerous import BadSignature, URLSafeSerializer

from pbem.events import parse_timestamp
from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service.dashboard import urgency

from .context import parts, seat_sessions

bp = Blueprint("feeds", __name__, url_prefix="/feeds")
COOKIE_KEY = "feed"  # the browser's feed id, in its session cookie
OLD_LONGEST = 30_000  # an old signed address named at most 200 seats
LENGTH = timedelta(minutes=30)  # a calendar event: the half hour before the deadline


def address(held: list[tuple[str, int, str]]) -> str | None:
    """The id of this browser's feed, made to follow the seats it holds now (game,
    seat, seat session id); None while it holds none or has no feed. Never sets the
    cookie: an answer that carried the session as it was could, arriving late, take
    a seat opened meanwhile in another tab out of the browser."""
    current = session.get(COOKIE_KEY)
    if not held or not isinstance(current, str):
        return None
    return parts().service.feed_for(current, [s for _, _, s in held], make=False)


def make(held: list[tuple[str, int, str]]) -> bool:
    """Give this browser a new feed of the seats it holds (the old address, if any,
    names nothing from now on); whether it had one."""
    had = isinstance(session.get(COOKIE_KEY), str)
    forget()
    if held:
        session[COOKIE_KEY] = parts().service.feed_for(None, [s for _, _, s in held])
        session.permanent = True
    return had


def forget() -> None:
    """Revoke this browser's feed (signing out): whoever holds seats here next gets
    a feed of their own."""
    feed = session.pop(COOKIE_KEY, None)
    if isinstance(feed, str):
        parts().service.drop_feed(feed)


def _seats(feed: str) -> list[tuple[str, int]]:
    """The seats the feed lists; 404 for an id that names no feed (never made,
    revoked, or made under another server key), 410 for an old signed address."""
    found = parts().service.feed_seats(feed)
    if found is None:
        if _was_signed(feed):
            abort(410, _("this feed address is no longer served: My games shows its new one"))
        abort(404)
    return found


def _was_signed(feed: str) -> bool:
    """Whether `feed` is a feed address of the old kind, signed by this server."""
    if "." not in feed or len(feed) > OLD_LONGEST or not feed.isascii():
        return False
    signer = URLSafeSerializer(parts().settings.signing_key(), salt="pbem deadline feed")
    try:
        named = signer.loads(feed)
    except BadSignature:
        return False
    # Only the spelling this server wrote: base64 leaves the signature's last
    # character spare bits, and another letter there decodes to the same bytes.
    return hmac.compare_digest(str(signer.dumps(named)), feed)


def _summaries(feed: str) -> list[dict[str, Any]]:
    """The feed's games, most urgent first, each with the link that opens its seat
    (signed for this feed) and when it last changed as its seat may see."""
    service = parts().service
    listed = _seats(feed)
    signed = service.feed_entry_links(feed, listed)
    base = parts().settings.base_url.rstrip("/")
    found = []
    for game_id, seat in listed:
        if (game_id, seat) not in signed:
            continue
        summary = service.seat_summary(game_id, seat)
        summary["title"] = _(GAMES[summary["game"]].title)
        where = url_for(
            "feeds.open_seat",
            feed=feed,
            game_id=game_id,
            seat=seat,
            signature=signed[game_id, seat],
        )
        summary["link"] = f"{base}{where}"
        summary["changed"] = service.changed_at(game_id, summary["last_seq"])
        found.append(summary)
    return sorted(found, key=urgency)


def _what(summary: dict[str, Any]) -> str:
    if summary["yours"]:
        return _("%(game)s: your turn", game=summary["called"])
    return _("%(game)s: %(name)s to move", game=summary["called"], name=summary["turn_name"])


@bp.get("/<feed>.atom")
def atom(feed: str) -> Response:
    games = [g for g in _summaries(feed) if g["deadline"]]
    base = parts().settings.base_url.rstrip("/")
    writer = FeedGenerator()
    writer.id(f"{base}/feeds/{feed}.atom")
    writer.title(_("My deadlines — %(site)s", site=parts().settings.site_name))
    writer.link(href=f"{base}{url_for('mine.ask')}", rel="alternate")
    # the time of the last change, never a deadline still to come
    writer.updated(max((g["changed"] for g in games), default=_now()))
    for game in reversed(games):  # feedgen puts the last entry added first
        entry = writer.add_entry()
        entry.id(f"{base}/g/{game['game_id']}#seq-{game['last_seq']}")
        until = game["deadline"][:16].replace("T", " ")
        entry.title(_("%(what)s, until %(time)s UTC", what=_what(game), time=until))
        entry.link(href=game["link"])
        entry.updated(game["changed"])
        entry.summary(game["last"] or _what(game))
    body = writer.atom_str(pretty=True)
    return Response(body, mimetype="application/atom+xml", headers={"Cache-Control": "no-store"})


@bp.get("/<feed>.ics")
def calendar(feed: str) -> Response:
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")  # the software that wrote it
    cal.add("version", "2.0")
    cal.add("x-wr-calname", _("My deadlines — %(site)s", site=parts().settings.site_name))
    for game in _summaries(feed):
        if not game["deadline"]:
            continue
        deadline = _when(game["deadline"])
        event = Event()
        event.add("uid", f"{game['game_id']}-{game['seat']}-{game['last_seq']}@pbem")
        event.add("summary", _what(game))
        event.add("dtstart", deadline - LENGTH)
        event.add("dtend", deadline)
        event.add("dtstamp", _now())
        event.add("url", game["link"])
        event.add("description", game["last"] or _what(game))
        for hours in parts().service.options(game["game_id"]).get("reminders") or []:
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("description", _what(game))
            alarm.add("trigger", deadline - timedelta(hours=hours))
            event.add_component(alarm)
        cal.add_component(event)
    return Response(cal.to_ical(), mimetype="text/calendar", headers={"Cache-Control": "no-store"})


@bp.get("/<feed>/seat/<game_id>/<int:seat>/<signature>")
def open_seat(feed: str, game_id: str, seat: int, signature: str) -> Any:
    """A feed entry's link: open the seat in this browser (as its personal link
    does) while the feed lists it; 404 once the feed's address is renewed or
    revoked, the seat forgotten or handed on, or for a link the feed never had."""
    token = parts().service.feed_entry_token(feed, game_id, seat, signature)
    if token is None:
        abort(404)
    seats = dict(session.get("seats", {}))
    held = seats.get(game_id)
    # a browser that holds this seat keeps its session (the feed follows it)
    if not (isinstance(held, str) and seat_sessions().token(game_id, held) == token):
        if isinstance(held, str):
            seat_sessions().end(game_id, held)
        seats[game_id] = seat_sessions().open(game_id, seat, token)
        session["seats"] = seats
        session.permanent = True
    return redirect(url_for("play.game", game_id=game_id))


def _when(text: str) -> datetime:
    return parse_timestamp(text)


def _now() -> datetime:
    return parts().service.clock()
