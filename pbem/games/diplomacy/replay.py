"""A pbem.diplomacy/1 log replayed by the `diplomacy` package alone: a fresh package
game, each resolution's orders set and processed by the package (and a draw every
surviving power voted for ended through it), so the position a log reaches can be
checked against the package's own play, not only against these rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from diplomacy import Game as PackageGame

from .actions import Orders, Resolve, parse
from .position import POWERS, SEATS

MAX_IDLE = 8  # as the rules: phases in a row nobody orders


class ReplayError(ValueError):
    """A log the package cannot follow: the message names the action."""


def _survivors(game: Any) -> list[str]:
    return [p for p in POWERS if game.get_power(p).centers]


def _voters(game: Any) -> list[str]:
    return [p for p in _survivors(game) if game.get_power(p).units or game.get_power(p).retreats]


def replay(setup: Mapping[str, Any], entries: Sequence[Any]) -> Any:
    """The package game after the log's actions: `setup` the log's setup part,
    `entries` its actions, each a {"seat", "action"} entry or an action itself
    (notation or JSON form). Orders only carry the draw votes; each resolution's
    orders go to the package as they are written."""
    game = PackageGame(map_name=str(setup.get("map", "standard")))
    votes: dict[int, bool] = {}
    for number, entry in enumerate(entries, start=1):
        given = entry["action"] if isinstance(entry, Mapping) and "action" in entry else entry
        seat = entry.get("seat") if isinstance(entry, Mapping) and "action" in entry else None
        action = parse(given)
        if game.is_game_done:
            raise ReplayError(f"action {number}: the game is over")
        if isinstance(action, Orders):
            whose = action.seat if action.seat is not None else seat
            if whose not in SEATS:
                raise ReplayError(f"action {number}: orders of no seat")
            votes[whose] = action.draw
            continue
        _resolve(game, action, votes, number)
        votes = {}
    return game


def _resolve(game: Any, action: Resolve, votes: Mapping[int, bool], number: int) -> None:
    if action.phase != game.get_current_phase():
        raise ReplayError(
            f"action {number}: resolves {action.phase}, the game is in {game.get_current_phase()}"
        )
    voters = _voters(game)
    if voters and all(votes.get(POWERS.index(p) + 1, False) for p in voters):
        game.draw(winners=_survivors(game))
        return
    for seat, orders in action.orders.items():
        game.set_orders(POWERS[seat - 1], list(orders))
    game.process()
    for _round in range(MAX_IDLE):
        if game.is_game_done or any(game.get_orderable_locations().values()):
            return
        game.process()
