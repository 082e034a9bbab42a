"""The home page and the new-game form: players (a person with an email, or a bot),
options; creating it mails each person their link and shows where the mails went."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from pbem.service import BadRequest, PlayerSpec
from pbem.service.options import DEFAULTS

from .app import parts

bp = Blueprint("games", __name__)
SEATS = 4


@bp.get("/")
def home() -> str:
    public = [g for g in parts().service.games() if g.public][-10:]
    return render_template("home.html", public=reversed(public))


@bp.get("/new")
def new_game() -> str:
    return render_template("new_game.html", form=_blank(), error=None)


@bp.post("/new")
def create_game() -> tuple[str, int] | str:
    form = request.form
    try:
        players = _players(form)
        options = _options(form)
        created = parts().service.create_game(players, options)
    except BadRequest as error:
        return render_template("new_game.html", form=form, error=error.message), 400
    mailed = [s for s in created.seats if s.email]
    bots = [s for s in created.seats if s.token is None]
    return render_template("created.html", game_id=created.game_id, mailed=mailed, bots=bots)


def _blank() -> dict[str, Any]:
    return {
        "hours_per_turn": DEFAULTS["hours_per_turn"],
        "reminders": ", ".join(str(h) for h in DEFAULTS["reminders"]),
        "timeout_policy": DEFAULTS["timeout_policy"],
        "replace_after": DEFAULTS["replace_after"],
        "vacation_days": DEFAULTS["vacation_days"],
    }


def _players(form: Any) -> list[PlayerSpec]:
    players = []
    for seat in range(1, SEATS + 1):
        kind = form.get(f"kind{seat}", "person")
        name = form.get(f"name{seat}", "").strip()
        email = form.get(f"email{seat}", "").strip()
        if kind == "nobody" or (kind == "person" and not name and not email):
            continue
        if kind == "person":
            if not email:
                raise BadRequest(f"seat {seat}: a person needs an email address for their link")
            players.append(PlayerSpec(name or email.split("@")[0], email))
        else:
            players.append(PlayerSpec(name or f"{kind.title()} bot", bot=kind))
    if len(players) < 2:
        raise BadRequest("a game needs 2 to 4 players")
    return players


def _options(form: Any) -> dict[str, Any]:
    try:
        hours = form.get("hours_per_turn", "").strip()
        reminders = [float(h) for h in form.get("reminders", "").replace(",", " ").split()]
        return {
            "hours_per_turn": int(hours) if hours else None,
            "reminders": [int(h) if h == int(h) else h for h in reminders],
            "timeout_policy": form.get("timeout_policy", "bot_plays"),
            "replace_after": int(form.get("replace_after", DEFAULTS["replace_after"])),
            "vacation_days": int(form.get("vacation_days", DEFAULTS["vacation_days"])),
            "public": form.get("public") == "yes",
        }
    except ValueError:
        raise BadRequest("hours, reminders and days are numbers") from None
