"""The mall's examples: games to show and test it with (see `Plugin.examples`),
played by its greedy bot from fixed seeds."""

from __future__ import annotations

from ..examples import played
from .game import GAME

EXAMPLES = (
    played(GAME, "two players, played to the end", ("Ann", "Ben"), {"seed": "ex-1"}, "greedy"),
    played(
        GAME, "four players, under way", ("Ann", "Ben", "Cy", "Dee"), {"seed": "ex-2"}, "greedy", 9
    ),
)
