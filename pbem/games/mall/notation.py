"""The action notation of docs/games/mall.md section 5: `parse` reads text (any case, any white
space), `format_action` writes the canonical text, and the JSON form both ways."""

from __future__ import annotations

import json
import re
from typing import Any

from pbem.i18n import gettext as _

from .actions import Action, Build, BuildAttraction, Dock, Money, NotationError, Pass

# The notation's forms (the same in every language; the words around them are not).
FORMS = (
    "money L | money R | build L2 at 1,3 | build L2 at 1,3 for M1.2 | "
    "attraction haunted-hotel at -1,2 [mirror] | dock GD2 at 2 | pass"
)

# ASCII only (re.A): Python's \d and int() also read other scripts' digits, and
# "build L1 at ٠,٢" must not play 0,2. Numbers are bounded: a coordinate has at most
# COORDINATE digits, a tile, slot or spot number at most NUMBER.
COORDINATE = 3
NUMBER = 3
MAX_TEXT = 300  # the longest action text read at all
_FLAGS = re.I | re.A
_NUM = rf"(-?\s*[0-9]{{1,{COORDINATE}}})"
_NO = rf"[0-9]{{1,{NUMBER}}}"
_PATTERNS = {
    "money": re.compile(r"\s*money\s*([a-z])\s*", _FLAGS),
    "build": re.compile(
        rf"\s*build\s*([a-z]\s*{_NO})\s*at\s*{_NUM}\s*,\s*{_NUM}"
        rf"(?:\s*for\s*([a-z]{{1,4}}\s*{_NO}\s*\.\s*{_NO}))?\s*",
        _FLAGS,
    ),
    "attraction": re.compile(
        rf"\s*attraction\s*([a-z][a-z0-9-]{{0,40}}?)\s*at\s*{_NUM}\s*,\s*{_NUM}\s*(mirror)?\s*",
        _FLAGS,
    ),
    "dock": re.compile(rf"\s*dock\s*([a-z]{{1,4}}\s*{_NO})\s*at\s*{_NUM}\s*", _FLAGS),
    "pass": re.compile(r"\s*pass\s*", _FLAGS),
}
# Each form's first word starts with a letter of its own (a test reads every form):
# that letter picks the one pattern worth trying.
_BY_LETTER = {kind[0]: kind for kind in _PATTERNS}
_ID = re.compile(rf"([A-Z]{{1,4}})({_NO})", re.A)
_SLOT = re.compile(rf"[A-Z]{_NO}", re.A)
_CUSTOMER = re.compile(rf"[A-Z]{{1,4}}{_NO}\.{_NO}", re.A)
_ATTRACTION = re.compile(r"[a-z][a-z0-9-]{0,40}", re.A)
_PADDED = {"Y", "B", "G", "R"}  # element tiles are numbered 01..24
_SPACE = re.compile(r"\s+", re.A)


def _squash(text: str) -> str:
    return _SPACE.sub("", text).upper()


def _tile_id(text: str) -> str:
    """Canonical tile id: upper case, element numbers in two digits (r1 -> R01)."""
    text = _squash(text)
    match = _ID.fullmatch(text)
    if not match:
        return text
    letters, number = match[1], int(match[2])
    return f"{letters}{number:02d}" if letters in _PADDED else f"{letters}{number}"


def _customer_id(text: str) -> str:
    tile, _, spot = _squash(text).partition(".")
    return f"{_tile_id(tile)}.{int(spot)}"


def _slot(text: str) -> str:
    text = _squash(text)
    return f"{text[0]}{int(text[1:])}"


def _int(text: str) -> int:
    return int(_squash(text))


def parse(text: str) -> Action:
    """The action a notation string names; raises NotationError if it names none."""
    if not isinstance(text, str):
        raise NotationError(f"an action is text or a JSON object, not {type(text).__name__}", "5")
    stripped = text.strip()
    if len(stripped) > MAX_TEXT:
        raise NotationError(_unreadable(stripped[:40] + "..."), "5")
    if stripped.startswith("{"):
        try:
            return from_json(json.loads(stripped))
        except json.JSONDecodeError as error:
            raise NotationError(f"cannot read the JSON action: {error.msg}", "5") from None
        except RecursionError:
            raise NotationError("cannot read the JSON action: it nests too deep", "5") from None
    kind = _BY_LETTER.get(stripped[:1].lower())
    match = _PATTERNS[kind].fullmatch(text) if kind else None
    if kind and match:
        return _from_match(kind, match)
    shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
    raise NotationError(_unreadable(shown), "5")


def _unreadable(shown: str) -> str:
    return _('cannot read "%(shown)s": write one of: %(forms)s', shown=shown, forms=FORMS)


def _from_match(kind: str, m: re.Match[str]) -> Action:
    if kind == "money":
        return Money(m[1].upper())
    if kind == "build":
        customer = _customer_id(m[4]) if m[4] else None
        return Build(_slot(m[1]), _int(m[2]), _int(m[3]), customer)
    if kind == "attraction":
        return BuildAttraction(m[1].lower(), _int(m[2]), _int(m[3]), bool(m[4]))
    if kind == "dock":
        return Dock(_tile_id(m[1]), _int(m[2]))
    return Pass()


def format_action(action: Action) -> str:
    """The notation of an action; canonical when the action is (see rules.check)."""
    if isinstance(action, Money):
        return f"money {action.column}"
    if isinstance(action, Build):
        text = f"build {action.slot} at {action.x},{action.y}"
        return f"{text} for {action.customer}" if action.customer else text
    if isinstance(action, BuildAttraction):
        text = f"attraction {action.id} at {action.x},{action.y}"
        return f"{text} mirror" if action.mirror else text
    if isinstance(action, Dock):
        return f"dock {action.id} at {action.x}"
    return "pass"


def to_json(action: Action) -> dict[str, Any]:
    """The JSON form; `customer` and `mirror` appear exactly when the text has them."""
    if isinstance(action, Money):
        return {"type": "money", "column": action.column}
    if isinstance(action, Build):
        doc: dict[str, Any] = {"type": "build", "slot": action.slot, "x": action.x, "y": action.y}
        if action.customer:
            doc["customer"] = action.customer
        return doc
    if isinstance(action, BuildAttraction):
        doc = {"type": "attraction", "id": action.id, "x": action.x, "y": action.y}
        if action.mirror:
            doc["mirror"] = True
        return doc
    if isinstance(action, Dock):
        return {"type": "dock", "id": action.id, "x": action.x}
    return {"type": "pass"}


_FIELDS = {
    "money": ({"column"}, set()),
    "build": ({"slot", "x", "y"}, {"customer"}),
    "attraction": ({"id", "x", "y"}, {"mirror"}),
    "dock": ({"id", "x"}, set()),
    "pass": (set(), set()),
}


def from_json(doc: Any) -> Action:
    """The action a JSON form names; raises NotationError if it names none."""
    if not isinstance(doc, dict):
        raise NotationError('a JSON action is an object with a "type"', "5")
    kind = doc.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        shown = repr(kind) if isinstance(kind, str) and len(kind) <= 40 else "given"
        raise NotationError(f"unknown action type {shown}: types are {', '.join(_FIELDS)}", "5")
    if not all(isinstance(key, str) for key in doc):
        raise NotationError("a JSON action's fields are named by text", "5")
    required, optional = _FIELDS[kind]
    missing = sorted(required - doc.keys())
    if missing:
        raise NotationError(f"a {kind} action needs {', '.join(missing)}", "5")
    unknown = sorted(doc.keys() - required - optional - {"type"})
    if unknown:
        raise NotationError(f"a {kind} action has no field {', '.join(unknown)}", "5")
    if kind == "money":
        column = _text(doc, "column").upper()
        if not re.fullmatch("[A-Z]", column, re.A):
            raise NotationError("column is L or R", "5")
        return Money(column)
    if kind == "build":
        customer = doc.get("customer")
        if customer is not None:
            customer = _customer_id(_shaped(doc, "customer", _CUSTOMER, "a customer such as M1.2"))
        return Build(_slot_text(doc), _number(doc, "x"), _number(doc, "y"), customer)
    if kind == "attraction":
        mirror = doc.get("mirror", False)
        if not isinstance(mirror, bool):
            raise NotationError("mirror is true or false", "5")
        name = _text(doc, "id").lower()
        if not _ATTRACTION.fullmatch(name):
            raise NotationError("id is an attraction such as haunted-hotel", "5")
        return BuildAttraction(name, _number(doc, "x"), _number(doc, "y"), mirror)
    if kind == "dock":
        return Dock(_tile_id(_shaped(doc, "id", _ID, "a bay such as GD2")), _number(doc, "x"))
    return Pass()


def _text(doc: dict[str, Any], key: str) -> str:
    value = doc[key]
    if not isinstance(value, str) or not value.strip():
        raise NotationError(f"{key} must be a non-empty string", "5")
    return value.strip()


def _shaped(doc: dict[str, Any], key: str, shape: re.Pattern[str], example: str) -> str:
    """The field `key` squashed, when it has the shape; NotationError otherwise."""
    value = _squash(_text(doc, key))
    if not shape.fullmatch(value):
        raise NotationError(f"{key} is {example}", "5")
    return value


def _slot_text(doc: dict[str, Any]) -> str:
    return _slot(_shaped(doc, "slot", _SLOT, "a slot such as L2"))


def _number(doc: dict[str, Any], key: str) -> int:
    value = doc[key]
    bound = 10**COORDINATE
    if isinstance(value, bool) or not isinstance(value, int) or not -bound < value < bound:
        raise NotationError(f"{key} must be an integer from {1 - bound} to {bound - 1}", "5")
    return value


def parse_any(value: str | dict[str, Any]) -> Action:
    """An action from its notation or its JSON form (a dict, or JSON text)."""
    return from_json(value) if isinstance(value, dict) else parse(value)


def as_given(value: Any) -> str:
    """An action as a person gave it, for messages: text as is, JSON compactly."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
