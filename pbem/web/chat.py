"""Table talk on the pages: a seat says a line from its game page, to everyone or,
in a game of private press, to the seats it ticks (`to`); a spectator, by the name
they give, says one in the spectators' chat of a public game's watch page. The
service checks and limits every line (and the game's press rules); the limiter
(limits.py) counts per client. A chat panel shows a page of lines: `?before=SEQ`
(the players' chat) and `?spectators_before=SEQ` (the spectators') ask for the
lines before a seq."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from werkzeug import Response

from pbem.i18n import gettext as _
from pbem.service import Forbidden
from pbem.service.options import press, spectators_talk

from . import play
from .context import parts

bp = Blueprint("chat", __name__)
BEFORE = {"chat": "before", "spectators": "spectators_before"}  # each panel's cursor


@bp.app_context_processor
def _chat_lines() -> dict[str, Any]:
    """The two chats for the game pages' chat panel (templates/_chat.html), each the
    page of lines the address asks for, and the links to the pages around it."""
    service = parts().service
    return {
        "table_talk_of": lambda game_id, seat: service.table_talk(
            game_id, seat, request.args.get(BEFORE["chat"])
        ),
        "spectator_talk_of": lambda game_id, seat: service.spectator_talk(
            game_id, seat, request.args.get(BEFORE["spectators"])
        ),
        "spectators_chat_off": lambda game_id: _chat_off(service.options(game_id)),
        "press_of": lambda game_id: press(service.options(game_id)),
        "talk_page": _talk_page,
        "talk_paged": lambda panel: BEFORE[panel] in request.args,
    }


def _chat_off(options: dict[str, Any]) -> bool:
    """Whether the creator of a public game switched its spectators' chat off."""
    return bool(options["public"]) and not spectators_talk(options)


def _talk_page(panel: str, before: int | None) -> str:
    """This page's address with `panel`'s chat ending before seq `before` (None: its
    latest lines), the rest of the address as it is."""
    values: dict[str, Any] = {k: v for k, v in request.args.items() if k != BEFORE[panel]}
    if before is not None:
        values[BEFORE[panel]] = str(before)
    values.update(request.view_args or {})
    return url_for(request.endpoint or "play.watch", _anchor=panel, **values)


@bp.post("/g/<game_id>/chat")
def say(game_id: str) -> Response:
    token = play._token(game_id)
    if not token:
        raise Forbidden(_("open your personal link to talk at the table"))
    ticked = request.form.getlist("to")  # none ticked: the line goes to everyone
    to = [int(s) if s.isascii() and s.isdigit() and len(s) < 3 else s for s in ticked]
    parts().service.say(game_id, token, request.form.get("text", ""), to or None)
    return redirect(url_for("play.game", game_id=game_id, _anchor="chat"), code=303)


@bp.post("/g/<game_id>/watch/chat")
def spectator_says(game_id: str) -> Response:
    form = request.form
    parts().service.spectator_says(game_id, form.get("name", ""), form.get("text", ""))
    return redirect(url_for("play.watch", game_id=game_id, _anchor="spectators"), code=303)
