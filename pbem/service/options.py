"""A game's options (deadlines, reminders, timeouts, vacations, spectating, press):
the defaults, and refusals a person can act on."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pbem.i18n import gettext as _

from .errors import BadRequest

DEFAULTS: dict[str, Any] = {
    "hours_per_turn": 72,  # None: no deadline
    "reminders": [24],  # hours before the deadline
    "timeout_policy": "bot_plays",  # or "replace": a bot takes the seat for good...
    "replace_after": 3,  # ...after this many timeouts
    "vacation_days": 14,  # per player and game
    "public": False,  # spectators may watch through the public link
    "spectator_talk": True,  # ...and talk among themselves on its watch page
    "any_sender": False,  # accept mailed moves from any address (else the seat's own)
    "authenticated_mail": False,  # take only mail our receiving server authenticated
    "press": "public",  # the players' table talk: see PRESS
}
POLICIES = ("bot_plays", "replace")
# The press rules: "none", no table talk while the game runs (Diplomacy's gunboat);
# "public", every line to everyone; "private", lines to some seats only as well.
PRESS = ("none", "public", "private")


MAX_HOURS_PER_TURN = 24 * 60  # hours: a turn lasts at most 60 days
MAX_REMINDERS = 5  # per turn
MAX_VACATION_DAYS = 60  # per player and game
MAX_REPLACE_AFTER = 20  # timeouts


def checked(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options with defaults filled in; raises BadRequest naming a bad one. Every
    number is bounded, so no deadline, reminder or vacation computed from them can
    overflow a date."""
    if options is not None and not isinstance(options, Mapping):
        raise BadRequest(_("options are an object of names and values"))
    given = dict(options or {})
    unknown = sorted(set(given) - set(DEFAULTS), key=str)
    if unknown:
        raise BadRequest(
            _(
                "unknown options: %(unknown)s (options are %(known)s)",
                unknown=", ".join(map(str, unknown)),
                known=", ".join(DEFAULTS),
            )
        )
    result = {**DEFAULTS, **given}
    hours = result["hours_per_turn"]
    if hours is not None and (_not_number(hours) or not 1 <= hours <= MAX_HOURS_PER_TURN):
        raise BadRequest(
            _(
                "hours_per_turn is a number of hours from 1 to %(most)s, or null",
                most=MAX_HOURS_PER_TURN,
            )
        )
    result["reminders"] = _checked_reminders(result["reminders"], hours, "reminders" in given)
    if result["timeout_policy"] not in POLICIES:
        raise BadRequest(_("timeout_policy is one of %(policies)s", policies=", ".join(POLICIES)))
    for key, low, high in (
        ("replace_after", 1, MAX_REPLACE_AFTER),
        ("vacation_days", 0, MAX_VACATION_DAYS),
    ):
        value = result[key]
        if _not_number(value) or int(value) != value or not low <= value <= high:
            raise BadRequest(
                _("%(key)s is a whole number from %(low)s to %(high)s", key=key, low=low, high=high)
            )
        result[key] = int(value)
    for key in ("public", "spectator_talk", "any_sender", "authenticated_mail"):
        if not isinstance(result[key], bool):
            raise BadRequest(_("%(key)s is true or false", key=key))
    if not isinstance(result["press"], str) or result["press"] not in PRESS:
        raise BadRequest(_("press is one of %(choices)s", choices=", ".join(PRESS)))
    return result


def press(options: Mapping[str, Any]) -> str:
    """A game's press rules (its stored options): one of PRESS; "public" for a game
    created before the option (everyone read every line)."""
    chosen = options.get("press", "public")
    return chosen if chosen in PRESS else "public"


def spectators_talk(options: Mapping[str, Any]) -> bool:
    """Whether the spectators of a game (its stored options) may talk: a public game's,
    unless its creator switched it off (a game created before the option talks)."""
    return bool(options.get("public")) and options.get("spectator_talk", True) is not False


def checked_reminder(hours: Any) -> float:
    """One reminder's hours before the deadline, as stored; ValueError when it is not
    a number of hours within the bounds (a game stored before they existed)."""
    if (
        not isinstance(hours, int | float)
        or _not_number(hours)
        or not 0 < hours <= MAX_HOURS_PER_TURN
    ):
        raise ValueError(f"a reminder of {hours!r} hours is out of bounds")
    return hours


def _checked_reminders(reminders: Any, hours: Any, given: bool) -> list[float]:
    rule = _(
        "reminders is a list of at most %(most)s numbers of hours before the deadline,"
        " each above 0 and below hours_per_turn, e.g. [24, 2]",
        most=MAX_REMINDERS,
    )
    if not isinstance(reminders, list) or len(reminders) > MAX_REMINDERS:
        raise BadRequest(rule)
    limit = MAX_HOURS_PER_TURN if hours is None else hours
    if not given:  # the default reminders that fit a short turn
        reminders = [r for r in reminders if r < limit]
    for value in reminders:
        if _not_number(value) or not 0 < value <= MAX_HOURS_PER_TURN:
            raise BadRequest(rule)
        if hours is not None and value >= hours:
            raise BadRequest(
                _(
                    "%(rule)s; a reminder of %(value)s hours is not below %(hours)s",
                    rule=rule,
                    value=format(value, "g"),
                    hours=format(hours, "g"),
                )
            )
    return sorted(set(reminders), reverse=True)


def _not_number(value: Any) -> bool:
    """Not a finite number (booleans, infinities and NaN are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return isinstance(value, float) and not math.isfinite(value)
