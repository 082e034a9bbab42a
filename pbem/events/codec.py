"""Between a stored payload and its typed event: `decode` and `encode`, and the
upcasters that bring a payload of an older version to the current one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pbem.games import get as get_game

from .jsontext import json_text
from .kinds import ACTION_TAKEN, BY_TYPE, MAIL_PREFERENCE, VERSIONS, Event


class EventError(ValueError):
    """A stored event this server cannot read: an unknown type, a version it does not
    know, or a payload that is not what its type writes. The message says which."""


def canonical_json(value: Any) -> str:
    """The JSON an event's hash is taken of (docs/design.md contract, never to change): the
    standard library's compact text with sorted keys and UTF-8 kept as it is,
    `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`,
    written by orjson where that is the same text (see `json_text`)."""
    return json_text(value, sort_keys=True)


_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def _adapter(kind: type[Event]) -> TypeAdapter[Any]:
    """The validator and serialiser of an event type, built on first use."""
    adapter = _ADAPTERS.get(kind.TYPE)
    if adapter is None:
        adapter = _ADAPTERS[kind.TYPE] = TypeAdapter(kind)
    return adapter


def decode(type: str, payload: dict[str, Any]) -> Event:
    """The event a payload of the current version (with or without its "v") stores.
    Raises EventError for an unknown type, another version or a malformed payload."""
    kind = BY_TYPE.get(type) if isinstance(type, str) else None
    if kind is None:
        raise EventError(f"unknown event type {type!r:.60}")
    if not isinstance(payload, dict):
        raise EventError(f"a {type} payload is a JSON object, not {payload!r:.60}")
    fields = dict(payload)
    version = fields.pop("v", kind.VERSION)
    if version != kind.VERSION or isinstance(version, bool):
        raise EventError(
            f"{type} v{version!r:.20} is not the current v{kind.VERSION}: upcast it first"
        )
    for name in getattr(kind, "NO_NULL", ()):  # left out when None: a null never encodes back
        if name in fields and fields[name] is None:
            raise EventError(f"a {type} payload leaves {name!r} out rather than null")
    flat = getattr(kind, "FLAT", None)
    if flat is not None:
        name, nested = flat
        if name in fields:
            raise EventError(f"a {type} payload has no key {name!r}")
        keys = [key for key in nested.__dataclass_fields__ if key in fields]
        if keys:
            fields[name] = {key: fields.pop(key) for key in keys}
    try:  # data JSON can hold: no NaN nor infinity (they would not come back)
        text = json.dumps(fields, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise EventError(f"a {type} payload is not JSON data: {error}") from None
    try:
        event: Event = _adapter(kind).validate_json(text)
    except ValidationError as error:
        said = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'payload'}: {e['msg']}" for e in error.errors()
        )
        raise EventError(f"a {type} v{kind.VERSION} payload is malformed: {said}") from None
    return event


def encode(event: Event) -> tuple[str, int, dict[str, Any]]:
    """The type, version and payload (without "v") that store `event`: what
    `decode` reads back as the same event."""
    kind = type(event)
    if BY_TYPE.get(getattr(kind, "TYPE", "")) is not kind:
        raise EventError(f"{kind.__name__} is not an event type")
    payload: dict[str, Any] = _adapter(kind).dump_python(event, mode="json")
    for name in getattr(kind, "NO_NULL", ()):  # an optional field added later: the
        if payload.get(name, 0) is None:  # payloads without it stay as they were stored
            del payload[name]
    flat = getattr(kind, "FLAT", None)
    if flat is not None:
        payload.update(payload.pop(flat[0]) or {})
    return kind.TYPE, kind.VERSION, payload


def stored_payload(event: Event) -> dict[str, Any]:
    """The payload as the events table keeps it: the fields and the version "v"."""
    _, version, payload = encode(event)
    return {**payload, "v": version}


# -- upcasting ---------------------------------------------------------------------------

Upcaster = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
# (type, the version it reads) -> the function that writes the next version
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(type: str, version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the function that turns a `type` payload of `version` into the next."""

    def register(function: Upcaster) -> Upcaster:
        UPCASTERS[(type, version)] = function
        return function

    return register


def upcast(type: str, payload: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """`payload` brought to the current version of its type, one step at a time.
    `created` is the game's GameCreated payload (an upcaster may need the game)."""
    version = payload.get("v", 1)
    current = VERSIONS.get(type)
    if current is None:
        raise EventError(f"unknown event type {type!r:.60}")
    while version < current:
        step = UPCASTERS.get((type, version))
        if step is None:
            raise EventError(f"no upcaster for {type} v{version}")
        payload = step(payload, created)
        version = payload["v"]
    if version > current:
        raise EventError(f"{type} v{version} is newer than this server (v{current})")
    return payload


def read(type: str, payload: dict[str, Any], created: dict[str, Any]) -> Event:
    """The event a stored payload of any known version holds."""
    return decode(type, upcast(type, payload, created))


@upcaster(ACTION_TAKEN, 1)
def _action_text_to_json(payload: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """ActionTaken v1 stored the action as notation text; v2 stores its JSON form."""
    game = get_game(created["game"])
    return {"v": 2, "seat": payload["seat"], "action": game.to_json(game.parse(payload["action"]))}


@upcaster(MAIL_PREFERENCE, 1)
def _one_mail_choice_to_topics(payload: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """MailPreferenceChanged v1 had one choice for every optional mail; v2 has it per
    topic: the same choice for turns and rounds (what else it held is kept, so that
    a malformed payload still fails to decode, naming its key)."""
    mail = payload.get("mail")
    return {**payload, "v": 2, "turn": mail, "round": mail}
