"""The mall game's rules engine: pure functions over frozen state, no I/O.

state = setup(["Ann", "Ben"], seed="...")
for action in legal_actions(state): ...
state = apply(state, parse("build L2 at 1,3"))
score(state); view(state, seat=1)
"""

from pbem.i18n import N_

from ..base import Plugin, SetupError
from .actions import (
    Action,
    Build,
    BuildAttraction,
    Dock,
    IllegalAction,
    Money,
    NotationError,
    Pass,
)
from .content import Content, load
from .document import standings_order, view
from .notation import as_given, format_action, from_json, parse, parse_any, to_json
from .rules import apply, check, legal_actions, perform
from .scoring import Score, Standings, score
from .state import PlayerState, State, seed_hash, setup

ENGINE_VERSION = "1"

from .game import GAME  # noqa: E402  (the rules above, behind the Game protocol)

PLUGIN = Plugin(
    name="mall",
    title=N_("Mall"),  # translated where shown: gettext(plugin.title), and blurb too
    blurb=N_(
        "Build the most extraordinary mall: draft shop tiles from the Dispenser 3000, "
        "walk customers to the stores they want, race for attractions, score balloons."
    ),
    rules=GAME,
    bots=("greedy", "random"),
    timeout_bot="greedy",
    package=__name__,
    standings=standings_order,
    revealing=N_("a tile drawn from the supply"),
)

__all__ = [
    "ENGINE_VERSION",
    "GAME",
    "PLUGIN",
    "Action",
    "Build",
    "BuildAttraction",
    "Content",
    "Dock",
    "IllegalAction",
    "Money",
    "NotationError",
    "Pass",
    "PlayerState",
    "Score",
    "SetupError",
    "Standings",
    "State",
    "apply",
    "as_given",
    "check",
    "format_action",
    "from_json",
    "legal_actions",
    "load",
    "parse",
    "parse_any",
    "perform",
    "score",
    "seed_hash",
    "setup",
    "to_json",
    "view",
]
