"""Bots that pick a legal action: `random` (uniform) and `greedy` (one-ply look-ahead
weighing satisfied customers, growing clusters, attractions, bays and money)."""

from __future__ import annotations

import random
from collections.abc import Callable

from .actions import Action
from .rules import legal_actions, perform
from .state import State

Bot = Callable[[State], Action]


def random_bot(rng: random.Random) -> Bot:
    """Any legal action, uniformly."""

    def choose(state: State) -> Action:
        return rng.choice(legal_actions(state))

    return choose


def greedy_bot(rng: random.Random) -> Bot:
    """The legal action whose result `worth` values most for the mover; ties broken
    at random."""

    def choose(state: State) -> Action:
        seat = state.seat_to_move
        best: list[Action] = []
        best_value = float("-inf")
        for action in legal_actions(state):
            value = worth(perform(state, action), seat)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif value > best_value - 1e-9:
                best.append(action)
        return rng.choice(best)

    return choose


def worth(state: State, seat: int) -> float:
    """How good a position looks for `seat`: points already sure (attractions, bays),
    the measures balloons are ranked by, customers waiting to be satisfied, money."""
    player = state.player(seat)
    mall = player.mall
    content = state.content
    value = 0.0
    for tile in mall.tiles:
        if tile.kind == "attraction":
            value += content.attractions[tile.id].points
        elif tile.kind == "dock":
            value += content.bays[tile.id].points
    value += 3.0 * len(mall.satisfied)
    for category in content.stores:
        value += 1.5 * mall.largest_cluster(category)[0]
    value += 0.6 * len(mall.waiting)
    value += 0.8 * min(player.money, 5) + 0.2 * max(player.money - 5, 0)
    value += 0.5 * min(mall.counts[content.categories[-1]], 2)  # entrances open bays
    return value


BOTS: dict[str, Callable[[random.Random], Bot]] = {"random": random_bot, "greedy": greedy_bot}


def make_bot(name: str, seed: str | int | None = None) -> Bot:
    """A bot by name (`random` or `greedy`), with its own seeded generator."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}")
    return BOTS[name](random.Random(seed))
