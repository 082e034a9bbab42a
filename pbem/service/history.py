"""Events told as sentences, for "what happened since", pages and mails; and which
events a viewer may be told at all (a player's mail preference is their own)."""

from __future__ import annotations

from collections.abc import Callable
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
    TurnTimedOut,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    VacationStarted,
)

Sentence = Callable[[Game, dict[str, Any], Any, Any], str]
# told only to the seat the event is about
PRIVATE: tuple[type[Event], ...] = (MailPreferenceChanged,)
_PREFERENCES = {
    "every": "a mail every turn",
    "digest": "one digest a day",
    "none": "no turn mails",
}


def _created(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    names = ", ".join(f"{q['name']} (seat {q['seat']})" for q in p["players"])
    return f"the game was created for {names}"


def _action(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    action = rules.parse(p["action"])
    return f"seat {p['seat']} played {rules.narrate(before, action, after)}"


def _timed_out(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    action = rules.parse(p["action"])
    return (
        f"seat {p['seat']} ran out of time and a bot played for them: "
        f"{rules.narrate(before, action, after)}"
    )


def _replaced(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    who = p.get("name", "a new player") if p["controller"] == "human" else "a bot"
    return f"seat {p['seat']} is now played by {who}"


def _undo_requested(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    return f"seat {p['seat']} asked to take back every move after seq {p['back_to']}"


def _undo_answered(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    return f"seat {p['seat']} {'agreed to' if p['agree'] else 'refused'} the undo"


def _undo_done(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    return f"every move after seq {p['back_to']} was taken back"


def _undo_lapsed(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    reason = f": {p['reason']}" if p.get("reason") else ""
    return f"seat {p['seat']}'s undo request was closed{reason}"


def _mail_preference(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    chosen = _PREFERENCES.get(p["mail"], p["mail"])
    return f"seat {p['seat']} chose {chosen}"


def _vacation(rules: Game, p: dict[str, Any], before: Any, after: Any) -> str:
    until = str(p["until"])[:16].replace("T", " ")
    days = p["days"]
    return (
        f"seat {p['seat']} is on vacation until {until} UTC "
        f"({days} day{'' if days == 1 else 's'}; their clock stops)"
    )


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
}


def describe(rules: Game, event: Envelope, before: Any, after: Any) -> str:
    """One sentence on `event`, given the rules states before and after it."""
    typed = _typed(event)
    sentence = None if typed is None else SENTENCES.get(type(typed))
    if sentence is None:
        return "something happened that this server cannot describe"
    return sentence(rules, event.payload, before, after)


def visible(event: Envelope, viewer: int | None) -> bool:
    """Whether `viewer` (a seat, or None for a spectator) may be told of `event`."""
    private = isinstance(_typed(event), PRIVATE)
    return not private or (viewer is not None and seat_of(event) == viewer)


def _typed(event: Envelope) -> Event | None:
    """The typed event, or None for one this server cannot read (told as such)."""
    try:
        return event.event
    except EventError:
        return None


def seat_of(event: Envelope) -> int | None:
    return event.payload.get("seat")
