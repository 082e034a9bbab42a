"""The games this server can run, by name."""

from __future__ import annotations

from .base import Game, IllegalAction, NotationError, SetupError


def get(name: str) -> Game:
    """The game registered under `name`; raises KeyError for an unknown one."""
    if name == "mall":
        from .mall.game import GAME as MALL

        return MALL
    if name == "nim":
        from .nim import GAME as NIM

        return NIM
    raise KeyError(f"unknown game {name!r}")


def for_log_format(log_format: object) -> Game:
    """The game whose log files carry `log_format` (e.g. "pbem.mall/1")."""
    for name in NAMES:
        game = get(name)
        if game.log_format == log_format:
            return game
    raise KeyError(f"unknown log format {log_format!r}")


NAMES = ("mall", "nim")

__all__ = ["NAMES", "Game", "IllegalAction", "NotationError", "SetupError", "for_log_format", "get"]
