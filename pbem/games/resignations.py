"""The resignations of a game log file (its optional "resigned" key): reading them
as hostile input, and applying each at its place in a replay through the game's own
rules (`Game.on_resign`, `Game.resign`), for any game. The server's import and a
game's command-line replay both use this, so they refuse the same files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Game

KEYS = frozenset(("seat", "after", "bot"))
SHAPE = '"resigned" is a list of {"seat", "after", "bot"} entries'


class ResignationError(ValueError):
    """A "resigned" entry that is no resignation, or one the game refuses where the
    file puts it; the message names the entry as the replay names an action."""


@dataclass(frozen=True)
class Resignation:
    """Seat `seat` left the game after the file's first `after` actions: the bot
    `bot` played the seat from then on, or (None) the resignation ended the game."""

    number: int  # the entry's place in "resigned", from 1
    seat: int
    after: int
    bot: str | None

    def __str__(self) -> str:
        return f"resignation {self.number} (seat {self.seat}, after {self.after} actions)"

    def as_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "after": self.after, "bot": self.bot}


def read(given: object, seats: int, actions: int, bots: Sequence[str]) -> list[Resignation]:
    """The entries of a log's "resigned" key (None: the key is absent, none), each
    checked on its own and against the others: a seat from 1 to `seats`, `after`
    from 0 to `actions` and never less than the entry before's, `bot` one of `bots`
    or null, and no seat twice. Raises ResignationError."""
    if given is None:
        return []
    if not isinstance(given, list):
        raise ResignationError(SHAPE)
    if len(given) > seats:
        raise ResignationError(f'"resigned" has {len(given)} entries; the game has {seats} seats')
    found: list[Resignation] = []
    for number, entry in enumerate(given, start=1):
        if not isinstance(entry, dict) or set(entry) != KEYS:
            raise ResignationError(f"resignation {number}: {SHAPE}")
        seat, after, bot = entry["seat"], entry["after"], entry["bot"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
            raise ResignationError(f'resignation {number}: "seat" is a seat, 1 to {seats}')
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= actions:
            raise ResignationError(
                f'resignation {number} (seat {seat}): "after" is a number of actions,'
                f" 0 to {actions}"
            )
        if bot is not None and (not isinstance(bot, str) or bot not in bots):
            raise ResignationError(
                f'resignation {number} (seat {seat}): "bot" is null (the game ended)'
                f" or a bot: {', '.join(bots)}"
            )
        resignation = Resignation(number, seat, after, bot)
        if found and after < found[-1].after:
            raise ResignationError(
                f"{resignation}: the resignations are in the order they happened,"
                f" and resignation {number - 1} came after {found[-1].after} actions"
            )
        if any(r.seat == seat for r in found):
            raise ResignationError(f"{resignation}: seat {seat} resigned already")
        found.append(resignation)
    return found


def apply(
    game: Game[Any, Any],
    state: Any,
    resignation: Resignation,
    seats: int,
    earlier: Sequence[Resignation],
) -> Any:
    """The state after `resignation` (at its place: `state` is the state after the
    file's first `resignation.after` actions, `earlier` the resignations before it):
    unchanged when a bot plays on, ended through `game.resign` otherwise. Refused
    (ResignationError) once the game is over, and when the game's rules could not
    have answered so (`on_resign`, for any number of the seats not resigned yet
    being people: the file does not say which seats bots held from the start)."""
    if game.over(state):
        raise ResignationError(f"{resignation}: the game is over")
    gone = {r.seat for r in earlier}
    others = seats - 1 - len(gone - {resignation.seat})
    possible = {game.on_resign(state, resignation.seat, people) for people in range(others + 1)}
    if resignation.bot is not None and "bot" not in possible:
        raise ResignationError(f'{resignation}: it ends the game here, so "bot" is null')
    if resignation.bot is None and "end" not in possible:
        raise ResignationError(f'{resignation}: a bot plays the seat on here; name it in "bot"')
    return state if resignation.bot is not None else game.resign(state, resignation.seat)


def at(resignations: Sequence[Resignation], after: int) -> list[Resignation]:
    """The resignations that came right after the file's first `after` actions."""
    return [r for r in resignations if r.after == after]
