"""My games: a player who asks with their email is mailed the links to their games.
The page says the same whether or not the address plays here, and asking again soon
mails nothing new."""

from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, render_template, request

from .context import parts

bp = Blueprint("mine", __name__)
WINDOW = timedelta(minutes=10)  # at most one such mail per address in this time
# How often one client may ask is limits.ASKING, counted for all web processes.


@bp.get("/my-games")
def ask() -> str:
    return render_template("my_games.html", sent=False, email="")


@bp.post("/my-games")
def send() -> tuple[str, int] | str:
    email = request.form.get("email", "").strip()
    if "@" not in email or len(email) > 254 or not email.isprintable():
        return render_template(
            "my_games.html", sent=False, email=email, error="that is not an email address"
        ), 400
    parts().outbox.ask_for_games(email, WINDOW)
    return render_template("my_games.html", sent=True, email=email)
