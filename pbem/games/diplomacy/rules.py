"""Diplomacy behind the server's `Game` protocol: seven powers order at the same
time, each seat's orders sealed until the game resolves the phase through the
`diplomacy` package, which adjudicates (DATC-compliant). `GAME` is the rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.i18n import gettext as _

from ..base import IllegalAction, SetupError, default_on_resign
from . import actions, bots, document, legality, play
from .actions import Action, Orders, Resolve
from .position import MAPS, POWERS, SEATS
from .state import DipState, dump, load, new_state

# The setup's parts: the map, and the seed the server gives every game (a game of
# Diplomacy has no chance in it, so the seed changes nothing).
SETUP_PARTS = ("map", "seed")


class Diplomacy:
    """The rules as pure functions over `DipState` and `Orders` / `Resolve`.

    `to_move` is always None: the game waits on a set of seats (`active`), the
    powers with something to order that gave no orders yet."""

    name = "diplomacy"
    version = "1"
    content = "standard"
    log_format = "pbem.diplomacy/1"

    def setup(self, players: Sequence[str], options: Mapping[str, Any]) -> DipState:
        if len(players) != len(POWERS):
            raise SetupError(_("Diplomacy takes 7 players, not %(count)s", count=len(players)))
        unknown = [str(k)[:40] for k in options if k not in SETUP_PARTS]
        if unknown:
            raise SetupError(
                _("unknown setup part %(part)r; a Diplomacy setup has a map", part=unknown[0])
            )
        map_name = options.get("map", "standard")
        if map_name not in MAPS:
            raise SetupError(_("the map is one of: %(maps)s", maps=", ".join(MAPS)))
        return new_state(players, str(map_name))

    def parse(self, value: str | Mapping[str, Any]) -> Action:
        return actions.parse(value)

    def check(self, state: DipState, action: Action, seat: int | None = None) -> Action:
        if state.over:
            raise IllegalAction(_("the game is over"))
        if isinstance(action, Resolve):
            if seat is not None:
                raise IllegalAction(_("only the game itself resolves a phase"))
            if action != play.resolution(state):
                raise IllegalAction(_("this is not the resolution the phase is waiting for"))
            return action
        whose = _whose(state, action, seat)
        orders = legality.check_orders(state.position, whose, action.orders)
        return Orders(whose, orders, action.draw)

    def perform(self, state: DipState, action: Action) -> DipState:
        if state.over:
            raise IllegalAction(_("the game is over"))
        if isinstance(action, Resolve):
            return play.resolve(state, action)
        return play.give(state, action)

    def legal_actions(self, state: DipState, seat: int | None = None) -> list[Action]:
        if seat is None:
            due = play.resolution(state)
            return [] if due is None else [due]
        if not play.can_order(state, seat):
            return []
        singles = legality.single_orders(state.position, seat)
        return [Orders(seat, ()), *(Orders(seat, (order,)) for order in singles)]

    def format(self, action: Action) -> str:
        return actions.format_action(action)

    def to_json(self, action: Action) -> dict[str, Any]:
        return actions.to_json(action)

    def active(self, state: DipState) -> frozenset[int]:
        return play.active(state)

    def to_move(self, state: DipState) -> int | None:
        return None

    def over(self, state: DipState) -> bool:
        return state.over

    def sealed(self, state: DipState, action: Action) -> bool:
        return isinstance(action, Orders)

    def resolution(self, state: DipState) -> Resolve | None:
        return play.resolution(state)

    def round(self, state: DipState) -> int:
        return document.round_of(state)

    def view(self, state: DipState, seat: int | None) -> dict[str, Any]:
        return document.view(state, seat)

    def describe(self, state: DipState, seat: int | None) -> str:
        return document.describe(state, seat)

    def secrets(self, state: DipState, seat: int | None) -> set[str]:
        return set()  # the views never hold another seat's orders or vote

    def bot(self, name: str, seed: str | int | None = None) -> Callable[[DipState, int], Action]:
        return bots.make_bot(name, seed)

    def narrate(self, before: DipState, action: Action, after: DipState, viewer: int | None) -> str:
        return document.narrate(before, action, after, viewer)

    def public_setup(
        self, setup: Mapping[str, Any], state: DipState, seat: int | None
    ) -> dict[str, Any]:
        return dict(setup)  # nothing of a setup is hidden

    def reveals(self, before: DipState, after: DipState) -> bool:
        """A resolution shows every sealed order set of the phase: taking it back
        (and letting a seat order again knowing the others') needs everyone."""
        return len(after.history) > len(before.history)

    def on_resign(self, state: DipState, seat: int, people: int) -> str:
        """A bot plays the power on while another person is at the table; with only
        bots left the game ends."""
        return default_on_resign(people)

    def resign(self, state: DipState, seat: int) -> DipState:
        """Drawn among the surviving powers other than the one that left."""
        return play.end(state, seat)

    def rematch_setup(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        return {"map": setup["map"]} if "map" in setup else {}

    def dump_state(self, state: DipState) -> dict[str, Any]:
        return dump(state)

    def load_state(self, doc: Mapping[str, Any]) -> DipState:
        return load(doc)


def possible_orders(state: DipState, seat: int) -> dict[str, list[str]]:
    """location -> the orders the seat may give there this phase (each sorted); {}
    for a seat with nothing to order and once the game is over."""
    return legality.possible_orders(state.position, seat) if play.can_order(state, seat) else {}


def _whose(state: DipState, action: Orders, seat: int | None) -> int:
    """The seat the orders are for: the one named, else the owner of the first
    unit ordered."""
    if action.seat is not None and seat is not None and action.seat != seat:
        raise IllegalAction(
            _("seat %(seat)s cannot give seat %(other)s's orders", seat=seat, other=action.seat)
        )
    whose = action.seat if action.seat is not None else seat
    if whose is None and action.orders:
        whose = legality.seat_of(state.position, action.orders[0])
    if whose is None or whose not in SEATS:
        raise IllegalAction(_("say which seat gives these orders"))
    return whose


GAME = Diplomacy()
