"""The JSON schemas of the API's records that no game changes: the log file (DESIGN.md
contract) and the hash chain as a viewer may check it."""

from __future__ import annotations

LOG = {
    "type": "object",
    "required": ["format", "setup", "actions"],
    "properties": {
        "format": {"type": "string"},
        "setup": {"type": "object"},
        "actions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["seat", "action"],
                "properties": {"seat": {"type": "integer"}, "action": {"type": "string"}},
            },
        },
        "chat": {
            "type": "array",
            "description": "The players' chat: each line after that many actions",
            "items": {
                "type": "object",
                "required": ["after", "seat", "text"],
                "properties": {
                    "after": {"type": "integer"},
                    "seat": {"type": "integer"},
                    "text": {"type": "string"},
                },
            },
        },
    },
}

HEX = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
CHAIN = {
    "type": "object",
    "required": ["id", "chain", "viewer", "head_seq", "head_hash", "events"],
    "properties": {
        "id": {"type": "string"},
        "chain": {"type": "integer", "enum": [1, 2], "description": "The chain's rule"},
        "viewer": {"type": ["integer", "null"], "description": "The seat, null: a spectator"},
        "head_seq": {"type": "integer"},
        "head_hash": HEX,
        "events": {
            "type": "array",
            "description": "Every event: its seq, its commitment (version 2), and for "
            "each event the caller may see whole its fields and salt (version 2) or "
            "hash (version 1)",
            "items": {
                "type": "object",
                "required": ["seq"],
                "properties": {
                    "seq": {"type": "integer"},
                    "commitment": HEX,
                    "type": {"type": "string"},
                    "payload": {"type": "object"},
                    "actor": {"type": "string"},
                    "created_at": {"type": "string"},
                    "salt": {"type": "string"},
                    "hash": HEX,
                },
            },
        },
    },
}
