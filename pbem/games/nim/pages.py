"""Nim on the web pages (the `Pages` of pbem.games.base): the pile as a row of tokens
with its count in words, the standings, a plain list of takes for the turn, and the
pile size on the New game form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from babel.numbers import format_decimal

from pbem import i18n
from pbem.i18n import gettext as _

from ..base import SetupError
from .rules import MAX_PILE, MAX_SEED, MAX_TAKE

marker = 'class="nim-pile"'
partials = {
    "board": "board.html",
    "beside": "pile.html",
    "turn": "turn.html",
    "setup": "setup.html",
    "rules": "rules.html",
}
script: str | None = None  # the plain form is the whole turn
stylesheet: str | None = None
inline_styles: Sequence[str] = ()  # no drawings
DRAWN = 40  # tokens drawn one by one; a bigger pile is drawn as this many and a number


def board(
    doc: Mapping[str, Any],
    seat: int | None,
    *,
    your_turn: bool = False,
    changed: Any = None,
) -> dict[str, Any]:
    """The pile (how many tokens, and how many the last move took on the history
    page) and each player by seat (the page lists them in the plugin's standings
    order)."""
    pile = doc["pile"]
    names = {p["seat"]: p["name"] for p in doc["players"]}
    return {
        "pile": pile,
        "tokens": min(pile, DRAWN),
        "taken": changed or 0,
        "by_seat": {
            s: {
                "seat": s,
                "name": name,
                "you": s == seat,
                "to_move": doc["turn"] == s,
                "winner": s in (doc["winners"] or []),
            }
            for s, name in names.items()
        },
    }


def turn(doc: Mapping[str, Any], seat: int, options: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One group of takes; no script."""
    return {"groups": [{"title": _("Take tokens"), "options": list(options)}], "script": None}


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> int:
    """How many tokens the event took from the pile."""
    return max(int(before["pile"]) - int(after["pile"]), 0)


def outlined(before: Mapping[str, Any], after: Mapping[str, Any], seat: int | None) -> list[str]:
    """Nothing to outline: the pile is one heap, and the log says what was taken."""
    return []


def setup(form: Mapping[str, str]) -> dict[str, Any]:
    """The pile from the form's `nim_pile` field; empty for the rules' default."""
    typed = (form.get("nim_pile") or "").strip()
    if not typed:
        return {}
    if not typed.isascii() or not typed.isdigit() or len(typed) > 6:
        raise SetupError(_("the pile is a whole number from 1 to %(most)s", most=MAX_PILE))
    return {"pile": int(typed)}


def rules() -> dict[str, Any]:
    """The rules page's numbers, from the rules themselves (the biggest pile also as
    the reader's language writes it: "10,000", "10.000")."""
    return {
        "most": MAX_TAKE,
        "max_pile": MAX_PILE,
        "max_pile_said": format_decimal(MAX_PILE, locale=i18n.locale()),
    }


# The JSON API's schema of nim's state document and setup.
state_schema: Mapping[str, Any] = {
    "required": ["pile"],
    "properties": {"pile": {"type": "integer", "minimum": 0, "maximum": MAX_PILE}},
}
setup_schema: Mapping[str, Any] = {
    "seed": {"type": "string", "maxLength": MAX_SEED},
    "pile": {"type": "integer", "minimum": 1, "maximum": MAX_PILE},
}
