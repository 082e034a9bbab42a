"""Nim as a game plugin: its rules (`rules.py`) and, beside them, how its pages and
mails show it."""

from __future__ import annotations

from pbem.i18n import N_

from ..base import Plugin
from .rules import GAME, MAX_PILE, NimState, Take, standings_order

PLUGIN = Plugin(
    name="nim",
    title=N_("Nim"),  # translated where shown: gettext(plugin.title)
    blurb=N_("Take 1 to 3 tokens from one pile in turn; whoever takes the last token wins."),
    rules=GAME,
    bots=("greedy", "random"),
    timeout_bot="greedy",
    package=__name__,
    standings=standings_order,
)

__all__ = ["GAME", "MAX_PILE", "PLUGIN", "NimState", "Take"]
