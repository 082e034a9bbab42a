"""My games: a dashboard of every seat this browser holds and, once signed in by a
link mailed to an address, every game of that address; most urgent first. Asking
with an email mails the sign-in link and the game links, or a link that signs the
address out everywhere: the page says the same whether or not the address plays
here (the scheduler decides, see pbem.service.signing)."""

from __future__ import annotations

import hashlib
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
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.service import BadRequest, Forbidden, NotFound, archive
from pbem.service.dashboard import urgency
from pbem.service.signing import SignedIn

from . import feeds
from .context import parts, seat_sessions

bp = Blueprint("mine", __name__)
# How often one client may ask is limits.ASKING, counted for all web processes.
EVERYWHERE = N_("Signed out everywhere: no browser is signed in as %(address)s now.")


def held_seats() -> list[tuple[str, int, str]]:
    """(game, seat, session id) of every seat this browser holds now; sessions that
    ended (or whose seat moved on, or whose sign-in ended) are forgotten. Signed in,
    the sign-in's session in each game of the address is added (opened the first
    time: one per sign-in and game, however often a cookie asks)."""
    seats = dict(session.get("seats", {}))
    signed = signed_in()
    if signed is not None:
        missing = [
            (held.game_id, held.seat, held.token)
            for held in parts().service.seats_of(signed.address)
            if held.game_id not in seats
        ]
        if missing:
            sign_in_session = str(session.get("sign_in"))
            seats.update(seat_sessions().open_signed_in(signed.sign_in, sign_in_session, missing))
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


def signed_in() -> SignedIn | None:
    """This browser's sign-in, while it holds."""
    session_id = session.get("sign_in")
    if not isinstance(session_id, str):
        return None
    found = parts().service.signed_in(session_id)
    if found is None:
        session.pop("sign_in", None)
    return found


def signed_in_address() -> str | None:
    """The address this browser signed in with, while its sign-in holds."""
    found = signed_in()
    return None if found is None else found.address


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
    choice = archive.chosen(request.args)  # refuses a filter it does not know
    held = held_seats()
    address = signed_in_address()
    games = summaries(held)
    shown, pages = archive.select(games, choice)
    for game in shown:
        if game["status"] == "finished":
            game["result"] = parts().service.game_result(game["game_id"], game["seat"])
    return render_template(
        "my_games.html",
        sent=None,
        email="",
        games=shown,
        any_games=bool(games),
        choice=choice,
        pages=pages,
        kinds=[(name, _(GAMES[name].title)) for name in sorted({g["game"] for g in games})],
        waiting=sum(1 for g in games if g["yours"]),
        address=address,
        profile=parts().service.profile_of(address) if address else None,
        feed=feeds.address(held),
        live=heads(held)[0],
    )


def _asked(kind: str) -> tuple[str, int] | str:
    """Queue a request for a link of `kind` to the form's address; the page says
    the same whoever the address is."""
    email = request.form.get("email", "").strip()
    if "@" not in email or len(email) > 254 or not email.isprintable():
        return _refused(email, _("that is not an email address"))
    try:
        parts().service.ask_for_link(kind, email)
    except BadRequest as refused:  # no mail could be built for it, whoever asks
        return _refused(email, refused.message)
    return render_template("my_games.html", sent=kind, email=email)


def _refused(email: str, why: str) -> tuple[str, int]:
    return render_template("my_games.html", sent=None, email=email, error=why), 400


@bp.post("/my-games")
def send() -> tuple[str, int] | str:
    return _asked("sign_in")


@bp.post("/my-games/sign-out-everywhere")
def ask_sign_out() -> tuple[str, int] | str:
    """Mail the address a link that signs it out of every browser."""
    return _asked("sign_out")


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


def _forget_this_browser() -> None:
    """End this browser's sign-in and every seat session its cookie holds."""
    session_id = session.pop("sign_in", None)
    if isinstance(session_id, str):
        parts().service.sign_out(session_id)
    feeds.forget()
    seats = session.pop("seats", {})
    for game_id, seat_session in seats.items() if isinstance(seats, dict) else []:
        if isinstance(seat_session, str):
            seat_sessions().end(game_id, seat_session)


@bp.post("/feeds/new")
def new_feed() -> Response:
    """Make this browser's deadline feed, or give it a new address."""
    if feeds.make(held_seats()):
        flash(_("Your feeds have a new address; the old one no longer works."))
    return redirect(url_for("mine.ask"), 303)


@bp.post("/my-games/sign-out")
def sign_out() -> Response:
    _forget_this_browser()
    flash(_("Signed out: this browser holds none of your seats now; your links still work."))
    return redirect(url_for("mine.ask"))


@bp.post("/my-games/sign-out-all")
def sign_out_all() -> Response:
    """A signed-in browser ends every sign-in of its address (its own too), and
    the seat sessions they opened."""
    address = signed_in_address()
    if address is not None:
        parts().service.sign_out_address(address)
    _forget_this_browser()
    if address is None:
        flash(_("Signed out: this browser holds none of your seats now; your links still work."))
    else:
        flash(_(EVERYWHERE, address=address))
    return redirect(url_for("mine.ask"))


@bp.get("/my-games/sign-out-everywhere/<token>")
def confirm_sign_out_everywhere(token: str) -> str:
    """The mailed link shows a button: a mail scanner that opens links uses nothing."""
    return render_template("sign_out_everywhere.html", token=token)


@bp.post("/my-games/sign-out-everywhere/<token>")
def sign_out_everywhere(token: str) -> Response:
    address = parts().service.sign_out_everywhere(token)  # refuses a used or stale link
    signed_in()  # forgets this browser's sign-in if it was one of those
    flash(_(EVERYWHERE, address=address))
    return redirect(url_for("mine.ask"))


def heads(held: list[tuple[str, int, str]]) -> tuple[str, int]:
    """A tag of the heads of all the games shown (it moves when any game moves), and
    how many of them wait for this browser's move."""
    clocks = [(g, seat, parts().service.clock_of(g, seat)) for g, seat, _ in held]
    text = ",".join(f"{g}:{c['seq']}" for g, _, c in clocks)
    waiting = sum(1 for _, seat, c in clocks if c["status"] == "playing" and seat in c["waiting"])
    return hashlib.sha256(text.encode()).hexdigest()[:20], waiting


@bp.get("/my-games/live")
def dashboard_live() -> Response:
    """Polled by the dashboard: 304 while no game shown has moved (If-None-Match)."""
    tag, waiting = heads(held_seats())
    answer = jsonify({"tag": tag, "waiting": waiting})
    answer.set_etag(tag)
    answer.headers["Cache-Control"] = "no-cache"
    return answer.make_conditional(request)
