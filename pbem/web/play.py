"""The game pages: entering by a personal link, the player's (or spectator's) page,
taking a turn, undo, and stepping through the history."""

from __future__ import annotations

import re
import secrets
from contextlib import suppress
from typing import Any

from flask import (
    Blueprint,
    flash,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug import Response

from pbem import i18n, metrics
from pbem.events import UndoDone
from pbem.i18n import gettext as _
from pbem.i18n import ngettext
from pbem.service import BadRequest, Forbidden, Illegal, ServiceError, Stale
from pbem.service.waiting import waiting

from . import present
from .context import parts, seat_sessions

bp = Blueprint("play", __name__)
WHOLE = re.compile(r"[0-9]{1,9}", re.A)  # a seq or a number of days, as typed in a form
MAX_LINES = 4  # the `line` fields of a turn form read, at most


def _token(game_id: str) -> str | None:
    """The seat token this browser's session holds in the game (the cookie holds only
    the session's id); a session that was ended or whose seat moved on is forgotten."""
    session_id = session.get("seats", {}).get(game_id)
    if not isinstance(session_id, str):
        return None
    token = seat_sessions().token(game_id, session_id)
    if token is None:
        _forget(game_id)
    return token


def _forget(game_id: str) -> None:
    """End this browser's session in the game, on the server: a copy of the cookie
    dies with it."""
    seats = dict(session.get("seats", {}))
    session_id = seats.pop(game_id, None)
    session["seats"] = seats
    if isinstance(session_id, str):
        seat_sessions().end(game_id, session_id)


def _seat(game_id: str) -> int | None:
    """The seat this browser plays in the game (None: a spectator)."""
    token = _token(game_id)
    if not token:
        return None
    try:
        return parts().service.seat_of(game_id, token)
    except Forbidden:
        _forget(game_id)  # the seat was handed on: this link is dead
        return None


WATCHED = 50  # games a browser keeps watching after resigning there, the latest


def let_watch(game_id: str) -> None:
    """Let this browser watch a game it resigned a seat of (even a private one)."""
    kept = [g for g in session.get("watching", []) if isinstance(g, str) and g != game_id]
    session["watching"] = [*kept, game_id][-WATCHED:]


def _may_watch(game_id: str, seat: int | None) -> None:
    """A private game is shown to its seats, and to a browser whose seat resigned."""
    resigned = game_id in session.get("watching", [])
    if seat is None and not resigned and not parts().service.options(game_id)["public"]:
        raise Forbidden(
            _(
                "this game is private: open your personal link (from your invitation mail),"
                " or ask for your links on the My games page"
            )
        )


@bp.app_context_processor
def waiting_on_you() -> dict[str, int]:
    """Every page's count of the games waiting on this browser's move (its title and
    header show it): the seat sessions its cookie holds, a sign-in's included, in
    one query; nothing is asked of a browser that holds none."""
    if not has_request_context():
        return {}
    held = session.get("seats")
    if not isinstance(held, dict) or not held:
        return {}
    sessions = seat_sessions()
    return {"games_waiting": waiting(sessions.db, sessions.clock, held)}


@bp.get("/g/<game_id>/<token>")
def enter(game_id: str, token: str) -> Any:
    """A personal link: remember the seat in this browser, then leave the token out
    of the address bar. A browser that holds another seat of the game is asked
    first which one it is to be (see `switch`)."""
    try:
        seat = parts().service.seat_of(game_id, token)  # refuses a wrong or dead link
    except Forbidden:
        if parts().service.resigned_seat(game_id, token) is None:
            raise
        let_watch(game_id)  # the link of a seat that resigned only watches
        return redirect(url_for("play.game", game_id=game_id))
    if seat is None:  # no token at all, which this route never has
        raise Forbidden(_("this needs your personal link (a seat token)"))
    held = _seat(game_id)
    if held is not None and held != seat:
        return _switch_question(game_id, held, seat, token)
    hold(game_id, seat, token)
    return redirect(url_for("play.game", game_id=game_id))


def hold(game_id: str, seat: int, token: str) -> None:
    """This browser holds the seat from now on (a session it held in the game
    before ends), and its mails follow the browser's language if nobody chose one."""
    _forget(game_id)
    session_id = seat_sessions().open(game_id, seat, token)
    session["seats"] = {**session.get("seats", {}), game_id: session_id}
    session.permanent = True
    parts().service.first_visit(game_id, token, i18n.language())


def _switch_question(game_id: str, held: int, seat: int, token: str) -> Any:
    """Ask whether to be the link's seat rather than the one this browser holds.
    The token goes on only in the switch form's POST body: no link on the page
    carries it, and the page is neither cached nor sent as a referrer."""
    names = {link.seat: link.name for link in parts().service.seat_links(game_id)}
    page = render_template(
        "switch_seat.html",
        game_id=game_id,
        you=names[held],
        other=names[seat],
        token=token,
        switch_back_home=True,  # the language switch's link must not carry the token
    )
    return page, 200, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@bp.post("/g/<game_id>/switch")
def switch(game_id: str) -> Response:
    """Be the seat of the link the question page was opened with (its token in the
    form, the form's CSRF token checked like every form's)."""
    token = request.form.get("token", "")
    seat = parts().service.seat_of(game_id, token) if token else None
    if seat is None:
        raise Forbidden(_("this needs your personal link (a seat token)"))
    hold(game_id, seat, token)
    return redirect(url_for("play.game", game_id=game_id), 303)


@bp.get("/g/<game_id>")
def game(game_id: str) -> str:
    seat = _seat(game_id)
    _may_watch(game_id, seat)
    return _page(game_id, seat)


@bp.get("/g/<game_id>/watch")
def watch(game_id: str) -> str:
    _may_watch(game_id, None)
    return _page(game_id, None)


def _page(game_id: str, seat: int | None, *, status: int = 200, **extra: Any) -> Any:
    service = parts().service
    context = present.game_page(service, game_id, seat)
    if context["your_turn"] and seat is not None:  # a spectator never has the turn
        context["turn"] = present.turn(service, game_id, seat, context["doc"])
        context["key"] = secrets.token_urlsafe(12)  # one key per form: a double submit acts once
    # the chat panels show the talk, a page at a time: the log leaves it out, so
    # that a long chat costs the page nothing
    context["log"] = present.log(service.history(game_id, seat, talk=False))
    context["undo_waiting"] = service.pending_undo(game_id, seat)
    context["mine"] = service.seat_settings(game_id, seat) if seat is not None else None
    page = render_template("game.html", **context, **extra)
    if seat is not None:  # the seat's person was shown the game this far
        with suppress(Forbidden):  # the seat was handed on meanwhile: nothing to record
            service.saw(game_id, _token(game_id), context["doc"]["seq"])
    return page, status


@bp.post("/g/<game_id>/play")
def take_turn(game_id: str) -> Any:
    token = _token(game_id)
    if not token:
        raise Forbidden(_("open your personal link to play"))
    typed = "\n".join(request.form.get("move", "").strip().splitlines())  # a textarea's too
    chosen = request.form.get("action", "").strip()
    move = typed or chosen
    # a game's turn form may add lines to the move (a vote beside the orders, say)
    lines = [v.strip() for v in request.form.getlist("line")[:MAX_LINES] if v.strip()]
    if move and lines:
        move = "\n".join([move, *lines])
    seq = request.form.get("expected_seq", "").strip()
    expected = int(seq) if WHOLE.fullmatch(seq) else None
    key = request.form.get("key") or None
    if not move:
        return _page(game_id, _seat(game_id), status=400, error=_("choose an action first"))
    try:
        with metrics.SUBMIT_SECONDS.labels(via="page").time():
            accepted = parts().service.submit_action(game_id, token, move, expected, key)
    except (Illegal, Stale, BadRequest) as error:
        since = error.since if isinstance(error, Stale) else []
        return _page(
            game_id,
            _seat(game_id),
            status=error.status,
            error=error.message,
            since=since,
            typed=typed,
            chosen=chosen,
        )
    flash(_("You played %(move)s.", move=accepted.narration))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/undo")
def undo(game_id: str) -> Any:
    """Two steps, without JavaScript: the first POST shows which moves would be
    taken back (and who must agree), the second, with confirm=yes, asks for it."""
    token = _token(game_id)
    service = parts().service
    try:
        if request.form.get("confirm") != "yes":
            seat = service.seat_of(game_id, token) if token else None
            if seat is None:
                raise Forbidden(_("open your personal link to take back a move"))
            return _page(game_id, seat, undo_plan=service.undo_plan(game_id, seat))
        event = service.undo(game_id, token or "")
    except ServiceError as error:
        flash(_("No undo: %(why)s.", why=error.message), "error")
    else:
        if isinstance(event.event, UndoDone):
            flash(_("Your move was taken back."))
        else:
            flash(_("The others must agree to take your move back; they have been asked."))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/undo/answer")
def answer_undo(game_id: str) -> Response:
    agree = request.form.get("agree") == "yes"
    try:
        event = parts().service.answer_undo(game_id, _token(game_id) or "", agree)
    except ServiceError as error:
        flash(_("Not answered: %(why)s.", why=error.message), "error")
    else:
        done = isinstance(event.event, UndoDone)
        flash(_("The move was taken back.") if done else _("Your answer is in."))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/mail-language")
def mail_language(game_id: str) -> Response:
    """The language the seat's mails are written in from now on."""
    chosen = request.form.get("language", "")
    try:
        parts().service.set_language(game_id, _token(game_id) or "", chosen)
    except ServiceError as error:
        flash(_("Not changed: %(why)s.", why=error.message), "error")
    else:
        flash(_("From now on your mails are in %(language)s.", language=i18n.LANGUAGES[chosen]))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/mail")
def mail_preference(game_id: str) -> Response:
    """One choice for every mail (`mail`), or one per topic (`turn`, `round`, `other`)."""
    topics = ("turn", "round", "other")
    if any(topic in request.form for topic in topics):
        choice = ",".join(f"{topic}={request.form.get(topic, '')}" for topic in topics)
    else:
        choice = request.form.get("mail", "")
    try:
        parts().service.set_mail_preference(game_id, _token(game_id) or "", choice)
    except ServiceError as error:
        flash(_("Not changed: %(why)s.", why=error.message), "error")
    else:
        said = {
            "every": _("a mail each time"),
            "digest": _("one digest a day"),
            "none": _("no mail"),
        }
        if "=" in choice:
            named = {"turn": _("turn"), "round": _("round"), "other": _("other")}
            chosen = dict(part.partition("=")[::2] for part in choice.split(","))
            told = "; ".join(
                _("%(topic)s: %(choice)s", topic=named[topic], choice=said[chosen[topic]])
                for topic in topics
            )
        else:
            told = said[choice]
        flash(_("From now on: %(choice)s.", choice=told))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/vacation")
def vacation(game_id: str) -> Response:
    typed = request.form.get("days", "").strip()
    try:
        if not WHOLE.fullmatch(typed) or len(typed) > 3:
            raise ValueError(typed)
        days = int(typed)
        parts().service.take_vacation(game_id, _token(game_id) or "", days)
    except ValueError:
        flash(_("No vacation: give a number of days."), "error")
    except ServiceError as error:
        flash(_("No vacation: %(why)s.", why=error.message), "error")
    else:
        flash(
            ngettext(
                "Your clock stops for %(num)d day; the others have been told.",
                "Your clock stops for %(num)d days; the others have been told.",
                days,
            )
        )
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/forget")
def forget(game_id: str) -> Response:
    _forget(game_id)
    flash(_("This browser no longer holds your seat; your link still works."))
    return redirect(url_for("games.home"))


@bp.get("/g/<game_id>/log.json")
def game_log(game_id: str) -> Response:
    """The game's log file to download, as this browser's seat may see it (the
    whole game once it has ended)."""
    seat = _seat(game_id)
    _may_watch(game_id, seat)
    answer = jsonify(parts().service.export_log(game_id, seat))
    answer.headers["Content-Disposition"] = f'attachment; filename="{game_id}.json"'
    return answer


@bp.get("/g/<game_id>/history")
def history(game_id: str) -> str:
    service = parts().service
    seat = _seat(game_id)
    _may_watch(game_id, seat)
    head = service.state_at(game_id, seat=seat)["seq"]
    at = request.args.get("at", type=int) or head
    at = max(1, min(at, head))
    before = service.state_at(game_id, max(at - 1, 1), seat)
    after = service.state_at(game_id, at, seat)
    changed = present.changes(before, after) if at > 1 else None
    context = present.game_page(service, game_id, seat, seq=at, changed=changed)
    events = service.history(game_id, seat)
    return render_template(
        "history.html",
        **context,
        at=at,
        head=head,
        event=next((e for e in events if e.seq == at), None),
        log=present.log(events),
    )
