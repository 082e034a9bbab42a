"""The games this server can run: a registry mapping each game's name to its plugin
(`Plugin`: rules, bots, presentation). A new game is one package under
`pbem/games/` with a `PLUGIN`, and one line in `_PACKAGES`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any

from pbem import i18n

from .base import Game, IllegalAction, NotationError, Plugin, Sequential, SetupError
from .names import bot_name

# The rules of any registered game as the server holds them: it never looks inside a
# game's states and actions, it hands them back to the same game's functions.
Rules = Game[Any, Any]

_PACKAGES = {
    "mall": "pbem.games.mall",
    "nim": "pbem.games.nim",
    "diplomacy": "pbem.games.diplomacy",
}


class Registry(Mapping[str, Plugin]):
    """name -> Plugin; each game's package is imported on first use."""

    def __init__(self, packages: Mapping[str, str]) -> None:
        self._packages = dict(packages)
        self._loaded: dict[str, Plugin] = {}

    def __getitem__(self, name: str) -> Plugin:
        if name not in self._packages:
            raise KeyError(f"unknown game {name!r}")
        if name not in self._loaded:
            plugin: Plugin = import_module(self._packages[name]).PLUGIN
            if plugin.name != name:
                package = self._packages[name]
                raise RuntimeError(f"{package} registers {plugin.name!r}, not {name!r}")
            self._loaded[name] = plugin
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


GAMES = Registry(_PACKAGES)
for _package in _PACKAGES.values():
    i18n.register_package(_package)  # each game's translations/ catalogs
NAMES = tuple(_PACKAGES)


def get(name: str) -> Rules:
    """The rules of the game registered under `name`; raises KeyError for an unknown one."""
    return GAMES[name].rules


def plugin(name: str) -> Plugin:
    """The plugin of the game registered under `name`; raises KeyError for an unknown one."""
    return GAMES[name]


def for_log_format(log_format: object) -> Rules:
    """The game whose log files carry `log_format` (e.g. "pbem.mall/1")."""
    for name in NAMES:
        game = get(name)
        if game.log_format == log_format:
            return game
    raise KeyError(f"unknown log format {log_format!r}")


__all__ = [
    "GAMES",
    "NAMES",
    "Game",
    "IllegalAction",
    "NotationError",
    "Plugin",
    "Rules",
    "Sequential",
    "SetupError",
    "bot_name",
    "for_log_format",
    "get",
    "plugin",
]
