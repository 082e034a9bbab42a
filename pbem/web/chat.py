"""Table talk on the pages: a seat says a line from its game page; a spectator, by
the name they give, says one in the spectators' chat of a public game's watch page.
The service checks and limits every line; the limiter (limits.py) counts per client."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from werkzeug import Response

from pbem.i18n import gettext as _
from pbem.service import Forbidden

from . import play
from .context import parts

bp = Blueprint("chat", __name__)


@bp.app_context_processor
def _chat_lines() -> dict[str, Any]:
    """The two chats for the game pages' chat panel (templates/_chat.html)."""
    service = parts().service
    return {
        "table_talk_of": service.table_talk,
        "spectator_talk_of": service.spectator_talk,
    }


@bp.post("/g/<game_id>/chat")
def say(game_id: str) -> Response:
    token = play._token(game_id)
    if not token:
        raise Forbidden(_("open your personal link to talk at the table"))
    parts().service.say(game_id, token, request.form.get("text", ""))
    return redirect(url_for("play.game", game_id=game_id, _anchor="chat"), code=303)


@bp.post("/g/<game_id>/watch/chat")
def spectator_says(game_id: str) -> Response:
    form = request.form
    parts().service.spectator_says(game_id, form.get("name", ""), form.get("text", ""))
    return redirect(url_for("play.watch", game_id=game_id, _anchor="spectators"), code=303)
