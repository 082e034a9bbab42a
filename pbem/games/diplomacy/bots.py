"""Diplomacy's bots: "hold" (every unit keeps the default: hold, disband, civil
disorder; the timeout's orders) and "random" (a random possible order for each
unit, seeded: the same seed and state give the same orders)."""

from __future__ import annotations

import random
from collections.abc import Callable

from .actions import Orders
from .position import facts
from .state import DipState

BOTS = ("hold", "random")


def random_orders(state: DipState, seat: int, rng: random.Random) -> tuple[str, ...]:
    """A random possible order for each location the seat orders; in adjustments
    as many builds (or disbands) as allowed, at random locations."""
    known = facts(state.position)
    locations = list(known.orderable[seat - 1])
    adjust = known.adjust[seat - 1]
    if state.position.kind == "A" and adjust:
        locations = sorted(rng.sample(locations, min(abs(adjust), len(locations))))
    return tuple(rng.choice(known.possible[loc]) for loc in locations if known.possible[loc])


def make_bot(name: str, seed: str | int | None = None) -> Callable[[DipState, int], Orders]:
    if name == "hold":
        return lambda state, seat: Orders(seat, ())
    if name == "random":

        def play(state: DipState, seat: int) -> Orders:
            if seed is None:
                rng = random.Random()
            else:
                rng = random.Random(f"{seed}|{state.position.phase}|{len(state.history)}|{seat}")
            return Orders(seat, random_orders(state, seat, rng))

        return play
    raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}")
