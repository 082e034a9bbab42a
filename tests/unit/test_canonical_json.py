"""The hash chain's canonical JSON and every JSON column's text are the standard
library's to the byte (docs/design.md contract: an event's hash never changes), whatever
value they are given: the same text, or the same error."""

from __future__ import annotations

import collections
import enum
import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.events import canonical_json, event_hash
from pbem.events.jsontext import json_text

RECORDED = Path(__file__).parents[1] / "integration" / "recorded" / "mall_v1_events.json"


def standard_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def standard_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def outcome(write: Any, value: Any) -> tuple[str, str]:
    """The text written, or the error raised (its class and message)."""
    try:
        return "text", write(value)
    except (TypeError, ValueError, RecursionError) as error:
        return type(error).__name__, str(error)


def assert_written_as_the_standard_library_writes(value: Any) -> None:
    assert outcome(canonical_json, value) == outcome(standard_canonical, value)
    assert outcome(json_text, value) == outcome(standard_text, value)


# -- values each writer may treat differently ----------------------------------------------


class Colour(enum.IntEnum):
    RED = 1


class Shade(enum.StrEnum):
    DARK = "dark"


class Plain(enum.Enum):
    ONE = 1


class Name(str):
    def __lt__(self, other: object) -> bool:  # sorts backwards
        return str.__gt__(self, other)


class Count(int):
    def __repr__(self) -> str:
        return "many"


class Ratio(float):
    def __repr__(self) -> str:
        return "ratio"


class Shuffled(dict):
    def items(self):
        return reversed(list(super().items()))


class Row(list):
    def __iter__(self):
        return iter(reversed(list(super().__iter__())))


Pair = collections.namedtuple("Pair", "left right")

AWKWARD_TEXT = [
    "",
    "".join(map(chr, range(0x20))),  # every control character: \n, \t, \u0001 ...
    "\x7f",
    "\u2028\u2029",
    "/</script>",
    '"quoted" \\ back\\slash',
    "Zoë, Ærø, 東京",
    "\ue000",  # private use, above the surrogates
    "\uffff",
    "\U0001f600",  # astral: after \uffff by code point, before it in UTF-16
    "\ud800",  # lone surrogates
    "a\udfffb",
    "\x00",
]

AWKWARD_FLOATS = [
    0.0,
    -0.0,
    0.1,
    1.5,
    1e16,
    1e15,
    1e-7,
    1e-5,
    1e-4,
    123456789.0,
    1e22,
    5e-324,
    1.7976931348623157e308,
    float("nan"),
    float("inf"),
    float("-inf"),
]

AWKWARD_INTS = [0, -1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 2**70, -(2**80)]


class Opaque:
    """A value JSON cannot write, with a repr that names the same test in every
    process (pytest-xdist compares the test ids its workers collect)."""

    def __repr__(self) -> str:
        return "Opaque()"


ODD_SCALARS = [
    Colour.RED,
    Shade.DARK,
    Plain.ONE,
    Name("b"),
    Count(3),
    Ratio(0.5),
    uuid.UUID(int=7),
    b"bytes",
    Opaque(),
]

text = st.text(st.characters(blacklist_categories=())) | st.sampled_from(AWKWARD_TEXT)
keys = (
    text
    | st.integers(-3, 3)
    | st.sampled_from([0.5, -0.0, float("nan"), True, False, None, Colour.RED, Name("a")])
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from(AWKWARD_INTS)
    | st.floats()
    | st.sampled_from(AWKWARD_FLOATS)
    | text
    | st.sampled_from(ODD_SCALARS)
)
plain_keys = text
plain_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | text


def containers(inner: st.SearchStrategy[Any], key: st.SearchStrategy[Any]) -> Any:
    return (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(key, inner, max_size=5)
        | st.dictionaries(key, inner, max_size=5).map(Shuffled)
        | st.lists(inner, max_size=5).map(Row)
        | st.tuples(inner, inner).map(lambda pair: Pair(*pair))
    )


awkward_values = st.recursive(scalars, lambda inner: containers(inner, keys), max_leaves=40)
# what the server writes: plain data, with text keys only (the fast path every time)
plain_values = st.recursive(
    plain_scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(plain_keys, inner, max_size=6),
    max_leaves=40,
)


@pytest.mark.slow  # 2,000 examples: about ten seconds
@settings(max_examples=2000, deadline=None)
@given(awkward_values)
@example({"b": 1, "a": [1, 2]})
@example({"\uffff": 1, "\U0001f600": 2, "\ue000": 3, "z": 4, "é": 5})
@example({1: "int", "1": "text"})  # the same key twice once written
@example({True: 1, "true": 2})
@example({"a": {"b": [1.0, float("nan")]}})
def test_any_value_is_written_as_the_standard_library_writes_it(value):
    assert_written_as_the_standard_library_writes(value)


@pytest.mark.slow  # 2,000 examples: about ten seconds
@settings(max_examples=2000, deadline=None)
@given(plain_values)
def test_plain_data_is_written_as_the_standard_library_writes_it(value):
    assert_written_as_the_standard_library_writes(value)


@pytest.mark.parametrize(
    "value",
    [
        *AWKWARD_TEXT,
        *AWKWARD_FLOATS,
        *AWKWARD_INTS,
        *ODD_SCALARS,
        *({"k": v, "list": [v]} for v in [*AWKWARD_TEXT, *AWKWARD_FLOATS, *AWKWARD_INTS]),
        *({"k": v, "list": [v]} for v in ODD_SCALARS),
        {text: len(text) for text in AWKWARD_TEXT if "\ud800" not in text and "\udfff" not in text},
        {"\ud800": 1, "a": 2},
        {1: "a", 2.5: "b", None: "c", False: "d"},
        {1: "a", "1": "b"},
        {Colour.RED: "enum key"},
        {Name("b"): 1, Name("a"): 2, "c": 3},
        Shuffled(b=1, a=2),
        {"outer": Shuffled(b=1, a=2)},
        Row([1, 2, 3]),
        Pair(1, "two"),
        (1, (2, [3, (4,)])),
        {"t": (1, {"b": 2, "a": 1})},
        [[]] * 3,
        {},
        [],
    ],
    ids=repr,
)
def test_each_awkward_case_is_written_as_the_standard_library_writes_it(value):
    assert_written_as_the_standard_library_writes(value)


def nested(depth: int) -> Any:
    value: Any = {"leaf": [1, "a"]}
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize("depth", [250, 260, 600, 5000])
def test_deep_nesting_is_written_or_refused_as_the_standard_library_does(depth):
    assert_written_as_the_standard_library_writes(nested(depth))


def test_a_value_that_holds_itself_is_refused_as_the_standard_library_does():
    looped: list[Any] = [1, {"a": 2}]
    looped.append(looped)
    as_dict: dict[str, Any] = {"a": [1]}
    as_dict["a"].append(as_dict)
    for value in (looped, as_dict, {"x": looped}):
        assert outcome(canonical_json, value) == outcome(standard_canonical, value)
        assert outcome(json_text, value)[0] == "ValueError"


def test_a_recorded_log_keeps_every_hash():
    rows = json.loads(RECORDED.read_text(encoding="utf-8"))
    previous = "0" * 64
    for row in rows:
        fields = (row["seq"], row["type"], row["payload"], row["actor"], row["created_at"])
        assert row["prev_hash"] == previous
        assert event_hash(previous, *fields) == row["hash"]
        names = ("seq", "type", "payload", "actor", "created_at")
        body = standard_canonical(dict(zip(names, fields, strict=True)))
        assert hashlib.sha256((previous + body).encode("utf-8")).hexdigest() == row["hash"]
        previous = row["hash"]
    assert len(rows) > 2
