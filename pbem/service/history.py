"""Events told as sentences, for "what happened since", pages and mails."""

from __future__ import annotations

from typing import Any

from pbem.games import Game
from pbem.store.events import (
    ACTION_TAKEN,
    GAME_CREATED,
    SEAT_REPLACED,
    TURN_TIMED_OUT,
    UNDO_ANSWERED,
    UNDO_DONE,
    UNDO_REQUESTED,
    Envelope,
)


def describe(rules: Game, event: Envelope, before: Any, after: Any) -> str:
    """One sentence on `event`, given the rules states before and after it."""
    p = event.payload
    if event.type == GAME_CREATED:
        names = ", ".join(f"{q['name']} (seat {q['seat']})" for q in p["players"])
        return f"the game was created for {names}"
    if event.type == ACTION_TAKEN:
        action = rules.parse(p["action"])
        return f"seat {p['seat']} played {rules.narrate(before, action, after)}"
    if event.type == TURN_TIMED_OUT:
        action = rules.parse(p["action"])
        return (
            f"seat {p['seat']} ran out of time and a bot played for them: "
            f"{rules.narrate(before, action, after)}"
        )
    if event.type == SEAT_REPLACED:
        who = p.get("name", "a new player") if p["controller"] == "human" else "a bot"
        return f"seat {p['seat']} is now played by {who}"
    if event.type == UNDO_REQUESTED:
        return f"seat {p['seat']} asked to take back every move after seq {p['back_to']}"
    if event.type == UNDO_ANSWERED:
        return f"seat {p['seat']} {'agreed to' if p['agree'] else 'refused'} the undo"
    if event.type == UNDO_DONE:
        return f"every move after seq {p['back_to']} was taken back"
    return event.type


def seat_of(event: Envelope) -> int | None:
    return event.payload.get("seat")
