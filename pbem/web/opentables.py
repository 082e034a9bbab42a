"""Open tables: the public list of games waiting for players (/open), a table's
page with its join form, the mailed link's page (a button: a mail scanner takes no
seat), and the creator's private page to cancel the table or fill it with bots.
The New game form opens a table when a seat is marked open (`open_from_form`)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from werkzeug import Response

from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service import PlayerSpec
from pbem.service.tokens import seat_url

from .context import parts

bp = Blueprint("open", __name__)


def open_from_form(
    players: list[PlayerSpec], open_seats: int, options: Any, setup: Any, game: str
) -> Response:
    """List the New game form's table; its creator goes to its private page."""
    opened = parts().service.open_table(players, open_seats, options, setup, game=game)
    flash(_("Your table is on the list. Keep this page's address: it is yours to manage it."))
    return redirect(url_for("open.manage", table_id=opened.table_id, token=opened.manage), 303)


def _page() -> int:
    given = request.args.get("page", "1")
    if not given.isascii() or not given.isdigit() or not 1 <= int(given) <= 10_000:
        abort(400, _("a page is a number from 1"))
    return int(given)


def _titled(table: dict[str, Any]) -> dict[str, Any]:
    return {**table, "title": _(GAMES[table["game"]].title)}


@bp.get("/open")
def listing() -> str:
    page = _page()
    tables, pages = parts().service.open_tables(page)
    return render_template(
        "open_list.html", tables=[_titled(t) for t in tables], page=page, pages=pages
    )


def _table_page(table_id: str, form: Any, sent: bool = False, error: str | None = None) -> str:
    table = _titled(parts().service.open_table_view(table_id))
    return render_template("open_table.html", table=table, form=form, sent=sent, error=error)


@bp.get("/open/<table_id>")
def table(table_id: str) -> str | Response:
    """A table's page; for a browser that took a seat there, once the game is on,
    that seat."""
    taken = session.get("tables", {})
    seat = taken.get(table_id) if isinstance(taken, dict) else None
    if isinstance(seat, int):
        found = parts().service.table_seat(table_id, seat)
        if found is not None:
            return redirect(seat_url("", *found), 303)
    return _table_page(table_id, {})


@bp.post("/open/<table_id>/join")
def ask(table_id: str) -> str:
    """Mail the join link; the page says the same whoever the address is."""
    form = request.form
    parts().service.ask_to_join(table_id, form.get("name", ""), form.get("email", ""))
    return _table_page(table_id, {}, sent=True)


@bp.get("/open/join/<token>")
def confirm_join(token: str) -> str:
    """The mailed link shows a button: a mail scanner that opens links takes no seat."""
    table = _titled(parts().service.join_pending(token))  # refuses a used or stale link
    return render_template("open_join.html", table=table, token=token)


@bp.post("/open/join/<token>")
def join(token: str) -> Response:
    joined = parts().service.confirm_join(token)
    if joined.game_id is not None and joined.token is not None:
        flash(_("Every seat is taken: the game is on. This is your seat."))
        return redirect(seat_url("", joined.game_id, joined.token), 303)
    taken = session.get("tables", {})
    kept = dict(list(taken.items())[-20:]) if isinstance(taken, dict) else {}
    session["tables"] = {**kept, joined.table_id: joined.seat}  # signed: nobody forges it
    session.permanent = True
    flash(_("Your seat is taken. When every seat is, the game starts and you get its link."))
    return redirect(url_for("open.table", table_id=joined.table_id), 303)


@bp.get("/open/<table_id>/manage/<token>")
def manage(table_id: str, token: str) -> str:
    table = _titled(parts().service.managed_table(table_id, token))
    found = parts().service.creator_seat(table_id, token)
    mine = seat_url("", *found) if found is not None else None
    return render_template(
        "open_manage.html", table=table, token=token, bots=GAMES[table["game"]].bots, mine=mine
    )


@bp.post("/open/<table_id>/manage/<token>/cancel")
def cancel(table_id: str, token: str) -> Response:
    parts().service.cancel_table(table_id, token)
    flash(_("The table is cancelled: nobody can join it now."))
    return redirect(url_for("open.manage", table_id=table_id, token=token), 303)


@bp.post("/open/<table_id>/manage/<token>/bots")
def bots(table_id: str, token: str) -> Response:
    parts().service.fill_table_with_bots(table_id, token, request.form.get("bot", ""))
    flash(_("Bots took the open seats: the game is on, and everyone got their link by mail."))
    return redirect(url_for("open.manage", table_id=table_id, token=token), 303)
