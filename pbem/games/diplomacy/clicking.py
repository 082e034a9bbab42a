"""What the turn panel's map script (static/orders.js) reads: the viewer's own
possible orders by location (nobody else's: it knows no other power's orders), the
phase's kind, the adjustment, and the words it shows, in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.i18n import N_
from pbem.i18n import gettext as _

# Each with its places written %(name)s, filled in by the script; the orders and
# provinces in them stay in the notation.
SCRIPT_WORDS = {
    "start_move": N_("Click a unit of yours, then where it moves (or the unit again: it holds)."),
    "start_support": N_("Support: click the unit of yours that supports."),
    "start_convoy": N_("Convoy: click the fleet of yours that convoys."),
    "start_retreat": N_("Retreat: click a dislodged unit of yours, then where it retreats."),
    "start_disband": N_("Disband: click the unit of yours to disband."),
    "start_build_army": N_("Build an army: click a free home centre of yours."),
    "start_build_fleet": N_("Build a fleet: click a free home centre of yours on the coast."),
    "move_from": N_("%(unit)s: click where it moves, or %(loc)s again to hold."),
    "support_from": N_("%(unit)s supports: click the unit it supports."),
    "support_whom": N_(
        "%(unit)s supports %(loc)s: click where that unit moves, or %(loc)s again to"
        " support it holding."
    ),
    "convoy_from": N_("%(unit)s convoys: click the army it carries."),
    "convoy_whom": N_("%(unit)s convoys the army in %(loc)s: click where it goes."),
    "retreat_from": N_("%(unit)s: click where it retreats."),
    "not_yours": N_("Nothing of yours to order in %(loc)s."),
    "no_such": N_("%(unit)s has no such possible order (%(loc)s)."),
    "none_here": N_("No possible order of this kind in %(loc)s."),
    "which_coast": N_("Which coast of %(loc)s? Choose one of the orders below."),
    "written": N_("Written in your orders: %(order)s"),
    "cancelled": N_("Nothing chosen."),
}


def script_words() -> dict[str, str]:
    """SCRIPT_WORDS in the language of the moment."""
    return {key: _(words) for key, words in SCRIPT_WORDS.items()}


def script_data(
    groups: Sequence[Mapping[str, Any]], kind: str, adjust: int
) -> dict[str, Any] | None:
    """The script's data: the seat's possible orders by location (from the groups
    the plain list shows, so the same orders), or None when it has none."""
    possible = {
        str(g["loc"]): [str(o["text"]) for o in g["options"] if o["text"] != "WAIVE"]
        for g in groups
    }
    possible = {loc: orders for loc, orders in possible.items() if orders}
    if not possible:
        return None
    return {"possible": possible, "kind": kind, "adjust": adjust, "words": script_words()}
