"""Diplomacy's words in the players' language: the powers' names, a phase's name
("Spring 1901, movement"), the order results, and lists of them."""

from __future__ import annotations

from collections.abc import Iterable

from pbem.i18n import N_
from pbem.i18n import gettext as _

POWER_NAMES = {
    "AUSTRIA": N_("Austria"),
    "ENGLAND": N_("England"),
    "FRANCE": N_("France"),
    "GERMANY": N_("Germany"),
    "ITALY": N_("Italy"),
    "RUSSIA": N_("Russia"),
    "TURKEY": N_("Turkey"),
}
SEASONS = {"S": N_("Spring"), "F": N_("Fall"), "W": N_("Winter")}
KINDS = {"M": N_("movement"), "R": N_("retreats"), "A": N_("adjustments")}
# The package's order results, as a phase's summary lists them.
RESULTS = {
    "bounce": N_("bounced"),
    "dislodged": N_("dislodged"),
    "cut": N_("support cut"),
    "void": N_("void"),
    "no convoy": N_("no convoy"),
    "disrupted": N_("convoy disrupted"),
    "disband": N_("disbanded"),
    "maybe": N_("undecided"),
}


def power_name(power: str) -> str:
    """ "AUSTRIA" -> "Austria" (translated)."""
    return _(POWER_NAMES[power]) if power in POWER_NAMES else power.title()


def phase_name(phase: str) -> str:
    """ "S1901M" -> "Spring 1901, movement"; "COMPLETED" -> "the game is over"."""
    if len(phase) == 6 and phase[0] in SEASONS and phase[-1] in KINDS and phase[1:5].isdigit():
        return _(
            "%(season)s %(year)s, %(kind)s",
            season=_(SEASONS[phase[0]]),
            year=phase[1:5],
            kind=_(KINDS[phase[-1]]),
        )
    return _("the game is over") if phase == "COMPLETED" else phase


def result_name(result: str) -> str:
    return _(RESULTS[result]) if result in RESULTS else result


def listing(items: Iterable[str]) -> str:
    return ", ".join(items)
