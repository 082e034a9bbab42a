"""Nim, a second, tiny game behind the same `Game` protocol: players in turn take 1 to
3 tokens from one pile; whoever takes the last token wins. It shows that service,
store and web need nothing game-specific, and its pile can be as long as a test or
benchmark needs (10,000 events is one option away)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pbem.i18n import gettext as _

from ..base import IllegalAction, NotationError, Sequential, SetupError


@dataclass(frozen=True, slots=True)
class Take:
    count: int


@dataclass(frozen=True)
class NimState:
    names: tuple[str, ...]
    pile: int
    turn: int | None  # seat to move; None once the pile is empty
    round: int = 1
    winner: int | None = None


_TAKE = re.compile(r"\s*take\s*([0-9]{1,3})\s*", re.I | re.A)  # ASCII digits, bounded
MAX_TAKE = 3
MAX_PILE = 10_000  # a game of at most 10,000 moves: every game ends
MAX_SEED = 200  # characters


class Nim(Sequential):
    name = "nim"
    version = "1"
    content = "-"
    log_format = "pbem.nim/1"

    def setup(self, players: Sequence[str], options: Mapping[str, Any]) -> NimState:
        if not 2 <= len(players) <= 8:
            raise SetupError(_("nim takes 2 to 8 players, not %(count)s", count=len(players)))
        unknown = [str(k)[:40] for k in options if k not in ("pile", "seed")]
        if unknown:
            raise SetupError(
                _("unknown setup part %(part)r; a nim setup has pile, seed", part=unknown[0])
            )
        seed = options.get("seed")
        if seed is not None and (not isinstance(seed, str) or len(seed) > MAX_SEED):
            raise SetupError(
                _("the seed is a string of at most %(most)s characters", most=MAX_SEED)
            )
        pile = options.get("pile", 21)
        if isinstance(pile, bool) or not isinstance(pile, int) or not 1 <= pile <= MAX_PILE:
            raise SetupError(_("the pile is a whole number from 1 to %(most)s", most=MAX_PILE))
        return NimState(tuple(players), pile, 1)

    def parse(self, value: str | Mapping[str, Any]) -> Take:
        if isinstance(value, Mapping):
            count = value.get("count")
            if (
                set(value) != {"type", "count"}
                or value.get("type") != "take"
                or isinstance(count, bool)
                or not isinstance(count, int)
                or not 0 <= count < 1000
            ):
                raise NotationError(
                    _('a nim action is {"type": "take", "count": N}, N from 1 to 3')
                )
            return Take(count)
        match = _TAKE.fullmatch(value) if isinstance(value, str) and len(value) < 100 else None
        if not match:
            shown = value[:40] if isinstance(value, str) else type(value).__name__
            raise NotationError(
                _('cannot read "%(shown)s": write take 1, take 2 or take 3', shown=shown)
            )
        return Take(int(match[1]))

    def check(self, state: NimState, action: Take, seat: int | None = None) -> Take:
        if state.turn is None:
            raise IllegalAction(_("the game is over"))
        if seat is not None and seat != state.turn:
            raise IllegalAction(_("not seat %(seat)s's turn", seat=seat))
        if not 1 <= action.count <= min(MAX_TAKE, state.pile):
            raise IllegalAction(
                _(
                    "take 1 to %(most)s tokens; the pile has %(pile)s",
                    most=min(MAX_TAKE, state.pile),
                    pile=state.pile,
                )
            )
        return action

    def perform(self, state: NimState, action: Take) -> NimState:
        if state.turn is None:
            raise IllegalAction(_("the game is over"))
        pile = state.pile - action.count
        if pile == 0:
            return replace(state, pile=0, turn=None, winner=state.turn)
        following = state.turn % len(state.names) + 1
        return replace(state, pile=pile, turn=following, round=state.round + (following == 1))

    def legal_actions(self, state: NimState, seat: int | None = None) -> list[Take]:
        if state.turn is None or (seat is not None and seat != state.turn):
            return []
        return [Take(n) for n in range(1, min(MAX_TAKE, state.pile) + 1)]

    def format(self, action: Take) -> str:
        return f"take {action.count}"

    def to_json(self, action: Take) -> dict[str, Any]:
        return {"type": "take", "count": action.count}

    def to_move(self, state: NimState) -> int | None:
        return state.turn

    def round(self, state: NimState) -> int:
        return state.round

    def view(self, state: NimState, seat: int | None) -> dict[str, Any]:
        return {
            "game": "nim",
            "status": "finished" if state.turn is None else "playing",
            "round": state.round,
            "turn": state.turn,
            "pile": state.pile,
            "players": [{"seat": i, "name": n} for i, n in enumerate(state.names, start=1)],
            "winners": None if state.winner is None else [state.winner],
        }

    def describe(self, state: NimState, seat: int | None) -> str:
        if state.turn is None:
            return _(
                "The pile is empty; seat %(seat)s took the last token and won.", seat=state.winner
            )
        return _("%(pile)s tokens left; seat %(seat)s to move.", pile=state.pile, seat=state.turn)

    def secrets(self, state: NimState, seat: int | None) -> set[str]:
        return set()

    def bot(self, name: str, seed: str | int | None = None) -> Callable[[NimState, int], Take]:
        rng = random.Random(seed)
        if name == "random":
            return lambda state, seat: rng.choice(self.legal_actions(state, seat))
        if name == "greedy":  # leave a multiple of 4 when possible
            return lambda state, seat: Take(state.pile % 4 or 1)
        raise ValueError(f"unknown bot {name!r}: bots are random, greedy")

    def narrate(self, before: NimState, action: Take, after: NimState, viewer: int | None) -> str:
        # the notation of the take, then words
        return f"take {action.count}; " + _("%(pile)s left", pile=after.pile)

    def public_setup(
        self, setup: Mapping[str, Any], state: NimState, seat: int | None
    ) -> dict[str, Any]:
        return dict(setup)

    def reveals(self, before: NimState, after: NimState) -> bool:
        return False

    def on_resign(self, state: NimState, seat: int, people: int) -> str:
        """Two players: leaving ends the game, and the other seat wins. More: a bot
        takes the seat (bots alone finish any pile, so every game still ends)."""
        return "end" if len(state.names) == 2 else "bot"

    def resign(self, state: NimState, seat: int) -> NimState:
        """Over, won by the seat after the one that left (of two, the other)."""
        return replace(state, turn=None, winner=seat % len(state.names) + 1)

    def rematch_setup(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        return {"pile": setup["pile"]} if "pile" in setup else {}

    def dump_state(self, state: NimState) -> dict[str, Any]:
        return {
            "names": list(state.names),
            "pile": state.pile,
            "turn": state.turn,
            "round": state.round,
            "winner": state.winner,
        }

    def load_state(self, doc: Mapping[str, Any]) -> NimState:
        return NimState(tuple(doc["names"]), doc["pile"], doc["turn"], doc["round"], doc["winner"])


GAME = Nim()


def standings_order(doc: Mapping[str, Any]) -> list[int]:
    """The winner first (once there is one), then the other seats in order."""
    winners = doc.get("winners") or []
    return [*winners, *(p["seat"] for p in doc["players"] if p["seat"] not in winners)]
