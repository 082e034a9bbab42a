"""Diplomacy as a game plugin: its rules (`rules.py`) over the `diplomacy` package's
adjudication, the map drawn by the package's renderer (`svg.py`, and `drawing.py`
from a state document for pages and mails), a log replayed through the package
itself (`replay.py`), and beside them how its pages and mails show it (with a
page script, `static/orders.js`, writing orders from clicks on the map)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.i18n import N_

from ..base import Plugin
from .actions import Orders, Resolve
from .position import POWERS
from .rules import GAME, Diplomacy, possible_orders
from .state import DipState


def standings_order(doc: Mapping[str, Any]) -> list[int]:
    """The winners first (a solo victory, or the powers of a draw), then by supply
    centres, most first, then by seat."""
    winners = doc["winners"] or []
    centres = {s: len(doc["centres"][POWERS[s - 1]]) for s in (p["seat"] for p in doc["players"])}
    return sorted(centres, key=lambda s: (s not in winners, -centres[s], s))


PLUGIN = Plugin(
    name="diplomacy",
    title=N_("Diplomacy"),  # translated where shown: gettext(plugin.title), and blurb too
    blurb=N_(
        "Seven great powers of Europe before 1914 write their orders at the same time, "
        "in secret; no chance, only alliances and betrayal. 18 supply centres win."
    ),
    rules=GAME,
    bots=("random", "hold"),
    timeout_bot="hold",  # a power whose time ran out: its units hold (civil disorder)
    package=__name__,
    standings=standings_order,
    seats=(7, 7),
)

__all__ = [
    "GAME",
    "PLUGIN",
    "DipState",
    "Diplomacy",
    "Orders",
    "Resolve",
    "possible_orders",
    "standings_order",
]
