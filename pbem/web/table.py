"""The table around a game on its pages and in the API: resigning (asked once more
before it is done) and the rematch (offer, accept, decline). A link whose seat
resigned may still watch the game, even a private one, from the browser that
opened it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from werkzeug import Response

from pbem.i18n import gettext as _
from pbem.service import BadRequest, Forbidden, ServiceError

from . import present
from .bearer import bearer
from .context import parts
from .play import _seat, _token, let_watch

bp = Blueprint("table", __name__)
api = Blueprint("table_api", __name__, url_prefix="/api")


def watching(game_id: str) -> bool:
    """Whether this browser resigned a seat of the game (so may watch it)."""
    return game_id in session.get("watching", [])


@bp.app_context_processor
def table_context() -> dict[str, Any]:
    def table_of(game_id: str, seat: int | None, status: str) -> dict[str, Any]:
        """What the page's resign and rematch parts show."""
        service = parts().service
        shown: dict[str, Any] = {"watching": seat is None and watching(game_id)}
        if status == "playing" and seat is not None:
            shown["resign"] = service.resign_outcome(game_id, seat)
        if status == "finished":
            shown["rematch"] = service.rematch_status(game_id, seat)
        return shown

    return {"table_of": table_of}


@bp.post("/g/<game_id>/resign")
def resign(game_id: str) -> Any:
    """Two steps, without JavaScript: the first POST asks "are you sure?" (and says
    what follows), the second, with confirm=yes, resigns."""
    token = _token(game_id)
    seat = _seat(game_id)
    if not token or seat is None:
        raise Forbidden(_("open your personal link to resign"))
    service = parts().service
    if request.form.get("confirm") != "yes":
        outcome = service.resign_outcome(game_id, seat)
        if outcome is None:
            raise BadRequest(_("the game is over"))
        context = present.game_page(service, game_id, seat)
        return render_template("resign.html", outcome=outcome, **context)
    try:
        event = service.resign(game_id, token)
    except ServiceError as error:
        flash(_("Not resigned: %(why)s.", why=error.message), "error")
        return redirect(url_for("play.game", game_id=game_id))
    if event.payload["replaced_by"]:
        let_watch(game_id)
        flash(_("You resigned. A bot plays your seat from now on; you may still watch."))
    else:
        flash(_("You resigned, and the game is over."))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/rematch")
def offer_rematch(game_id: str) -> Response:
    try:
        parts().service.offer_rematch(game_id, _token(game_id) or "")
    except ServiceError as error:
        flash(_("No rematch: %(why)s.", why=error.message), "error")
    else:
        flash(_("You offered a rematch; the others have been asked."))
    return redirect(url_for("play.game", game_id=game_id))


@bp.post("/g/<game_id>/rematch/answer")
def answer_rematch(game_id: str) -> Response:
    accept = request.form.get("accept") == "yes"
    try:
        offer = parts().service.answer_rematch(game_id, _token(game_id) or "", accept)
    except ServiceError as error:
        flash(_("Not answered: %(why)s.", why=error.message), "error")
    else:
        if offer.new_game_id is not None:
            flash(_("Everyone accepted: the rematch has begun."))
        elif offer.closed == "lapsed":
            flash(_("The rematch offer had lapsed."), "error")
        else:
            flash(_("Your answer is in."))
    return redirect(url_for("play.game", game_id=game_id))


# -- the API ----------------------------------------------------------------------


def _seat_token() -> str:
    token = bearer()
    if not token:
        raise Forbidden("send your seat token: Authorization: Bearer <token>")
    return token


@api.post("/games/<game_id>/resign")
def api_resign(game_id: str) -> tuple:
    event = parts().service.resign(game_id, _seat_token())
    payload = event.payload
    return {"seq": event.seq, "seat": payload["seat"], "replaced_by": payload["replaced_by"]}, 201


@api.post("/games/<game_id>/rematch")
def api_offer(game_id: str) -> tuple:
    service = parts().service
    token = _seat_token()
    event = service.offer_rematch(game_id, token)
    return _rematch(service.rematch_status(game_id, event.payload["seat"])), 201


@api.post("/games/<game_id>/rematch/answer")
def api_answer(game_id: str) -> dict:
    service = parts().service
    token = _seat_token()
    body = request.get_json(silent=True)
    accept = body.get("accept") if isinstance(body, dict) else None
    if not isinstance(accept, bool):
        raise BadRequest('the body is {"accept": true} or {"accept": false}')
    service.answer_rematch(game_id, token, accept)
    return _rematch(service.rematch_status(game_id, service.seat_of(game_id, token)))


def _rematch(status: dict[str, Any] | None) -> dict[str, Any]:
    offer = (status or {}).get("offer")
    if offer is None:
        return {"offer": None}
    return {
        "offer": offer.seq,
        "by": offer.by,
        "accepted": sorted(offer.accepted),
        "closed": offer.closed,
        "new_game_id": offer.new_game_id,
    }
