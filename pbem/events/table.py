"""The events of what the people at a table decide about the game itself, beyond
its moves: a seat leaving the running game, and a rematch offered, accepted,
closed or started."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pydantic import ConfigDict

from .strict import STRICT as _STRICT


@dataclass(frozen=True)
class SeatResigned:
    """A seat's person left a running game. `replaced_by` is the controller that
    plays the seat from now on ("bot:<name>"), or "" when the resignation ended the
    game (the game's rules say which: `Game.on_resign`, then `Game.resign`)."""

    TYPE: ClassVar[str] = "SeatResigned"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    replaced_by: str


@dataclass(frozen=True)
class RematchOffered:
    """After the end, a seat offers the same table a new game (same options, a new
    seed); it starts once every person at the table accepted."""

    TYPE: ClassVar[str] = "RematchOffered"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int


@dataclass(frozen=True)
class RematchAccepted:
    """A seat accepts the rematch offered at seq `offer`."""

    TYPE: ClassVar[str] = "RematchAccepted"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    offer: int


@dataclass(frozen=True)
class RematchClosed:
    """The rematch offered at seq `offer` will not be played: `seat` declined it, or
    (seat None) it lapsed unanswered (`reason`: "declined" or "lapsed")."""

    TYPE: ClassVar[str] = "RematchClosed"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    offer: int
    reason: str
    seat: int | None = None


@dataclass(frozen=True)
class RematchStarted:
    """Everyone accepted the rematch offered at seq `offer`: it is game `new_game_id`."""

    TYPE: ClassVar[str] = "RematchStarted"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    offer: int
    new_game_id: str
