"""The OpenAPI schemas of resigning and the rematch (pbem.web.table's API), for the
API's document (pbem.web.openapi)."""

from __future__ import annotations

from typing import Any

REMATCH: dict[str, Any] = {
    "type": "object",
    "required": ["offer"],
    "properties": {
        "offer": {"type": ["integer", "null"], "description": "The latest offer's seq"},
        "by": {"type": "integer", "description": "The seat that offered it"},
        "accepted": {"type": "array", "items": {"type": "integer"}},
        "closed": {"type": ["string", "null"], "enum": ["declined", "lapsed", None]},
        "new_game_id": {"type": ["string", "null"], "description": "The rematch, once begun"},
    },
}
RESIGNED: dict[str, Any] = {
    "type": "object",
    "required": ["seq", "seat", "replaced_by"],
    "properties": {
        "seq": {"type": "integer"},
        "seat": {"type": "integer"},
        "replaced_by": {
            "type": "string",
            "description": 'The bot that plays the seat now, or "": the game ended',
        },
    },
}
ACCEPT: dict[str, Any] = {
    "type": "object",
    "required": ["accept"],
    "properties": {"accept": {"type": "boolean"}},
}
