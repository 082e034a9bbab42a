"""The mall's examples: games to show and test it with (see `Plugin.examples`),
played by its greedy bot from fixed seeds, and a dealt game with its twin: the same
deal but for the supply's order past the tiles drawn and one seat's secret card,
which no one else may tell apart."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..base import Example, Twin
from ..examples import played
from .content import load
from .game import GAME

PLAYERS = ("Ann", "Ben", "Cy")
MOVES = 7  # under way: tiles drawn, no statue built yet (it would show its card)


def _deal() -> dict[str, Any]:
    """A whole deal for three, chosen (not drawn from a seed): the supply in draw
    order, the commons in play and each seat's secret card."""
    content = load()
    pick = random.Random("the mall's dealt example")
    tiles = content.tiles_for(len(PLAYERS))
    pick.shuffle(tiles)
    commons: list[str] = []
    for colour, take in (("purple", content.purple_in_play), ("pink", content.pink_in_play)):
        commons += sorted(content.commons_of_colour(colour))[: take[len(PLAYERS)]]
    cards = sorted(content.cards)
    return {
        "supply": tiles,
        "commons": commons,
        "secrets": {str(seat): cards[seat - 1] for seat in range(1, len(PLAYERS) + 1)},
    }


def _with_twin(example: Example) -> Example:
    """`example` with its twin: the supply past the tiles its moves drew reversed
    (the next draw differs), and the card of a seat not to move swapped for one no
    seat holds (so the seat to move, who may not tell the twins apart, is offered
    its moves with previews at both)."""
    state = GAME.setup(list(example.players), dict(example.setup))
    for seat, text in example.moves:
        state = GAME.perform(state, GAME.check(state, GAME.parse(text), seat))
    assert not any(p.statue_built for p in state.players), "a card is shown: fewer moves"
    supply: list[str] = list(example.setup["supply"])
    seen = len(supply) - len(state.supply)  # the Dispenser's and the tiles drawn
    secrets = dict(example.setup["secrets"])
    knows = next(s for s in range(len(example.players), 0, -1) if s != state.turn)
    secrets[str(knows)] = next(c for c in sorted(load().cards) if c not in secrets.values())
    twin = {**example.setup, "supply": [*supply[:seen], *reversed(supply[seen:])]}
    return replace(example, twin=Twin({**twin, "secrets": secrets}, frozenset({knows})))


EXAMPLES = (
    played(GAME, "two players, played to the end", ("Ann", "Ben"), {"seed": "ex-1"}, "greedy"),
    played(
        GAME, "four players, under way", ("Ann", "Ben", "Cy", "Dee"), {"seed": "ex-2"}, "greedy", 9
    ),
    _with_twin(played(GAME, "three players, a dealt game", PLAYERS, _deal(), "greedy", MOVES)),
)
