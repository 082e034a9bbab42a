"""The action notation and its JSON form (docs/games/mall.md section 5): reading any case and
white space, writing canonical text, and clear errors for what is not an action."""

from __future__ import annotations

import pytest

from pbem.games.mall import (
    Build,
    BuildAttraction,
    Dock,
    Money,
    NotationError,
    Pass,
    format_action,
    from_json,
    parse,
    parse_any,
    to_json,
)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("money L", Money("L")),
        ("  MONEY r ", Money("R")),
        ("build L2 at 1,3", Build("L2", 1, 3)),
        ("Build l2 AT 1 , 3", Build("L2", 1, 3)),
        ("build L2 at 1,3 for M1.2", Build("L2", 1, 3, "M1.2")),
        ("build r4 at -2,5 for r13.2", Build("R4", -2, 5, "R13.2")),
        ("build R4 at -2,5 for R1.1", Build("R4", -2, 5, "R01.1")),
        ("build L1 at 0,2 for bd1.3", Build("L1", 0, 2, "BD1.3")),
        ("attraction haunted-hotel at -1,2", BuildAttraction("haunted-hotel", -1, 2)),
        ("attraction Haunted-Hotel at -1, 2 MIRROR", BuildAttraction("haunted-hotel", -1, 2, True)),
        ("attraction founders-statue at 3,4", BuildAttraction("founders-statue", 3, 4)),
        ("dock GD2 at 2", Dock("GD2", 2)),
        ("dock bd1 at -3", Dock("BD1", -3)),
        ("pass", Pass()),
        (" PASS\n", Pass()),
    ],
)
def test_parse_ignores_case_and_white_space(text, action):
    assert parse(text) == action


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Money("L"), "money L"),
        (Build("L2", 1, 3), "build L2 at 1,3"),
        (Build("R1", -1, 2, "R13.2"), "build R1 at -1,2 for R13.2"),
        (BuildAttraction("meteor-slide", -1, 2, True), "attraction meteor-slide at -1,2 mirror"),
        (BuildAttraction("aqua-dome", 0, 4), "attraction aqua-dome at 0,4"),
        (Dock("GD2", 2), "dock GD2 at 2"),
        (Pass(), "pass"),
    ],
)
def test_format_writes_the_canonical_text(action, text):
    assert format_action(action) == text
    assert parse(text) == action


def test_json_form_leaves_out_customer_and_mirror_exactly_when_the_text_does():
    assert to_json(Build("L2", 1, 3)) == {"type": "build", "slot": "L2", "x": 1, "y": 3}
    assert to_json(Build("L2", 1, 3, "M1.2"))["customer"] == "M1.2"
    assert "mirror" not in to_json(BuildAttraction("haunted-hotel", -1, 2))
    assert to_json(BuildAttraction("haunted-hotel", -1, 2, True))["mirror"] is True
    assert to_json(Dock("GD2", 2)) == {"type": "dock", "id": "GD2", "x": 2}
    assert to_json(Money("R")) == {"type": "money", "column": "R"}
    assert to_json(Pass()) == {"type": "pass"}


def test_json_form_is_read_with_any_case_of_ids():
    assert from_json({"type": "money", "column": "l"}) == Money("L")
    assert from_json({"type": "build", "slot": "l2", "x": 1, "y": 3, "customer": "m1.2"}) == (
        Build("L2", 1, 3, "M1.2")
    )
    assert from_json(
        {"type": "attraction", "id": "Haunted-Hotel", "x": -1, "y": 2, "mirror": False}
    ) == BuildAttraction("haunted-hotel", -1, 2)
    assert parse_any('{"type": "dock", "id": "gd2", "x": 2}') == Dock("GD2", 2)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"type": "build", "slot": "L2", "x": 1}, "a build action needs y"),
        ({"type": "build", "slot": "L2", "x": 1, "y": "3"}, "y must be an integer"),
        ({"type": "build", "slot": "L2", "x": True, "y": 3}, "x must be an integer"),
        ({"type": "money", "column": "L", "colour": "red"}, "a money action has no field colour"),
        ({"type": "attraction", "id": "aqua-dome", "x": 0, "y": 4, "mirror": "yes"}, "mirror is"),
        (["money", "L"], 'a JSON action is an object with a "type"'),
    ],
)
def test_malformed_json_actions_say_what_is_wrong(doc, message):
    with pytest.raises(NotationError, match=message):
        parse_any(doc) if isinstance(doc, dict) else from_json(doc)


@pytest.mark.parametrize(
    "text",
    ["", "build L2", "build L2 at 1 3", "dock GD2 at 1 2", "money", "move L2 to 1,3", "pass now"],
)
def test_unreadable_text_is_refused_with_the_grammar(text):
    with pytest.raises(NotationError, match="write one of: money L"):
        parse(text)


def test_two_texts_naming_the_same_action_give_one_action():
    assert parse("build l2 at 1 , 3 for r13.2") == parse("BUILD L2 AT 1,3 FOR R13.2")
    assert parse("dock gd02 at 2") == parse("dock GD2 at 2")


@pytest.mark.parametrize(
    "text",
    [
        "build L1 at ٠,٢",  # Arabic-Indic digits
        "build L1 at 0,２",  # fullwidth
        "build L१ at 0,2",  # Devanagari
        "dock GD२ at 2",
        "build L1 at 0,2 for M1.٢",
        "build L1 at 1000,2",
        "build L1 at 0,-1000",
        "dock GD2 at " + "9" * 100_000,
        "build L1 at 0," + "9" * 5000,
        "money ｌ",
        "build L1\u2003at 0,2",  # a non-ASCII space
        "{" + '"a":{' * 100_000,
        "[" * 100_000,
    ],
)
def test_notation_reads_ascii_digits_only_and_at_most_three_of_them(text):
    with pytest.raises(NotationError):
        parse(text)


@pytest.mark.parametrize(
    "doc",
    [
        {"type": []},
        {"type": {"a": 1}},
        {"type": "build", "slot": "L1", "x": 1000, "y": 2},
        {"type": "build", "slot": "L1", "x": 0, "y": -(10**100)},
        {"type": "build", "slot": "L٢", "x": 0, "y": 2},
        {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": "M1.٢"},
        {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": "M1." + "1" * 5000},
        {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": ["M1.2"]},
        {"type": "money", "column": "LEFT"},
        {"type": "attraction", "id": "haunted hotel; drop", "x": 0, "y": 2},
        {"type": "dock", "id": "GD" + "2" * 5000, "x": 2},
        {"type": "pass", 1: 2},
    ],
)
def test_a_json_form_is_checked_field_by_field(doc):
    with pytest.raises(NotationError):
        from_json(doc)


def test_the_bounds_still_read_every_coordinate_of_three_digits():
    assert parse("build L1 at -999,999") == Build("L1", -999, 999)
    assert from_json({"type": "build", "slot": "L1", "x": -999, "y": 999}) == Build("L1", -999, 999)


@pytest.mark.parametrize(
    "value",
    ["take ٢", "take ２", "take " + "1" * 5000, {"type": "take", "count": 10**100}, {"type": []}],
)
def test_nim_reads_ascii_digits_only_and_bounded_counts(value):
    from pbem.games.nim import GAME

    with pytest.raises(NotationError):
        GAME.parse(value)
    assert GAME.parse("take 2").count == 2
