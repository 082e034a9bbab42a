"""The JSON schemas of the API's documents (for the OpenAPI document): an error, an
action, a chat line and a line to say, the log file, a game's options, and the hash
chain as a viewer may check it."""

from __future__ import annotations

from pbem.service.options import (
    DEFAULTS,
    MAX_HOURS_PER_TURN,
    MAX_REMINDERS,
    MAX_REPLACE_AFTER,
    MAX_VACATION_DAYS,
    POLICIES,
    PRESS,
)

ERROR = {
    "type": "object",
    "required": ["error", "detail"],
    "properties": {"error": {"type": "string"}, "detail": {}},
}
ACTION = {
    "description": "An action in the game's notation (e.g. `take 2`) or its JSON form",
    "oneOf": [{"type": "string"}, {"type": "object", "required": ["type"]}],
}
TO = {
    "type": ["array", "null"],
    "items": {"type": "integer"},
    "description": "A private line's addressees, the seats it was said to besides its "
    "sayer (null: everyone); only they and the sayer read it, spectators never",
}
CHAT_LINE = {
    "type": "object",
    "required": ["seq", "seat", "name", "text", "at", "to"],
    "properties": {
        "seq": {"type": "integer"},
        "seat": {"type": ["integer", "null"]},
        "name": {"type": "string"},
        "text": {"type": "string"},
        "at": {"type": "string"},
        "to": TO,
    },
}
SAY = {
    "type": "object",
    "required": ["text"],
    "properties": {
        "text": {
            "type": "string",
            "description": "One line, 1 to 500 characters after trimming; line breaks "
            "become spaces; control and invisible characters are refused (emoji "
            "sequences are kept), and so is a line of nothing but blanks",
        },
        "to": {
            **TO,
            "description": "The seats to say it to in private (null or left out: "
            "everyone). Only in a game whose press is private (403 otherwise, and in "
            "a game without press while it runs); each a seat of the game, not only "
            "the caller's own (400 otherwise)",
        },
    },
}
SAID = {
    "type": "object",
    "required": ["seq", "seat", "text", "to"],
    "properties": {
        "seq": {"type": "integer"},
        "seat": {"type": "integer"},
        "text": {"type": "string"},
        "to": TO,
    },
}
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
                    "to": {**TO, "type": "array", "description": "A private line only"},
                },
            },
        },
        "resigned": {
            "type": "array",
            "description": (
                "Only in a game where a seat resigned, in the order they did: the seat,"
                " `after` that many actions, and the bot that played the seat on"
                " (null: the resignation ended the game)"
            ),
            "items": {
                "type": "object",
                "required": ["seat", "after", "bot"],
                "additionalProperties": False,
                "properties": {
                    "seat": {"type": "integer", "minimum": 1},
                    "after": {"type": "integer", "minimum": 0},
                    "bot": {"type": ["string", "null"]},
                },
            },
        },
    },
}


HOURS = {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_HOURS_PER_TURN}
PRESS_RULES = {
    "enum": list(PRESS),
    "description": "The players' table talk: none while the game runs "
    '("gunboat"), public (every line to everyone, the default) or private '
    "(lines to some seats only as well)",
}
OPTIONS = {
    "type": "object",
    "description": "Every number is bounded: a value out of bounds is refused (400, the rule).",
    "additionalProperties": False,
    "properties": {
        "hours_per_turn": {
            "type": ["number", "null"],
            "minimum": 1,
            "maximum": MAX_HOURS_PER_TURN,
            "description": "Hours per turn; null: no deadline",
        },
        "reminders": {
            "type": "array",
            "maxItems": MAX_REMINDERS,
            "items": HOURS,
            "description": "Hours before the deadline, each below hours_per_turn",
        },
        "timeout_policy": {"enum": list(POLICIES)},
        "replace_after": {"type": "integer", "minimum": 1, "maximum": MAX_REPLACE_AFTER},
        "vacation_days": {"type": "integer", "minimum": 0, "maximum": MAX_VACATION_DAYS},
        "press": PRESS_RULES,
        **{key: {"type": "boolean"} for key, value in DEFAULTS.items() if isinstance(value, bool)},
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

# What every game's state document has (its own parts are in its Pages' state_schema).
STATE_COMMON = {
    "id": {"type": "string"},
    "seq": {"type": "integer"},
    "head_hash": {"type": "string"},
    "status": {"enum": ["playing", "finished"]},
    "round": {"type": "integer"},
    "turn": {"type": ["integer", "null"]},
    "waiting": {
        "type": "array",
        "items": {"type": "integer"},
        "description": "The seats the game waits on now (several when they move at once)",
    },
    "acting": {"type": "boolean", "description": "Whether the caller's seat may act now"},
    "players": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["seat", "name"],
            "properties": {"seat": {"type": "integer"}, "name": {"type": "string"}},
        },
    },
    "winners": {"type": ["array", "null"], "items": {"type": "integer"}},
}
