"""What the rest of the server knows of a game: the `Game` protocol and the errors a
game raises. Service, store and web use only this, so another game plugs in by
implementing it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Protocol


class IllegalAction(ValueError):
    """An action the rules forbid; the message says which rule, in a player's words."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule  # the rules section, e.g. "6"


class NotationError(IllegalAction):
    """Text or JSON that does not spell an action at all."""


class SetupError(ValueError):
    """A game that cannot be set up as asked; the message says which part is wrong."""


class Game(Protocol):
    """A game's rules as pure functions over immutable states and actions."""

    name: str  # e.g. "mall"; stored in GameCreated
    version: str  # engine version, stored in GameCreated
    content: str  # content set, stored in GameCreated
    log_format: str  # e.g. "pbem.mall/1"

    def setup(self, players: Sequence[str], options: Mapping[str, Any]) -> Any:
        """A new game; `options` as the log file's `setup` (seed, supply, ...)."""

    def parse(self, value: str | Mapping[str, Any]) -> Any:
        """An action from its notation or JSON form; raises NotationError."""

    def check(self, state: Any, action: Any, seat: int | None = None) -> Any:
        """The canonical action if legal for `seat`; raises IllegalAction."""

    def perform(self, state: Any, action: Any) -> Any:
        """The state after a checked, canonical action."""

    def legal_actions(self, state: Any, seat: int | None = None) -> list[Any]:
        """The legal actions of the seat to move (or of `seat`: none unless it is the
        seat to move), canonical and in order."""

    def format(self, action: Any) -> str:
        """The canonical notation of a canonical action."""

    def to_json(self, action: Any) -> dict[str, Any]:
        """The canonical JSON form of a canonical action."""

    def to_move(self, state: Any) -> int | None:
        """The seat to move; None once the game is over."""

    def round(self, state: Any) -> int:
        """The current round (the last one once the game is over)."""

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """The state document for a seat, or for a spectator (None)."""

    def describe(self, state: Any, seat: int | None) -> str:
        """The position as text, for terminals and mails."""

    def secrets(self, state: Any, seat: int | None) -> set[str]:
        """Strings the viewer must not see anywhere (hidden ids, the seed)."""

    def bot(self, name: str, seed: str | int | None = None) -> Callable[[Any], Any]:
        """A bot by name: a function from state to a legal action."""

    def narrate(self, before: Any, action: Any, after: Any) -> str:
        """One line on what a canonical action did, for logs, mails and pages."""

    def public_setup(
        self, setup: Mapping[str, Any], state: Any, seat: int | None
    ) -> dict[str, Any]:
        """The log file's `setup` part as the viewer may see it in `state`."""

    def reveals(self, before: Any, after: Any) -> bool:
        """Whether going from `before` to `after` showed players something hidden
        (for the mall: a tile drawn from the supply). Such a move is only undone
        when every other player agrees."""

    def dump_state(self, state: Any) -> dict[str, Any]:
        """The whole state (hidden parts included) as JSON data, for snapshots."""

    def load_state(self, doc: Mapping[str, Any]) -> Any:
        """A state from `dump_state`'s data."""


@dataclass(frozen=True)
class Plugin:
    """Everything the server needs of one game, from its rules to its pixels: the
    registry (`pbem.games.GAMES`) maps a game's name to its plugin. A game lives in
    one package, `pbem.games.<name>`, whose `PLUGIN` this is; its templates (page and
    mail partials) are in the package's `templates/` folder."""

    name: str  # the registry's key, stored in GameCreated
    title: str  # how players call it: "Mall", "Nim"
    blurb: str  # one sentence for the New game page
    rules: Game
    bots: tuple[str, ...]  # the names `rules.bot` accepts, the first the default
    timeout_bot: str  # the bot that plays a turn whose time ran out
    package: str  # e.g. "pbem.games.mall"
    # The seats of a state document (`rules.view`) from first to last: the one order
    # of the standings that pages, mails and exports show.
    standings: Callable[[Mapping[str, Any]], list[int]]

    @property
    def templates(self) -> Traversable:
        """The folder of the game's own templates (inside the installed package)."""
        return files(self.package).joinpath("templates")

    def part(self, name: str) -> Any:
        """A module of the game's package by name (e.g. "pages", "mails"), imported
        on first use, so that the rules never load what only pages need."""
        return import_module(f"{self.package}.{name}")
