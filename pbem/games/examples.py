"""Examples made by playing: a game's moves as its bots choose them from a setup,
for the examples a plugin gives (`Plugin.examples`) where writing every move by hand
would be long (a whole mall, years of Diplomacy)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import Example, Game


def played(
    game: Game[Any, Any],
    about: str,
    players: Sequence[str],
    setup: Mapping[str, Any],
    bot: str,
    most: int | None = None,
) -> Example:
    """The example of `bot` playing every seat from `setup` (seeded by the seat and
    the move's number, so the same each time) until the game ends, or `most` moves
    were played. Each seat the game waits on moves in turn; the game's own
    resolutions are taken as the server takes them, and not listed."""
    state = game.setup(list(players), dict(setup))
    moves: list[tuple[int, str]] = []
    while not game.over(state) and (most is None or len(moves) < most):
        seat = min(game.active(state))
        action = game.check(state, game.bot(bot, f"{seat}/{len(moves)}")(state, seat), seat)
        moves.append((seat, game.format(action)))
        state = game.perform(state, action)
        while (due := game.resolution(state)) is not None:
            state = game.perform(state, game.check(state, due, None))
    return Example(about, tuple(players), dict(setup), tuple(moves), ends=game.over(state))
