"""The JSON API's schema of Diplomacy's state document (beyond the parts every game
has) and of the setup an admin may give, for the OpenAPI document."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .position import MAPS, POWERS

_NAMES = {"type": "array", "items": {"type": "string"}}
_PER_POWER_NAMES = {
    "type": "object",
    "description": "Per power (AUSTRIA ... TURKEY)",
    "required": list(POWERS),
    "properties": {p: _NAMES for p in POWERS},
    "additionalProperties": False,
}
_DISLODGED = {
    "type": "object",
    "description": "Per power: each dislodged unit and where it may retreat",
    "required": list(POWERS),
    "properties": {p: {"type": "object", "additionalProperties": _NAMES} for p in POWERS},
    "additionalProperties": False,
}
_ADJUSTMENTS = {
    "type": "object",
    "description": "Per power: builds (> 0) or disbands (< 0) due this phase",
    "required": list(POWERS),
    "properties": {p: {"type": "integer"} for p in POWERS},
    "additionalProperties": False,
}
_BOARD = {
    "units": {**_PER_POWER_NAMES, "description": "Per power: its units, e.g. A PAR, F STP/SC"},
    "dislodged": _DISLODGED,
    "centres": {**_PER_POWER_NAMES, "description": "Per power: its supply centres"},
    "adjustments": _ADJUSTMENTS,
    "influence": {**_PER_POWER_NAMES, "description": "Per power: the provinces it holds"},
}
_PHASE = {"type": "string", "description": "The phase, e.g. S1901M; COMPLETED once over"}
_RECORD = {
    "type": "object",
    "required": ["phase", "phase_name", "orders", "results", "results_said"],
    "properties": {
        "phase": _PHASE,
        "phase_name": {"type": "string"},
        "orders": {
            "type": "object",
            "description": "Per power that gave orders: its orders (public once resolved)",
            "additionalProperties": _NAMES,
        },
        "results": {
            "type": "object",
            "description": "Per unit: its results (bounce, dislodged, cut, ...)",
            "additionalProperties": _NAMES,
        },
        "results_said": {
            "type": "object",
            "description": "Per unit: its results in words, in the caller's language",
            "additionalProperties": {"type": "string"},
        },
    },
}
_PLAYER = {
    "type": "object",
    "required": ["seat", "name", "power", "power_name"],
    "properties": {
        "seat": {"type": "integer", "minimum": 1, "maximum": len(POWERS)},
        "name": {"type": "string"},
        "power": {"enum": list(POWERS)},
        "power_name": {"type": "string"},
    },
}
STATE_SCHEMA: Mapping[str, Any] = {
    "required": [
        "map",
        "phase",
        "phase_name",
        "players",
        *_BOARD,
        "ordered",
        "history",
        "last",
        "drawn",
    ],
    "properties": {
        "map": {"enum": list(MAPS)},
        "phase": _PHASE,
        "phase_name": {"type": "string", "description": "The phase in words"},
        "players": {"type": "array", "items": _PLAYER},
        **_BOARD,
        "ordered": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "The seats that gave orders this phase (that they did, not what)",
        },
        "history": {"type": "array", "items": _RECORD, "description": "The resolved phases"},
        "last": {
            "type": ["object", "null"],
            "description": "The board the last resolution started from (its orders' board)",
            "required": ["phase", "phase_name", *_BOARD],
            "properties": {"phase": _PHASE, "phase_name": {"type": "string"}, **_BOARD},
        },
        "drawn": {"type": "boolean", "description": "Whether the game ended in a draw"},
        "my_orders": {
            "type": ["array", "null"],
            "items": {"type": "string"},
            "description": "The caller's seat: its orders given this phase (null: none yet)",
        },
        "my_draw": {"type": "boolean", "description": "The caller's seat: its draw vote"},
        "possible": {
            "type": "object",
            "description": "The caller's seat: per location, the orders it may give there",
            "additionalProperties": _NAMES,
        },
    },
}
SETUP_SCHEMA: Mapping[str, Any] = {
    "seed": {"type": ["string", "integer"], "maxLength": 200},
    "map": {"enum": list(MAPS)},
}
