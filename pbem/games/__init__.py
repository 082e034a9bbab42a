"""The games this server can run, by name."""

from __future__ import annotations

from .base import Game, IllegalAction, NotationError, SetupError


def get(name: str) -> Game:
    """The game registered under `name`; raises KeyError for an unknown one."""
    if name == "mall":
        from .mall.game import GAME

        return GAME
    raise KeyError(f"unknown game {name!r}")


__all__ = ["Game", "IllegalAction", "NotationError", "SetupError", "get"]
