"""The home page and the new-game form: the game (any of the registry's), players (a
person with an email, or one of the game's bots), options and the game's own setup;
creating it mails each person their link, then redirects to a page that
shows where the mails went (POST/redirect/GET: one game per form, however often it
is sent or reloaded)."""

from __future__ import annotations

import math
import secrets
from dataclasses import replace
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug import Response

from pbem import i18n
from pbem.games import GAMES, SetupError
from pbem.games.base import Pages, Plugin
from pbem.games.names import bot_name
from pbem.i18n import gettext as _
from pbem.i18n import ngettext
from pbem.service import BadRequest, NotFound, PlayerSpec, ServiceError, naming
from pbem.service.options import DEFAULTS

from .context import parts
from .opentables import open_from_form
from .play import hold

bp = Blueprint("games", __name__)


def most_seats() -> int:
    """The rows of seats the New game form has: the most any game takes."""
    return max(plugin.seats[1] for plugin in GAMES.values())


def _games() -> list[dict[str, Any]]:
    """Every game the New game form offers: its plugin and its setup partial."""
    offered = []
    for name, plugin in GAMES.items():
        pages: Pages = plugin.part("pages")
        setup = pages.partials.get("setup")
        offered.append({"plugin": plugin, "setup": f"{name}/{setup}" if setup else None})
    return offered


def _bots() -> list[str]:
    """Every bot of every game, each once, in the games' order."""
    return list(dict.fromkeys(bot for plugin in GAMES.values() for bot in plugin.bots))


def _form_page(form: Any, error: str | None = None) -> str:
    return render_template(
        "new_game.html",
        form=form,
        error=error,
        form_key=_form_key(),
        games=_games(),
        bots=_bots(),
        seats=most_seats(),
        chosen=form.get("game") if form.get("game") in GAMES else next(iter(GAMES)),
    )


@bp.get("/")
def home() -> str:
    public = [g for g in parts().service.games() if g.public][-10:]
    games = [g["plugin"] for g in _games()]
    titles = {plugin.name: _(plugin.title) for plugin in games}
    return render_template("home.html", public=reversed(public), games=games, titles=titles)


@bp.get("/new")
def new_game() -> str:
    blank = _blank()
    if request.args.get("game") in GAMES:
        blank["game"] = request.args["game"]
    return _form_page(blank)


@bp.post("/new")
def create_game() -> Response | tuple[str, int]:
    """Create the game once per form (its one-time key), then redirect to the page
    that shows it: a reload, or the same form sent again, creates nothing more."""
    form = request.form
    key = form.get("form_key") or _form_key()  # a form from before keys: a key of its own
    try:
        plugin = _game(form)
        players = _players(form, plugin)
        options = _options(form)
        setup = _setup(form, plugin)
        if _open_seats(form):  # a table to list, not a game yet
            return open_from_form(players, _open_seats(form), options, setup, plugin.name)
        # -- the game's name and its creator's seat --
        plays = form.get("creator_plays") == "yes"
        made = parts().service.create_game(
            players,
            options,
            setup,
            game=plugin.name,
            key=key,
            name=form.get("game_name"),
            creator_seat=1 if plays else None,
        )
    except ServiceError as error:  # nothing was made: the corrected form gets a new key
        return _form_page(form, error.message), error.status
    if plays:  # straight to their seat: this browser holds it, no invitation to them
        first = made.seats[0]
        if first.token:
            hold(made.game_id, first.seat, first.token)
            return redirect(url_for("play.game", game_id=made.game_id), 303)
    # -- end of the game's name and its creator's seat --
    return redirect(url_for("games.created", key=key), 303)


@bp.get("/new/created/<key>")
def created(key: str) -> str:
    """The game a new-game form made: where the invitations went. Only whoever
    sent the form knows its key."""
    found = parts().service.created_by_key(key)
    if found is None:
        raise NotFound(_("no game was made with this form"))
    mailed = [s for s in found.seats if s.email]
    bots = [s for s in found.seats if s.token is None]
    service = parts().service
    public = service.options(found.game_id)["public"]
    called = naming.called(service.game_name(found.game_id), [s.name for s in found.seats])
    return render_template(
        "created.html",
        game_id=found.game_id,
        called=called,
        mailed=mailed,
        bots=bots,
        public=public,
    )


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


def _game(form: Any) -> Plugin:
    """The game chosen on the form (a form without the choice: the first game)."""
    name = form.get("game") or next(iter(GAMES))
    if name not in GAMES:
        titles = [_(plugin.title) for plugin in GAMES.values()]
        choice = titles[0]
        if len(titles) > 1:  # "A, B or C"
            choice = _("%(some)s or %(one)s", some=", ".join(titles[:-1]), one=titles[-1])
        raise BadRequest(
            _(
                "there is no game called %(name)r here; choose %(games)s",
                name=name[:40],
                games=choice,
            )
        )
    return GAMES[name]


def _setup(form: Any, plugin: Plugin) -> dict[str, Any] | None:
    """The game's own setup fields; None (the server deals) when none is given."""
    pages: Pages = plugin.part("pages")
    try:
        return pages.setup(form) or None
    except SetupError as error:
        raise BadRequest(_("setup: %(why)s", why=error)) from None


def _players(form: Any, plugin: Plugin) -> list[PlayerSpec]:
    players, empty = [], []
    plays = form.get("creator_plays") == "yes"  # the creator plays seat 1
    chosen = form.get("language") or None  # None: each person's own browser's
    for seat in range(1, most_seats() + 1):
        kind = form.get(f"kind{seat}", "person" if seat <= 2 else "nobody")  # as the form
        name = form.get(f"name{seat}", "").strip()
        email = form.get(f"email{seat}", "").strip()
        if kind in ("nobody", "open"):
            continue
        mine = plays and seat == 1
        if mine and kind != "person":
            raise BadRequest(_("seat 1: you play it, so it is a person's seat, not a bot's"))
        if mine and not name:
            raise BadRequest(_("seat 1: you play it, so give your name"))
        if kind == "person" and not name and not email:
            empty.append(seat)
            continue
        if kind == "person":
            if not email and not mine:  # the creator is taken to their seat: no mail needed
                raise BadRequest(
                    _("seat %(seat)s: a person needs an email address for their link", seat=seat)
                )
            # the creator reads this page's language; the others, unless the creator
            # chose theirs, their own browser's from their first visit
            language = chosen or i18n.language()
            open_ = chosen is None and not mine
            spec = PlayerSpec(name or email.split("@")[0], email or None, language=language)
            players.append(replace(spec, language_open=open_))
        elif kind in plugin.bots:
            players.append(PlayerSpec(name or bot_name(kind), bot=kind))
        elif kind in _bots():
            bots = ", ".join(plugin.bots)
            raise BadRequest(
                _(
                    "seat %(seat)s: %(game)s has no %(bot)s bot; its bots are %(bots)s",
                    seat=seat,
                    game=_(plugin.title),
                    bot=kind,
                    bots=bots,
                )
            )
        else:
            raise BadRequest(_("seat %(seat)s: choose a person, a bot or nobody", seat=seat))
    if _open_seats(form) and len(players) + _open_seats(form) >= 2:
        return players  # the service checks the table's seats
    if len(players) < 2 and empty:  # the seats left blank are what is missing
        if len(players) == 0 and len(empty) >= 2:
            message = _(
                "seat %(seat)s and seat %(other)s: a person needs a name and an email address"
                " for their link (or choose a bot for the seat)",
                seat=empty[0],
                other=empty[1],
            )
        else:
            message = _(
                "seat %(seat)s: a person needs a name and an email address for their link"
                " (or choose a bot for the seat)",
                seat=empty[0],
            )
        raise BadRequest(message)
    if len(players) < 2:
        raise BadRequest(
            ngettext(
                "a game needs 2 to 4 players, and only %(num)d seat taken:"
                " choose a person or a bot for another seat",
                "a game needs 2 to 4 players, and only %(num)d seats taken:"
                " choose a person or a bot for another seat",
                len(players),
            )
        )
    return players


def _open_seats(form: Any) -> int:
    """How many seats the form leaves open for anyone to join."""
    seats = range(1, most_seats() + 1)
    return sum(1 for seat in seats if form.get(f"kind{seat}") == "open")


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
            # a box to tick to switch it off: a form sent without it keeps the default
            "spectator_talk": form.get("quiet_spectators") != "yes",
            "authenticated_mail": form.get("authenticated_mail") == "yes",
            "press": form.get("press", DEFAULTS["press"]),
        }
    except (ValueError, OverflowError):
        raise BadRequest(_("hours, reminders and days are numbers, e.g. 48 or 1.5")) from None


def _number(text: Any) -> int | float:
    """A typed number: whole when it is whole; ValueError when it is not a finite
    number (the service then checks its bounds)."""
    value = float(str(text).strip())
    if not math.isfinite(value):
        raise ValueError(text)
    return int(value) if value.is_integer() else value
