"""The game log file (docs/design.md, format `pbem.mall/1`): reading one, replaying it
through the rules, and writing one from a game's setup and actions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import resignations
from ..base import SetupError
from ..resignations import Resignation, ResignationError
from .actions import Action, IllegalAction
from .bots import BOTS
from .notation import as_given, format_action, parse_any
from .rules import check, perform
from .state import State, setup

FORMAT = "pbem.mall/1"


class LogError(ValueError):
    """A document that is not a readable game log; the message says where."""


class SeedError(SetupError):
    """A seed that is not a short string or integer."""


@dataclass(frozen=True)
class Entry:
    seat: int
    action: str | dict[str, Any]  # as given: notation or JSON form


@dataclass(frozen=True)
class GameLog:
    players: tuple[str, ...]
    seed: str | None = None
    supply: tuple[str, ...] | None = None
    commons: tuple[str, ...] | None = None
    secrets: dict[str, str] | None = None
    entries: tuple[Entry, ...] = ()
    resigned: tuple[Resignation, ...] = ()  # in the order they happened

    def start(self) -> State:
        """The state before the first action."""
        return setup(
            self.players,
            seed=self.seed,
            supply=self.supply,
            commons=self.commons,
            secrets=self.secrets,
        )


@dataclass(frozen=True)
class Refusal:
    """Why a replay stopped: the action's number (from 1), seat, text and reason."""

    number: int
    seat: int
    given: str
    reason: str

    def __str__(self) -> str:
        return f'action {self.number} (seat {self.seat}, "{self.given}"): {self.reason}'


@dataclass(frozen=True)
class Replay:
    state: State
    applied: int  # actions folded
    refusal: Refusal | ResignationError | None = None
    history: list[Action] = field(default_factory=list)  # canonical actions applied
    resigned: int = 0  # resignations folded

    @property
    def seq(self) -> int:
        """The seq of the last event folded, as in the stored game (GameCreated is 1)."""
        return 1 + self.applied + self.resigned


def read(doc: Any) -> GameLog:
    """A GameLog from a parsed JSON document; raises LogError when it is not one."""
    if not isinstance(doc, dict):
        raise LogError("a game log is a JSON object")
    if doc.get("format") != FORMAT:
        raise LogError(f'unknown log format {doc.get("format")!r}; expected "{FORMAT}"')
    setup_doc = doc.get("setup")
    if not isinstance(setup_doc, dict):
        raise LogError('the log has no "setup" object')
    players = setup_doc.get("players")
    if not isinstance(players, list) or not players:
        raise LogError('"setup.players" must be a list of names')
    names = tuple(_name(p) for p in players)
    seed = setup_doc.get("seed")
    try:
        check_seed(seed)
    except ValueError as error:
        raise LogError(f'"setup.seed": {error}') from None
    actions = doc.get("actions", [])
    if not isinstance(actions, list):
        raise LogError('"actions" must be a list')
    try:
        resigned = resignations.read(doc.get("resigned"), len(names), len(actions), tuple(BOTS))
    except ResignationError as error:
        raise LogError(str(error)) from None
    return GameLog(
        players=names,
        seed=None if seed is None else str(seed),
        supply=_list_of_text(setup_doc, "supply"),
        commons=_list_of_text(setup_doc, "commons"),
        secrets=_secrets(setup_doc),
        entries=tuple(_entry(i, a) for i, a in enumerate(actions, start=1)),
        resigned=tuple(resigned),
    )


MAX_SEED = 200  # characters; an integer seed is read as its digits


def check_seed(seed: Any, longest: int = MAX_SEED) -> None:
    """Refuse (ValueError, a SetupError too) a seed that is not a string of at most
    `longest` characters or an integer of at most `longest` digits."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, str | int):
        raise SeedError("the seed must be a string (or an integer, read as its digits)")
    if (isinstance(seed, int) and abs(seed) >= 10**longest) or len(str(seed)) > longest:
        raise SeedError(f"the seed has at most {longest} characters")


def _name(player: Any) -> str:
    if isinstance(player, str):
        return player
    name = player.get("name") if isinstance(player, dict) else None
    if isinstance(name, str):
        return name
    raise LogError(f"a player is a name, not {player!r}")


def _list_of_text(setup_doc: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = setup_doc.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LogError(f'"setup.{key}" must be a list of ids')
    return tuple(value)


def _secrets(setup_doc: dict[str, Any]) -> dict[str, str] | None:
    value = setup_doc.get("secrets")
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise LogError('"setup.secrets" must map seats to card ids, e.g. {"1": "O3"}')
    return {str(k): v for k, v in value.items()}


def _entry(number: int, raw: Any) -> Entry:
    if not isinstance(raw, dict) or "action" not in raw or "seat" not in raw:
        raise LogError(f'action {number} must be an object with "seat" and "action"')
    seat = raw["seat"]
    if isinstance(seat, str) and seat.isdigit():
        seat = int(seat)
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise LogError(f"action {number}: the seat must be a number")
    if not isinstance(raw["action"], str | dict):
        raise LogError(f"action {number}: an action is a notation string or a JSON object")
    return Entry(seat, raw["action"])


def replay(log: GameLog, upto: int | None = None, game: Any = None) -> Replay:
    """Fold the log's actions (the first `upto` of them, if given) and its
    resignations (those that came after at most `upto` actions) through the rules;
    stops at the first action or resignation the rules refuse. A log with
    resignations needs `game`, the rules behind the Game protocol (the mall's
    GAME, which imports this module, so the caller hands it in)."""
    if log.resigned and game is None:
        raise ValueError("a log with resignations is replayed with the game's rules")
    state = log.start()
    history: list[Action] = []
    entries = log.entries if upto is None else log.entries[:upto]
    seats, done = len(log.players), 0
    for number in range(len(entries) + 1):
        if number:
            entry = entries[number - 1]
            try:
                action = check(state, parse_any(entry.action), seat=entry.seat)
            except IllegalAction as error:
                refusal = Refusal(number, entry.seat, as_given(entry.action), str(error))
                return Replay(state, number - 1, refusal, history, done)
            state = perform(state, action)
            history.append(action)
        for gone in resignations.at(log.resigned, number):
            try:
                state = resignations.apply(game, state, gone, seats, log.resigned[:done])
            except ResignationError as error:
                return Replay(state, number, error, history, done)
            done += 1
    return Replay(state, len(entries), None, history, done)


def write(
    players: Sequence[str],
    actions: Sequence[tuple[int, Action]],
    *,
    seed: str | None = None,
    supply: Sequence[str] | None = None,
    commons: Sequence[str] | None = None,
    secrets: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A log document; actions are written in canonical notation."""
    setup_doc: dict[str, Any] = {"players": list(players)}
    if seed is not None:
        setup_doc["seed"] = seed
    if supply is not None:
        setup_doc["supply"] = list(supply)
    if commons is not None:
        setup_doc["commons"] = list(commons)
    if secrets is not None:
        setup_doc["secrets"] = dict(secrets)
    return {
        "format": FORMAT,
        "setup": setup_doc,
        "actions": [{"seat": seat, "action": format_action(a)} for seat, a in actions],
    }
