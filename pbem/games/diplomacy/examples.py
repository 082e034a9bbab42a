"""Diplomacy's examples: games to show and test it with (see `Plugin.examples`),
seven powers giving random possible orders (seeded), and a table that agrees a draw
at once."""

from __future__ import annotations

from ..base import Example
from ..examples import played
from .rules import GAME

POWERS = ("Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus")
STANDARD = {"map": "standard"}
EXAMPLES = (
    played(GAME, "the first year, all seven ordering", POWERS, STANDARD, "random", 21),
    played(GAME, "three years", POWERS, STANDARD, "random", 70),
    Example(
        "a draw agreed in the first spring",
        POWERS,
        STANDARD,
        tuple((seat, "hold\ndraw") for seat in range(1, 8)),
        ends=True,
    ),
)
