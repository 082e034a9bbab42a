"""The rules pages: one per game of the registry, its body drawn by the game's own
"rules" partial from the game's rules data, and a list of them."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from pbem.games import GAMES
from pbem.games.base import Pages
from pbem.i18n import gettext as _

bp = Blueprint("rules", __name__)


@bp.get("/rules")
def every_game() -> str:
    return render_template("rules.html", plugin=None, games=list(GAMES.values()))


@bp.get("/rules/<game>")
def of_game(game: str) -> str:
    plugin = GAMES.get(game)
    if plugin is None:
        # The name is not echoed back: it may be long or made to mislead.
        titles = ", ".join(_(p.title) for p in GAMES.values())
        abort(
            404, _("there are no rules for such a game; this server runs %(games)s", games=titles)
        )
    pages: Pages = plugin.part("pages")
    return render_template(
        "rules.html",
        plugin=plugin,
        games=list(GAMES.values()),
        partial=f"{plugin.name}/{pages.partials['rules']}",
        rules=pages.rules(),
        stylesheet=pages.stylesheet,
    )
