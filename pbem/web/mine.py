"""My games: a dashboard of every seat this browser holds and, once signed in by a
link mailed to an address, every game of that address; most urgent first. Asking
with an email mails the sign-in link and the game links: the page says the same
whether or not the address plays here, and asking again soon mails nothing new."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from flask import (
    Blueprint,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug import Response

from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service import Forbidden, NotFound
from pbem.service.dashboard import urgency

from . import feeds
from .context import parts, seat_sessions

bp = Blueprint("mine", __name__)
WINDOW = timedelta(minutes=10)  # at most one such mail per address in this time
# How often one client may ask is limits.ASKING, counted for all web processes.


def held_seats() -> list[tuple[str, int, str]]:
    """(game, seat, session id) of every seat this browser holds now; sessions that
    ended (or whose seat moved on) are forgotten. Signed in, the address's seats
    this browser does not hold yet are opened first."""
    seats = dict(session.get("seats", {}))
    address = signed_in_address()
    if address is not None:
        for held in parts().service.seats_of(address):
            if held.game_id not in seats:
                seats[held.game_id] = seat_sessions().open(held.game_id, held.seat, held.token)
    found, kept = [], {}
    for game_id, session_id in seats.items():
        if not isinstance(session_id, str):
            continue
        token = None
        try:
            token = seat_sessions().token(game_id, session_id)
            seat = parts().service.seat_of(game_id, token) if token else None
        except (Forbidden, NotFound):
            seat = None
        if token is None or seat is None:
            seat_sessions().end(game_id, session_id)
            continue
        kept[game_id] = session_id
        found.append((game_id, seat, session_id))
    if kept != session.get("seats", {}):
        session["seats"] = kept
        session.permanent = True
    return found


def signed_in_address() -> str | None:
    """The address this browser signed in with, while its sign-in holds."""
    session_id = session.get("sign_in")
    if not isinstance(session_id, str):
        return None
    address = parts().service.signed_in(session_id)
    if address is None:
        session.pop("sign_in", None)
    return address


def summaries(held: list[tuple[str, int, str]]) -> list[dict[str, Any]]:
    """The dashboard's rows, most urgent first."""
    found = []
    for game_id, seat, _session in held:
        summary = parts().service.seat_summary(game_id, seat)
        summary["title"] = _(GAMES[summary["game"]].title)
        found.append(summary)
    return sorted(found, key=urgency)


@bp.get("/my-games")
def ask() -> str:
    held = held_seats()
    games = summaries(held)
    return render_template(
        "my_games.html",
        sent=False,
        email="",
        games=games,
        waiting=sum(1 for g in games if g["yours"]),
        address=signed_in_address(),
        feed=feeds.address(held),
        live=heads(held)[0],
    )


@bp.post("/my-games")
def send() -> tuple[str, int] | str:
    email = request.form.get("email", "").strip()
    if "@" not in email or len(email) > 254 or not email.isprintable():
        return render_template(
            "my_games.html", sent=False, email=email, error=_("that is not an email address")
        ), 400
    parts().service.ask_to_sign_in(email, WINDOW)
    return render_template("my_games.html", sent=True, email=email)


@bp.get("/my-games/sign-in/<token>")
def confirm_sign_in(token: str) -> str:
    """The mailed link shows a button: a mail scanner that opens links uses nothing."""
    return render_template("sign_in.html", token=token)


@bp.post("/my-games/sign-in/<token>")
def sign_in(token: str) -> Response:
    address, session_id = parts().service.sign_in(token)  # refuses a used or stale link
    old = session.get("sign_in")
    if isinstance(old, str):
        parts().service.sign_out(old)
    session["sign_in"] = session_id
    session.permanent = True
    held_seats()  # opens the address's seats in this browser
    flash(_("Signed in as %(address)s: your games are below.", address=address))
    return redirect(url_for("mine.ask"))


@bp.post("/my-games/sign-out")
def sign_out() -> Response:
    session_id = session.pop("sign_in", None)
    if isinstance(session_id, str):
        parts().service.sign_out(session_id)
    feeds.forget()
    seats = session.pop("seats", {})
    for game_id, seat_session in seats.items() if isinstance(seats, dict) else []:
        if isinstance(seat_session, str):
            seat_sessions().end(game_id, seat_session)
    flash(_("Signed out: this browser holds none of your seats now; your links still work."))
    return redirect(url_for("mine.ask"))


def heads(held: list[tuple[str, int, str]]) -> tuple[str, int]:
    """A tag of the heads of all the games shown (it moves when any game moves), and
    how many of them wait for this browser's move."""
    clocks = [(g, seat, parts().service.clock_of(g)) for g, seat, _ in held]
    text = ",".join(f"{g}:{c['seq']}" for g, _, c in clocks)
    waiting = sum(1 for _, seat, c in clocks if c["status"] == "playing" and c["turn"] == seat)
    return hashlib.sha256(text.encode()).hexdigest()[:20], waiting


@bp.get("/my-games/live")
def dashboard_live() -> Response:
    """Polled by the dashboard: 304 while no game shown has moved (If-None-Match)."""
    tag, waiting = heads(held_seats())
    answer = jsonify({"tag": tag, "waiting": waiting})
    answer.set_etag(tag)
    answer.headers["Cache-Control"] = "no-cache"
    return answer.make_conditional(request)
