"""The five actions of a turn (docs/games/mall.md section 5) as plain frozen data."""

from __future__ import annotations

from dataclasses import dataclass

from ..base import IllegalAction, NotationError

__all__ = [
    "Action",
    "Build",
    "BuildAttraction",
    "Dock",
    "IllegalAction",
    "Money",
    "NotationError",
    "Pass",
]


@dataclass(frozen=True, slots=True)
class Money:
    column: str  # "L" or "R"


@dataclass(frozen=True, slots=True)
class Build:
    slot: str  # "L1" .. "R4"
    x: int
    y: int
    customer: str | None = None


@dataclass(frozen=True, slots=True)
class BuildAttraction:
    id: str
    x: int
    y: int
    mirror: bool = False


@dataclass(frozen=True, slots=True)
class Dock:
    id: str
    x: int


@dataclass(frozen=True, slots=True)
class Pass:
    pass


Action = Money | Build | BuildAttraction | Dock | Pass
