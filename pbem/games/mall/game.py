"""The mall game behind the server's `Game` protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..base import Sequential, SetupError, default_on_resign
from . import bots, document, logfile, notation, render, rules, snapshot
from .actions import Action
from .state import State, setup

SETUP_PARTS = ("seed", "supply", "commons", "secrets")
MAX_SEED = 200  # characters (an integer seed: digits)
MAX_IDS = 120  # tiles in a supply (the standard content has 96), attractions in the commons
MAX_ID = 40  # characters of a tile, attraction or card id


class MallGame(Sequential):
    name = "mall"
    version = "1"
    content = "standard"
    log_format = logfile.FORMAT

    def setup(self, players: Sequence[str], options: Mapping[str, Any]) -> State:
        """A new game's state; every part of `options` is bounded before anything is
        dealt (SetupError names the part and its rule)."""
        _check_setup(options)
        return setup(
            players,
            seed=options.get("seed"),
            supply=options.get("supply"),
            commons=options.get("commons"),
            secrets=options.get("secrets"),
        )

    def parse(self, value: str | Mapping[str, Any]) -> Action:
        return notation.parse_any(dict(value) if isinstance(value, Mapping) else value)

    def check(self, state: State, action: Action, seat: int | None = None) -> Action:
        return rules.check(state, action, seat)

    def perform(self, state: State, action: Action) -> State:
        return rules.perform(state, action)

    def legal_actions(self, state: State, seat: int | None = None) -> list[Action]:
        return rules.legal_actions(state, seat)

    def format(self, action: Action) -> str:
        return notation.format_action(action)

    def to_json(self, action: Action) -> dict[str, Any]:
        return notation.to_json(action)

    def to_move(self, state: State) -> int | None:
        return state.turn

    def round(self, state: State) -> int:
        return state.round

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return document.view(state, seat)

    def describe(self, state: State, seat: int | None) -> str:
        return render.describe(state, seat)

    def secrets(self, state: State, seat: int | None) -> set[str]:
        hidden = set(state.supply)
        if state.seed is not None and not state.finished:
            hidden.add(state.seed)
        hidden |= {
            p.secret
            for p in state.players
            if not document.secret_visible(state, p, seat)
            and all(
                p.secret != q.secret
                for q in state.players
                if document.secret_visible(state, q, seat)
            )
        }
        return hidden

    def bot(self, name: str, seed: str | int | None = None) -> Callable[[State, int], Action]:
        play = bots.make_bot(name, seed)
        return lambda state, seat: play(state)  # a mall bot plays the seat to move

    def narrate(self, before: State, action: Action, after: State, viewer: int | None) -> str:
        return render.narrate(before, action, after)  # nothing of a move is sealed

    def public_setup(
        self, setup: Mapping[str, Any], state: State, seat: int | None
    ) -> dict[str, Any]:
        """Everything once the game has ended; before, no seed, no supply order, and
        only the secret cards the viewer may see (docs/games/mall.md section 11)."""
        if state.finished:
            return {**setup, "seed_sha256": state.seed_sha256}
        shown: dict[str, Any] = {"players": list(setup["players"])}
        if "commons" in setup:
            shown["commons"] = list(setup["commons"])
        visible = {
            str(p.seat): p.secret for p in state.players if document.secret_visible(state, p, seat)
        }
        if "secrets" in setup and visible:
            shown["secrets"] = visible
        shown["seed_sha256"] = state.seed_sha256
        return shown

    def reveals(self, before: State, after: State) -> bool:
        return len(after.supply) < len(before.supply)

    def on_resign(self, state: State, seat: int, people: int) -> str:
        """docs/games/mall.md says nothing of leaving a game: a bot plays the seat on while
        another person is at the table; with only bots left the game ends."""
        return default_on_resign(people)

    def resign(self, state: State, seat: int) -> State:
        """The game ends as it stands: every score as if the end came now (the
        balloons, attractions and bays as scored at the end), winners by them."""
        return replace(state, turn=None)

    def rematch_setup(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # every part of a mall's setup is the deal

    def dump_state(self, state: State) -> dict[str, Any]:
        return snapshot.dump(state)

    def load_state(self, doc: Mapping[str, Any]) -> State:
        return snapshot.load(dict(doc))


GAME = MallGame()


def _check_setup(options: Mapping[str, Any]) -> None:
    """Bounds on a given setup: known parts only, a seed of at most MAX_SEED
    characters, lists and maps of a few short ids."""
    unknown = [str(k)[:MAX_ID] for k in options if k not in SETUP_PARTS]
    if unknown:
        raise SetupError(f"unknown setup part {unknown[0]!r}; a setup has {', '.join(SETUP_PARTS)}")
    logfile.check_seed(options.get("seed"), MAX_SEED)
    for part in ("supply", "commons"):
        value = options.get(part)
        if value is None:
            continue
        if not isinstance(value, list) or len(value) > MAX_IDS:
            raise SetupError(f"the {part} is a list of at most {MAX_IDS} ids")
        if not all(isinstance(v, str) and 0 < len(v) <= MAX_ID for v in value):
            raise SetupError(f"the {part} is a list of ids of 1 to {MAX_ID} characters")
    secrets = options.get("secrets")
    if secrets is not None:
        if not isinstance(secrets, Mapping) or len(secrets) > 4:
            raise SetupError('the secrets map each seat to a card id, e.g. {"1": "O3"}')
        for seat, card in secrets.items():
            if not (isinstance(seat, str | int) and isinstance(card, str)):
                raise SetupError('the secrets map each seat to a card id, e.g. {"1": "O3"}')
            if len(str(seat)) > 2 or len(card) > MAX_ID:
                raise SetupError('the secrets map each seat to a card id, e.g. {"1": "O3"}')
