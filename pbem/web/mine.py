"""My games: a player who asks with their email is mailed the links to their games.
The page says the same whether or not the address plays here, and asking again soon
mails nothing new."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from datetime import timedelta

from flask import Blueprint, render_template, request

from .app import parts

bp = Blueprint("mine", __name__)
WINDOW = timedelta(minutes=10)  # at most one such mail per address in this time
PER_CLIENT = 5  # requests one client may make in WINDOW (per web process)
_asked: defaultdict[str, deque[float]] = defaultdict(deque)
_lock = threading.Lock()


def _too_many(client: str) -> bool:
    """Whether `client` has asked PER_CLIENT times within WINDOW (counting this one)."""
    now = time.monotonic()
    with _lock:
        times = _asked[client]
        while times and now - times[0] > WINDOW.total_seconds():
            times.popleft()
        times.append(now)
        return len(times) > PER_CLIENT


@bp.get("/my-games")
def ask() -> str:
    return render_template("my_games.html", sent=False, email="")


@bp.post("/my-games")
def send() -> tuple[str, int] | str:
    email = request.form.get("email", "").strip()
    if "@" not in email or len(email) > 254:
        return render_template(
            "my_games.html", sent=False, email=email, error="that is not an email address"
        ), 400
    if _too_many(request.remote_addr or "?"):
        message = "too many requests from here; try again in a few minutes"
        return render_template("my_games.html", sent=False, email=email, error=message), 429
    parts().outbox.ask_for_games(email, WINDOW)
    return render_template("my_games.html", sent=True, email=email)
