"""The words the turn panel's script (static/play.js) shows, by key: the page gives
them to the script in its language, inside the script data."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.i18n import gettext as _

# Each with its places written %(name)s, filled in by the script.
SCRIPT_WORDS = {
    "no_cell": N_("No cell of your mall can take the tile in %(slot)s."),
    "build_at": N_("Build %(slot)s at %(x)s,%(y)s"),
    "pick_cell": N_("Now pick a lit cell of your mall for the tile in %(slot)s."),
    "build_tile": N_("Build %(tile)s"),
    "build_slot": N_("Build the tile in %(slot)s"),
    "which_customer": N_("Which customer moves onto the store?"),
    "who_moves": N_("Several customers can reach it. Who moves?"),
    "choose_who": N_("Several customers can reach this cell: choose who moves."),
    "attraction_at": N_("%(name)s with its base plate on %(x)s,%(y)s"),
    "point_at": N_(
        "Point at a cell: the footprint follows, its base plate under the pointer."
        " Lit cells are where the base plate may go."
    ),
    "no_place": N_("No place fits %(name)s."),
    "no_place_mirrored": N_("No place fits %(name)s mirrored."),
    "mirror": N_("Mirror"),
    "dock_at": N_("%(name)s on %(x)s,1"),
    "pick_ground": N_("Pick a lit cell on the ground floor for %(name)s."),
    "base_on": N_("%(name)s, base plate on %(x)s,%(y)s"),
    "cannot_stand": N_("%(name)s cannot stand with its base plate on %(x)s,%(y)s."),
    "wider": N_("Your mall, wider than the screen"),
    "other_actions": N_("Other actions"),
    "take_money": N_("Take money from %(column)s"),
    "pass": N_("Pass"),
    "typed": N_("You typed: %(move)s"),
}


def script_words() -> dict[str, str]:
    """SCRIPT_WORDS in the language of the moment."""
    return {key: _(words) for key, words in SCRIPT_WORDS.items()}
