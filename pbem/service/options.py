"""A game's options (deadlines, reminders, timeouts, vacations, spectating): the
defaults, and refusals a person can act on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import BadRequest

DEFAULTS: dict[str, Any] = {
    "hours_per_turn": 72,  # None: no deadline
    "reminders": [24],  # hours before the deadline
    "timeout_policy": "bot_plays",  # or "replace": a bot takes the seat for good...
    "replace_after": 3,  # ...after this many timeouts
    "vacation_days": 14,  # per player and game
    "public": False,  # spectators may watch through the public link
    "any_sender": False,  # accept mailed moves from any address (else the seat's own)
}
POLICIES = ("bot_plays", "replace")


def checked(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options with defaults filled in; raises BadRequest naming a bad one."""
    given = dict(options or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BadRequest(
            f"unknown options: {', '.join(unknown)} (options are {', '.join(DEFAULTS)})"
        )
    result = {**DEFAULTS, **given}
    hours = result["hours_per_turn"]
    if hours is not None and (_not_number(hours) or not 1 <= hours <= 24 * 60):
        raise BadRequest("hours_per_turn is a number of hours from 1 to 1440, or null")
    reminders = result["reminders"]
    if not isinstance(reminders, list) or any(_not_number(r) or r <= 0 for r in reminders):
        raise BadRequest("reminders is a list of hours before the deadline, e.g. [24, 2]")
    result["reminders"] = sorted(set(reminders), reverse=True)
    if result["timeout_policy"] not in POLICIES:
        raise BadRequest(f"timeout_policy is one of {', '.join(POLICIES)}")
    for key, low in (("replace_after", 1), ("vacation_days", 0)):
        if _not_number(result[key]) or int(result[key]) != result[key] or result[key] < low:
            raise BadRequest(f"{key} is a whole number, at least {low}")
    for key in ("public", "any_sender"):
        if not isinstance(result[key], bool):
            raise BadRequest(f"{key} is true or false")
    return result


def _not_number(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | float)
