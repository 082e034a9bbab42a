"""The home page and the new-game form: players (a person with an email, or a bot),
options; creating it mails each person their link, then redirects to a page that
shows where the mails went (POST/redirect/GET: one game per form, however often it
is sent or reloaded)."""

from __future__ import annotations

import math
import secrets
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug import Response

from pbem.service import BadRequest, NotFound, PlayerSpec, ServiceError
from pbem.service.options import DEFAULTS
from pbem.service.service import BOTS

from .app import parts

bp = Blueprint("games", __name__)
SEATS = 4


@bp.get("/")
def home() -> str:
    public = [g for g in parts().service.games() if g.public][-10:]
    return render_template("home.html", public=reversed(public))


@bp.get("/new")
def new_game() -> str:
    return render_template("new_game.html", form=_blank(), error=None, form_key=_form_key())


@bp.post("/new")
def create_game() -> Response | tuple[str, int]:
    """Create the game once per form (its one-time key), then redirect to the page
    that shows it: a reload, or the same form sent again, creates nothing more."""
    form = request.form
    key = form.get("form_key") or _form_key()  # a form from before keys: a key of its own
    try:
        players = _players(form)
        options = _options(form)
        parts().service.create_game(players, options, key=key)
    except ServiceError as error:  # nothing was made: the corrected form gets a new key
        fresh = _form_key()
        page = render_template("new_game.html", form=form, error=error.message, form_key=fresh)
        return page, error.status
    return redirect(url_for("games.created", key=key), 303)


@bp.get("/new/created/<key>")
def created(key: str) -> str:
    """The game a new-game form made: where the invitations went. Only whoever
    sent the form knows its key."""
    found = parts().service.created_by_key(key)
    if found is None:
        raise NotFound("no game was made with this form")
    mailed = [s for s in found.seats if s.email]
    bots = [s for s in found.seats if s.token is None]
    return render_template("created.html", game_id=found.game_id, mailed=mailed, bots=bots)


def _form_key() -> str:
    return secrets.token_urlsafe(24)


def _blank() -> dict[str, Any]:
    return {
        "hours_per_turn": DEFAULTS["hours_per_turn"],
        "reminders": ", ".join(str(h) for h in DEFAULTS["reminders"]),
        "timeout_policy": DEFAULTS["timeout_policy"],
        "replace_after": DEFAULTS["replace_after"],
        "vacation_days": DEFAULTS["vacation_days"],
    }


def _players(form: Any) -> list[PlayerSpec]:
    players, empty = [], []
    for seat in range(1, SEATS + 1):
        kind = form.get(f"kind{seat}", "person")
        name = form.get(f"name{seat}", "").strip()
        email = form.get(f"email{seat}", "").strip()
        if kind == "nobody":
            continue
        if kind == "person" and not name and not email:
            empty.append(seat)
            continue
        if kind == "person":
            if not email:
                raise BadRequest(f"seat {seat}: a person needs an email address for their link")
            players.append(PlayerSpec(name or email.split("@")[0], email))
        elif kind in BOTS:
            players.append(PlayerSpec(name or f"{kind.title()} bot", bot=kind))
        else:
            raise BadRequest(f"seat {seat}: choose a person, a bot or nobody")
    if len(players) < 2:
        blank = " and ".join(f"seat {seat}" for seat in empty)
        if len(empty) > 1:
            where = f"{blank} are empty"
        elif empty:
            where = f"{blank} is empty"
        else:
            where = f"only {len(players)} seat{'' if len(players) == 1 else 's'} taken"
        raise BadRequest(
            f"a game needs 2 to 4 players, and {where}: give each person an email address"
            " (and a name), or choose a bot for the seat"
        )
    return players


def _options(form: Any) -> dict[str, Any]:
    """The options as typed; the service checks their bounds."""
    try:
        hours = form.get("hours_per_turn", "").strip()
        reminders = [_number(h) for h in form.get("reminders", "").replace(",", " ").split()]
        return {
            "hours_per_turn": _number(hours) if hours else None,
            "reminders": reminders,
            "timeout_policy": form.get("timeout_policy", "bot_plays"),
            "replace_after": _number(form.get("replace_after", "") or DEFAULTS["replace_after"]),
            "vacation_days": _number(form.get("vacation_days", "") or DEFAULTS["vacation_days"]),
            "public": form.get("public") == "yes",
            "authenticated_mail": form.get("authenticated_mail") == "yes",
        }
    except (ValueError, OverflowError):
        raise BadRequest("hours, reminders and days are numbers, e.g. 48 or 1.5") from None


def _number(text: Any) -> int | float:
    """A typed number: whole when it is whole; ValueError when it is not a finite
    number (the service then checks its bounds)."""
    value = float(str(text).strip())
    if not math.isfinite(value):
        raise ValueError(text)
    return int(value) if value.is_integer() else value
