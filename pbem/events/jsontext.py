"""JSON text as every JSON column and the hash chain write it, and as the columns are
read back: orjson where it gives the standard library's text to the byte (many times
faster), the standard library for the rest."""

from __future__ import annotations

import json
from typing import Any

import orjson

# orjson reads an integer beyond 64 bits as a float: a text with a run of 19 digits
# (in a number or not) is read by the standard library. Finding one: the text's
# bytes with every digit made NUL (JSON text never holds a raw NUL), then a search
# for 19 NULs, twenty times faster than a regular expression.
_DIGITS_TO_NUL = bytes(0 if 48 <= i <= 57 else i or 1 for i in range(256))
_LONG_NUMBER = b"\x00" * 19


def load_json(text: str | bytes) -> Any:
    """What a JSON column holds, read exactly as the standard library reads it:
    orjson where that is the same (most of the time, and many times faster), the
    standard library for NaN, Infinity, lone surrogates and long numbers."""
    try:
        data = text.encode() if isinstance(text, str) else bytes(text)
    except UnicodeEncodeError:  # a lone surrogate: orjson refuses it
        return json.loads(text)
    if _LONG_NUMBER not in data.translate(_DIGITS_TO_NUL):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


# What orjson writes byte for byte as the standard library does (a property test holds
# it to that): text (orjson refuses a lone surrogate), whole numbers (it refuses one
# beyond 64 bits), booleans, None, and lists, tuples and dicts with text keys holding
# these, each of exactly its type. Not floats (orjson writes 1e-07 as 1e-7 and NaN as
# null), nor any other type, subclasses included: the standard library sorts keys by
# their own __lt__, reads a dict subclass's items() and a list subclass's __iter__,
# and refuses an Enum or a UUID that orjson would write.
_ORJSON_SCALARS = frozenset({str, int, bool, type(None)})
_TEXT = frozenset({str})
_ORJSON_CONTAINERS = 10_000  # a value with more, or one that holds itself: the standard library


def json_text(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON, as every JSON column is written: the standard library's text,
    each object's keys in order of code point when `sort_keys` (the hash chain's
    canonical JSON). orjson writes it when the value is plain data, many times faster
    and to the byte the same; anything else is written (or refused) by the standard
    library itself."""
    pending, budget = [value], _ORJSON_CONTAINERS
    while pending:  # every container of the value, as long as all it holds is plain
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            if not _TEXT.issuperset(map(type, item)):
                break
            item = item.values()
        elif kind is not list and kind is not tuple:
            if kind in _ORJSON_SCALARS:
                continue
            break
        if _ORJSON_SCALARS.issuperset(map(type, item)):
            continue
        budget -= 1
        if not budget:
            break
        pending += item
    else:
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None).decode()
        except TypeError:  # a lone surrogate, a number beyond 64 bits, too deep a value
            pass
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
