"""Diplomacy's part of the mails: its notation help, the words the game-neutral mails
take from it, its orders read from several lines of a reply (MULTILINE), and its
pictures (the map as everyone may see it, drawn from a spectator's state document:
never anyone's pending orders); its partials (the phase, the reader's units and
their possible orders, the centres, the last phase's orders and results, the end)
are in templates/mail/. The words are marked for the catalog and translated where
they are shown; the notation in them stays as it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.i18n import N_
from pbem.i18n import gettext as _

from .drawing import MAIL_WIDTH, map_svg

PARTIALS = ("_turn", "_standings", "_game_over")
TAGLINE = N_("seven powers of Europe writing their orders at the same time")
NOTATION = "A PAR - BUR, F BRE - MAO, A MUN S A BER - SIL"
# A reply's orders are its lines from the first up to the first empty line.
MULTILINE = True
HELP = (
    N_("  A PAR - BUR         one order a line, from the first line of your reply"),
    N_("  F BRE - MAO         ... up to the first empty line: all your orders for the phase"),
    N_("  A MUN S A BER - SIL a support; C convoys, R retreats, D disbands, B builds"),
    N_("  hold                no orders: every unit keeps its default"),
    N_("  draw                on a line of its own: you vote for a draw"),
    N_("Your orders are secret until the phase resolves; send them all again to change them."),
)
PICTURE_ALT = N_("The map as it stands (the position in words is in this mail's text part)")
TURN_PICTURE_ALT = PICTURE_ALT
FINAL_PICTURE_ALT = N_("The map at the end of the game")


def picture(doc: Mapping[str, Any]) -> str | None:
    """The map as it stands, as everyone sees it (no orders on it)."""
    return map_svg(
        doc,
        None,
        prefix="mail",
        label=_("The map, %(phase)s", phase=doc["phase_name"]),
        width=MAIL_WIDTH,
    )


def turn_picture(doc: Mapping[str, Any], seat: int) -> str | None:
    """What a turn's reader orders on: the map as it stands, with nobody's orders
    (the picture is drawn from what a spectator sees, the same for every reader)."""
    return picture(doc)
