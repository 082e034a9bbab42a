"""Events told as sentences, for "what happened since", pages and mails; and which
events a viewer may be told at all (a player's mail preference is their own)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.games import Game
from pbem.store.events import (
    ActionTaken,
    Envelope,
    Event,
    EventError,
    GameCreated,
    MailPreferenceChanged,
    SeatReplaced,
    SpectatorTalk,
    TableTalk,
    TurnTimedOut,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    VacationStarted,
)


@dataclass(frozen=True)
class Who:
    """How a sentence names a seat: its player's name, "you" for the seat it is told
    to, and "seat N" only where no name is known. A sentence starts with `subject`."""

    names: Mapping[int, str] = field(default_factory=dict)
    you: int | None = None

    @classmethod
    def of(cls, seats: Iterable[Any], you: int | None = None) -> Who:
        """From the game's seats (anything with `seat` and `name`)."""
        return cls({s.seat: s.name for s in seats if s.name}, you)

    def __call__(self, seat: int) -> str:
        if seat == self.you:
            return "you"
        return self.names.get(seat) or f"seat {seat}"

    def subject(self, seat: int) -> str:
        """The seat at the start of a sentence: "You", or the name as its player
        wrote it (never capitalised for them)."""
        return "You" if seat == self.you else self(seat)

    def whose(self, seat: int) -> str:
        """ "Your", "Ann's" at the start of a sentence."""
        return "Your" if seat == self.you else self(seat) + "'s"

    def be(self, seat: int) -> str:
        return "are" if seat == self.you else "is"

    def their(self, seat: int) -> str:
        return "your" if seat == self.you else "their"

    def them(self, seat: int) -> str:
        return "you" if seat == self.you else "them"

    def after(self, event: Envelope) -> Who:
        """The names once `event` has happened: a game's creation names its seats, a
        seat handed to a person takes their name (a bot keeps the seat's name)."""
        typed = _typed(event)
        if isinstance(typed, GameCreated):
            return Who({p.seat: p.name for p in typed.players}, self.you)
        if isinstance(typed, SeatReplaced) and typed.holder is not None:
            return Who({**self.names, typed.seat: typed.holder.name}, self.you)
        return self

    def everyone(self, seats: Iterable[int]) -> str:
        """ "Ann, Ben and you"."""
        said = [self(s) for s in seats]
        return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


Sentence = Callable[[Game, dict[str, Any], Any, Any, Who], str]
# told only to the seat the event is about
PRIVATE: tuple[type[Event], ...] = (MailPreferenceChanged,)
# the spectators' chat is never in the game's log: its own panel shows it
OFF_THE_LOG: tuple[type[Event], ...] = (SpectatorTalk,)
_PREFERENCES = {
    "every": "a mail every turn",
    "digest": "one digest a day",
    "none": "no turn mails",
}


def _created(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    named = Who({q["seat"]: q["name"] for q in p["players"]}, who.you)
    return f"the game was created for {named.everyone(q['seat'] for q in p['players'])}"


def _action(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    action = rules.parse(p["action"])
    return f"{who.subject(p['seat'])} played {rules.narrate(before, action, after)}"


def _timed_out(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    action = rules.parse(p["action"])
    seat = p["seat"]
    return (
        f"{who.subject(seat)} ran out of time and a bot played for {who.them(seat)}: "
        f"{rules.narrate(before, action, after)}"
    )


def _replaced(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    new = p.get("name", "a new player") if p["controller"] == "human" else "a bot"
    return f"{who.whose(p['seat'])} seat is now played by {new}"


def _undo_requested(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return f"{who.subject(p['seat'])} asked to take back every move after seq {p['back_to']}"


def _undo_answered(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return f"{who.subject(p['seat'])} {'agreed to' if p['agree'] else 'refused'} the undo"


def _undo_done(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return f"every move after seq {p['back_to']} was taken back"


def _undo_lapsed(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    reason = f": {p['reason']}" if p.get("reason") else ""
    return f"{who.whose(p['seat'])} undo request was closed{reason}"


def _mail_preference(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    chosen = _PREFERENCES.get(p["mail"], p["mail"])
    return f"{who.subject(p['seat'])} chose {chosen}"


def _vacation(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    until = str(p["until"])[:16].replace("T", " ")
    days, seat = p["days"], p["seat"]
    return (
        f"{who.subject(seat)} {who.be(seat)} on vacation until {until} UTC "
        f"({days} day{'' if days == 1 else 's'}; {who.their(seat)} clock stops)"
    )


def _table_talk(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return f"{who.subject(p['seat'])} said: {p['text']}"


def _spectator_talk(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return f"{p['name']} (watching) said: {p['text']}"


# Every event type has its sentence (a test holds this to EVENT_TYPES).
SENTENCES: dict[type[Event], Sentence] = {
    GameCreated: _created,
    ActionTaken: _action,
    TurnTimedOut: _timed_out,
    SeatReplaced: _replaced,
    UndoRequested: _undo_requested,
    UndoAnswered: _undo_answered,
    UndoDone: _undo_done,
    UndoLapsed: _undo_lapsed,
    MailPreferenceChanged: _mail_preference,
    VacationStarted: _vacation,
    TableTalk: _table_talk,
    SpectatorTalk: _spectator_talk,
}


def describe(rules: Game, event: Envelope, before: Any, after: Any, who: Who | None = None) -> str:
    """One sentence on `event`, given the rules states before and after it; `who`
    names the seats (without it, "seat N")."""
    typed = _typed(event)
    sentence = None if typed is None else SENTENCES.get(type(typed))
    if sentence is None:
        return "something happened that this server cannot describe"
    return sentence(rules, event.payload, before, after, who or Who())


def visible(event: Envelope, viewer: int | None) -> bool:
    """Whether `viewer` (a seat, or None for a spectator) may be told of `event`."""
    typed = _typed(event)
    if isinstance(typed, OFF_THE_LOG):
        return False
    private = isinstance(typed, PRIVATE)
    return not private or (viewer is not None and seat_of(event) == viewer)


def _typed(event: Envelope) -> Event | None:
    """The typed event, or None for one this server cannot read (told as such)."""
    try:
        return event.event
    except EventError:
        return None


def seat_of(event: Envelope) -> int | None:
    return event.payload.get("seat")
