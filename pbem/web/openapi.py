"""The OpenAPI 3 document of the JSON API, served at /api/openapi.json."""

from __future__ import annotations

from typing import Any

from pbem import i18n
from pbem.games import GAMES
from pbem.games.base import Pages
from pbem.service.chat import SHOWN

from .openapi_table import ACCEPT, REMATCH, RESIGNED
from .schemas import (
    ACTION,
    CHAIN,
    CHAT_LINE,
    ERROR,
    LOG,
    OPTIONS,
    PRESS_RULES,
    SAID,
    SAY,
    STATE_COMMON,
)


def _pages(name: str) -> Pages:
    pages: Pages = GAMES[name].part("pages")
    return pages


def _state() -> dict[str, Any]:
    """The state document: what every game's has, then one game's own parts."""
    return {
        "type": "object",
        "description": "The state document for the caller (docs/design.md); hidden parts left out",
        "required": ["game", *STATE_COMMON],
        "properties": {
            "game": {"enum": list(GAMES)},
            **STATE_COMMON,
            "chat": {
                "type": "array",
                "items": CHAT_LINE,
                "description": "The players' chat: its latest lines (GET .../chat for more)",
            },
            "chat_earlier": {
                "type": ["integer", "null"],
                "description": "The `before` cursor of the lines before `chat` (null: none)",
            },
            "name": {"type": ["string", "null"], "description": "Its creator's name for it"},
            "press": PRESS_RULES,
        },
        "oneOf": [
            {
                "required": list(_pages(name).state_schema["required"]),
                "properties": {
                    "game": {"const": name},
                    **_pages(name).state_schema["properties"],
                },
            }
            for name in GAMES
        ],
    }


def _setup() -> dict[str, Any]:
    """Every game's setup parts; a part two games spell differently is either."""
    parts: dict[str, list[Any]] = {}
    for name in GAMES:
        for key, schema in _pages(name).setup_schema.items():
            if schema not in parts.setdefault(key, []):
                parts[key].append(schema)
    said = "; ".join(
        f"{plugin.title}: {', '.join(_pages(name).setup_schema)}" for name, plugin in GAMES.items()
    )
    return {
        "type": "object",
        "description": "The admin only (403 otherwise): a game whose setup is given is marked "
        f"`setup_chosen` in its log. {said}.",
        "additionalProperties": False,
        "properties": {
            key: schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
            for key, schemas in parts.items()
        },
    }


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    """A required JSON request body of this schema."""
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {
        400: "Malformed request",
        403: "No seat token, a wrong one, a private game, or a setup without the admin key",
        404: "No such game",
        409: "The game has moved on; `detail.since` says how",
        413: "The request body is over 1 MB",
        422: "The rules forbid the action; `error` names the rule",
        429: "Too many: an address was invited too often in 24 hours (`error` names it),"
        " this client created too many games, or too many chat lines: a few a minute,"
        " and in all no more than a game's chat and one writer may hold (then"
        " `detail.total` is that total: waiting does not help)",
    }
    return {str(s): _json(ERROR, text[s]) for s in statuses}


_GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}


def document() -> dict[str, Any]:
    game = [_GAME_ID]
    bots = list(dict.fromkeys(bot for plugin in GAMES.values() for bot in plugin.bots))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "pbem: board games by mail",
            "version": "1",
            "description": "Seat tokens (from a player's personal link) and the admin key "
            "are sent as `Authorization: Bearer <token>`.",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{}, {"bearer": []}],
        "paths": {
            "/api/games": {
                "post": {
                    "summary": "Create a game; each player is mailed their link",
                    "requestBody": _body(
                        {
                            "type": "object",
                            "required": ["players"],
                            "properties": {
                                "players": {
                                    "type": "array",
                                    "minItems": min(p.seats[0] for p in GAMES.values()),
                                    "maxItems": max(p.seats[1] for p in GAMES.values()),
                                    "items": {
                                        "type": "object",
                                        "required": ["name"],
                                        "properties": {
                                            "name": {
                                                "type": "string",
                                                "minLength": 1,
                                                "maxLength": 100,
                                                "description": "invisible, control and"
                                                " format characters are removed; refused"
                                                " when nothing visible is left, or when"
                                                " it looks like another seat's name"
                                                " (Unicode UTS #39 confusables)",
                                            },
                                            "email": {"type": "string", "format": "email"},
                                            "bot": {"enum": bots},
                                            "language": {
                                                "enum": list(i18n.LANGUAGES),
                                                "description": "of the player's mails;"
                                                " English unless given",
                                            },
                                        },
                                    },
                                },
                                "options": OPTIONS,
                                "setup": _setup(),
                                "game": {"enum": list(GAMES)},
                                "name": {
                                    "type": "string",
                                    "maxLength": 40,
                                    "description": "what the game is called in pages,"
                                    " lists, feeds and mails (default: its players'"
                                    " names); invisible characters are removed,"
                                    " refused when nothing visible is left",
                                },
                            },
                        }
                    ),
                    "responses": {
                        "201": _json(
                            {
                                "type": "object",
                                "required": ["id", "seq"],
                                "properties": {
                                    "id": {"type": "string"},
                                    "seq": {"type": "integer"},
                                    "seats": {
                                        "type": "array",
                                        "description": "Only with the admin key",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "seat": {"type": "integer"},
                                                "token": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            },
                            "Created",
                        ),
                        **_errors(400, 403, 413, 429),
                    },
                }
            },
            "/api/games/{game_id}": {
                "get": {
                    "summary": "The state document as the caller may see it",
                    "parameters": game,
                    "responses": {"200": _json(_state(), "The state"), **_errors(400, 403, 404)},
                }
            },
            "/api/games/{game_id}/legal": {
                "get": {
                    "summary": "The caller's legal actions, in canonical notation",
                    "parameters": game,
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "required": ["seat", "seq", "legal"],
                                "properties": {
                                    "seat": {"type": ["integer", "null"]},
                                    "seq": {"type": "integer"},
                                    "legal": {"type": "array", "items": {"type": "string"}},
                                },
                            },
                            "Legal actions (none unless it is the caller's turn)",
                        ),
                        **_errors(400, 403, 404),
                    },
                }
            },
            "/api/games/{game_id}/actions": {
                "post": {
                    "summary": "Play an action for the caller's seat",
                    "parameters": game,
                    "requestBody": _body(
                        {
                            "type": "object",
                            "required": ["action"],
                            "properties": {
                                "action": ACTION,
                                "expected_seq": {"type": "integer"},
                                "idempotency_key": {"type": "string"},
                            },
                        }
                    ),
                    "responses": {
                        "201": _json(
                            {
                                "type": "object",
                                "required": ["seq", "seat", "action", "narration", "head_hash"],
                                "properties": {
                                    "seq": {"type": "integer"},
                                    "seat": {"type": "integer"},
                                    "action": {"type": "string"},
                                    "narration": {"type": "string"},
                                    "head_hash": {"type": "string"},
                                },
                            },
                            "Stored (or, for a repeated idempotency key, stored before)",
                        ),
                        **_errors(400, 403, 404, 409, 413, 422),
                    },
                }
            },
            "/api/games/{game_id}/chat": {
                "get": {
                    "summary": "The players' chat a page at a time, as the caller reads it",
                    "parameters": [
                        *game,
                        {
                            "name": "before",
                            "in": "query",
                            "required": False,
                            "description": "Only lines before this seq (the `earlier` "
                            "cursor of the page after); without it, the latest lines",
                            "schema": {"type": "integer", "minimum": 1},
                        },
                    ],
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "required": ["lines", "earlier"],
                                "properties": {
                                    "lines": {"type": "array", "items": CHAT_LINE},
                                    "earlier": {"type": ["integer", "null"]},
                                },
                            },
                            f"At most {SHOWN} lines, oldest first, and the cursor of the"
                            " page before them (null: there are none)",
                        ),
                        **_errors(400, 403, 404),
                    },
                },
                "post": {
                    "summary": "Say a line in the players' chat, as the caller's seat: to "
                    "everyone, or (in a game of private press) to some seats only",
                    "parameters": game,
                    "requestBody": _body(SAY),
                    "responses": {
                        "201": _json(SAID, "Said (the line as stored)"),
                        **_errors(400, 403, 404, 413, 429),
                    },
                },
            },
            "/api/games/{game_id}/log": {
                "get": {
                    "summary": "The game log file, redacted for the caller until the end",
                    "parameters": game,
                    "responses": {"200": _json(LOG, "The log"), **_errors(400, 403, 404)},
                }
            },
            "/api/games/{game_id}/chain": {
                "get": {
                    "summary": "The hash chain as the caller may check it (pbem chain-check)",
                    "parameters": game,
                    "responses": {
                        "200": _json(CHAIN, "The chain"),
                        **_errors(400, 403, 404),
                    },
                }
            },
            **_table_paths(game),
            "/api/openapi.json": {
                "get": {
                    "summary": "This document",
                    "responses": {"200": {"description": "OpenAPI 3 document"}},
                }
            },
        },
    }


def _table_paths(game: list[dict[str, Any]]) -> dict[str, Any]:
    """Resigning and the rematch, each as the bearer's seat."""
    rematch, resigned, accept = REMATCH, RESIGNED, ACCEPT
    post = "post"
    return {
        "/api/games/{game_id}/resign": {
            post: {
                "summary": "Leave the running game (the game's rules say what follows)",
                "parameters": game,
                "responses": {"201": _json(resigned, "Resigned"), **_errors(400, 403, 404)},
            }
        },
        "/api/games/{game_id}/rematch": {
            post: {
                "summary": "Offer the table a rematch, once the game is over",
                "parameters": game,
                "responses": {"201": _json(rematch, "Offered"), **_errors(400, 403, 404)},
            }
        },
        "/api/games/{game_id}/rematch/answer": {
            post: {
                "summary": "Accept or decline the open rematch offer",
                "parameters": game,
                "requestBody": _body(accept),
                "responses": {"200": _json(rematch, "Answered"), **_errors(400, 403, 404)},
            }
        },
    }
