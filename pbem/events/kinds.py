"""The event types (docs/design.md contract): one frozen dataclass each, with the name it
is stored under (`TYPE`) and the version it is written at (`VERSION`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from pydantic import ConfigDict

from .strict import STRICT as _STRICT
from .table import (
    RematchAccepted,
    RematchClosed,
    RematchOffered,
    RematchStarted,
    SeatResigned,
)


@dataclass(frozen=True)
class Player:
    """A seat as GameCreated lists it: who holds it and the hash of its link."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    name: str
    token_sha256: str
    token_nonce: str
    email: str | None = None
    controller: str = "human"  # "human" or "bot:<name>"


@dataclass(frozen=True)
class GameCreated:
    """seq 1: the game, its seats, options and setup."""

    TYPE: ClassVar[str] = "GameCreated"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    game_id: str
    game: str  # the registry's name of the game
    content: str
    engine_version: str
    players: tuple[Player, ...]
    options: dict[str, Any]
    setup: dict[str, Any]  # as the log file's setup: seed, or the deal itself
    seed_sha256: str | None
    # whether someone gave the setup (so may know the hidden information); games
    # created before it was recorded were all drawn by the server
    setup_chosen: bool = False
    # the name its creator gave the game; None (and games created before names):
    # the game is called by its players' names
    name: str | None = None
    # the seats whose mails follow their person's own browser: the language it
    # speaks when they first open their link (none chosen for them at creation)
    languages_open: tuple[int, ...] = ()


@dataclass(frozen=True)
class ActionTaken:
    """A seat's move, its action in the game's canonical JSON form."""

    TYPE: ClassVar[str] = "ActionTaken"
    VERSION: ClassVar[int] = 2
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class TurnTimedOut:
    """The seat to move ran out of time; the timeout policy's move, folded like one."""

    TYPE: ClassVar[str] = "TurnTimedOut"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    action: dict[str, Any]
    policy: str


@dataclass(frozen=True)
class Resolved:
    """The game's own action once its moment came (every seat it waited on has
    moved): it reveals the sealed moves and resolves them, e.g. a Diplomacy phase's
    orders and their adjudication. In the game's canonical JSON form, folded like a
    seat's move; no seat made it."""

    TYPE: ClassVar[str] = "Resolved"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    action: dict[str, Any]


@dataclass(frozen=True)
class Holder:
    """The person a seat is handed to, with the hash of the new link."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    name: str
    email: str | None
    token_sha256: str
    token_nonce: str


@dataclass(frozen=True)
class SeatReplaced:
    """A seat handed to a bot (`controller` "bot:<name>", no holder) or to a person
    ("human", with the holder). The holder's fields sit beside seat and controller in
    the stored payload."""

    TYPE: ClassVar[str] = "SeatReplaced"
    VERSION: ClassVar[int] = 1
    # the nested field whose keys sit in the payload itself, and its class
    FLAT: ClassVar[tuple[str, type[Any]]] = ("holder", Holder)
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    controller: str
    holder: Holder | None = None


@dataclass(frozen=True)
class UndoRequested:
    """A seat asks to take back every move after `back_to`; the others must agree."""

    TYPE: ClassVar[str] = "UndoRequested"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    back_to: int


@dataclass(frozen=True)
class UndoAnswered:
    """A seat's answer to the undo request stored at seq `request`."""

    TYPE: ClassVar[str] = "UndoAnswered"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    request: int
    agree: bool


@dataclass(frozen=True)
class UndoDone:
    """Every move after `back_to` is taken back (folding skips them; nothing is deleted)."""

    TYPE: ClassVar[str] = "UndoDone"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    back_to: int
    asked_by: int
    agreed: tuple[int, ...]


@dataclass(frozen=True)
class UndoLapsed:
    """The undo request stored at seq `request` closed unanswered, and why."""

    TYPE: ClassVar[str] = "UndoLapsed"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    request: int
    reason: str


MAIL_CHOICES = ("every", "digest", "none")  # a mail each time, a daily digest, none
MAIL_TOPICS = ("turn", "round", "other")  # what a seat's person chooses mails for


@dataclass(frozen=True)
class MailPreferenceChanged:
    """How a seat's person wants their optional mails, per topic, each "every",
    "digest" or "none": `turn` (your turn, reminders), `round` (a round's scores,
    when no turn mail carries them) and `mail` (every other optional notice: undo
    requests, vacations, timeouts). v1 had `mail` alone, meaning it for all three."""

    TYPE: ClassVar[str] = "MailPreferenceChanged"
    VERSION: ClassVar[int] = 2
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    mail: str
    turn: str
    round: str

    def column(self) -> str:
        """The choice as the seats table's `mail` column keeps it (mail_column)."""
        return mail_column({"turn": self.turn, "round": self.round, "other": self.mail})


def mail_column(choices: dict[str, str]) -> str:
    """A per-topic choice as the seats table keeps it (in at most 16 characters):
    the one word when every topic has the same ("every", as before topics), else
    each topic's first letter in MAIL_TOPICS order: "e/n/d" is turn every, round
    none, other digest."""
    said = [choices[topic] for topic in MAIL_TOPICS]
    if len(set(said)) == 1:
        return said[0]
    return "/".join(choice[0] for choice in said)


def mail_choices(column: str) -> dict[str, str]:
    """The per-topic choice a `mail` column holds (one word: the same for every topic)."""
    if "/" not in column:
        return dict.fromkeys(MAIL_TOPICS, column)
    words = {choice[0]: choice for choice in MAIL_CHOICES}
    letters = (column.split("/") + ["e"] * len(MAIL_TOPICS))[: len(MAIL_TOPICS)]
    return {
        topic: words.get(letter, "every")
        for topic, letter in zip(MAIL_TOPICS, letters, strict=True)
    }


@dataclass(frozen=True)
class VacationStarted:
    """A seat's clock stops for `days` days, until the timestamp `until`."""

    TYPE: ClassVar[str] = "VacationStarted"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    days: int
    until: str


@dataclass(frozen=True)
class TableTalk:
    """A line a seat said at the table (the players' chat). Not a move: the rules
    never see it, and a move that expected the seq before it still stands. `to`: the
    seats a private line was said to (None, stored as no key at all: everyone)."""

    TYPE: ClassVar[str] = "TableTalk"
    VERSION: ClassVar[int] = 1
    NO_NULL: ClassVar[tuple[str, ...]] = ("to",)  # None is stored as no key
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    text: str
    to: tuple[int, ...] | None = None


@dataclass(frozen=True)
class SpectatorTalk:
    """A line a spectator (by the name they gave) said on a public game's watch page:
    the spectators' chat, apart from the players' (who read it once the game is over)."""

    TYPE: ClassVar[str] = "SpectatorTalk"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    name: str
    text: str


@dataclass(frozen=True)
class LanguageChosen:
    """The language a seat's person reads their mails in ("en", "de"): chosen on
    their seat's page, or by whoever created the game for them."""

    TYPE: ClassVar[str] = "LanguageChosen"
    VERSION: ClassVar[int] = 1
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT

    seat: int
    language: str


Event: TypeAlias = (
    GameCreated
    | ActionTaken
    | TurnTimedOut
    | Resolved
    | SeatReplaced
    | UndoRequested
    | UndoAnswered
    | UndoDone
    | UndoLapsed
    | MailPreferenceChanged
    | LanguageChosen
    | VacationStarted
    | TableTalk
    | SpectatorTalk
    | SeatResigned
    | RematchOffered
    | RematchAccepted
    | RematchClosed
    | RematchStarted
)
Move: TypeAlias = ActionTaken | TurnTimedOut  # the events the rules fold
EVENT_TYPES: tuple[type[Event], ...] = (
    GameCreated,
    ActionTaken,
    TurnTimedOut,
    Resolved,
    SeatReplaced,
    UndoRequested,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    MailPreferenceChanged,
    LanguageChosen,
    VacationStarted,
    TableTalk,
    SpectatorTalk,
    SeatResigned,
    RematchOffered,
    RematchAccepted,
    RematchClosed,
    RematchStarted,
)
BY_TYPE: dict[str, type[Event]] = {kind.TYPE: kind for kind in EVENT_TYPES}

# The type names, for the store's own queries and older callers.
GAME_CREATED = GameCreated.TYPE
ACTION_TAKEN = ActionTaken.TYPE
TURN_TIMED_OUT = TurnTimedOut.TYPE
RESOLVED = Resolved.TYPE
SEAT_REPLACED = SeatReplaced.TYPE
UNDO_REQUESTED = UndoRequested.TYPE
UNDO_ANSWERED = UndoAnswered.TYPE
UNDO_DONE = UndoDone.TYPE
UNDO_LAPSED = UndoLapsed.TYPE
MAIL_PREFERENCE = MailPreferenceChanged.TYPE
LANGUAGE_CHOSEN = LanguageChosen.TYPE
VACATION = VacationStarted.TYPE
TABLE_TALK = TableTalk.TYPE
SPECTATOR_TALK = SpectatorTalk.TYPE
SEAT_RESIGNED = SeatResigned.TYPE
REMATCH_TYPES = (RematchOffered, RematchAccepted, RematchClosed, RematchStarted)

# The version each type is written at today. Payloads carry it as "v".
VERSIONS = {kind.TYPE: kind.VERSION for kind in EVENT_TYPES}
MOVES = (ACTION_TAKEN, TURN_TIMED_OUT, RESOLVED)  # the events the rules fold
MOVE_TYPES = (ActionTaken, TurnTimedOut)  # a seat's moves among them, for isinstance
# chat lines: never folded, and no move goes stale for them
TALK: tuple[str, ...] = (TABLE_TALK, SPECTATOR_TALK)
TALK_TYPES = (TableTalk, SpectatorTalk)
