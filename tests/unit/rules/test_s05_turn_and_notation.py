"""docs/games/mall.md section 5: one action a turn, the order of legal-action lists, take money,
pass, the notation and its JSON form, and the `pbem replay` contract of docs/design.md."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.games.mall import (
    Build,
    BuildAttraction,
    Dock,
    IllegalAction,
    Money,
    NotationError,
    Pass,
    apply,
    check,
    format_action,
    from_json,
    legal_actions,
    parse,
    parse_any,
    to_json,
    view,
)

from builders import Plan, dealt, game, hobby_square, legal_texts, play, position

PBEM = Path(sys.executable).with_name("pbem")  # the console script of this venv


# -- legal-action lists --------------------------------------------------------------


def test_the_first_legal_list_of_a_game_in_rules_order():
    """Section 5: money L, money R, then builds by slot L1..R4, then y, then x."""
    state = game(left=["Y01", "B01", "G01", "R01"], right=["Y02", "B02", "G02", "R02"])
    builds = [f"build {s}{r} at {x},2" for s in "LR" for r in range(1, 5) for x in (0, 1)]
    assert legal_texts(state) == ["money L", "money R", *builds]


def arena_ready() -> Plan:
    """A hobby cluster of 4 (robot-arena), 1 element of each category (a grey bay), and
    R01's two food customers waiting on (0,5)."""
    return hobby_square().put("Y", 0, 4).put("G", 1, 4).put("R01", 0, 5)


def arena_position():
    return position(
        arena_ready(),
        left=["Y05", "B05", "G05", "R05"],
        right=["Y06", "R06", "Y07", "G06"],
        commons=["robot-arena"],
    )


def test_a_full_legal_list_in_rules_order():
    """Section 5: builds by slot, y, x, customer id; attractions by y, x, unmirrored first; bays
    GD1..BD4, then x."""
    state = arena_position()
    food = {"L1", "R1", "R3"}
    builds = [
        f"build {slot} at {x},{y}" + suffix
        for slot in ("L1", "L2", "L3", "L4", "R1", "R2", "R3", "R4")
        for x, y in ((1, 5), (0, 6))
        for suffix in ((" for R01.1", " for R01.2") if slot in food else ("",))
    ]
    attractions = [
        "attraction robot-arena at -1,5",
        "attraction robot-arena at 1,5 mirror",
        "attraction robot-arena at -2,6",
        "attraction robot-arena at 0,6 mirror",
    ]
    docks = [f"dock GD{n} at {x}" for n in range(1, 5) for x in (-2, 2)]
    assert legal_texts(state) == ["money L", "money R", *builds, *attractions, *docks]


def test_each_legal_action_appears_once_and_round_trips_through_its_notation():
    """Section 5: each legal action has exactly one canonical text and one JSON form."""
    state = arena_position()
    actions = legal_actions(state)
    assert len(set(actions)) == len(actions) == 36
    for action in actions:
        assert parse(format_action(action)) == action
        assert from_json(to_json(action)) == action
        assert check(state, action) == action


def test_an_illegal_action_changes_nothing():
    """Section 5 (and the engine contract): a refused action leaves the state as it was."""
    state = game(left=["Y01"])
    before = view(state, None)
    with pytest.raises(IllegalAction):
        apply(state, parse("build L1 at 5,5"))
    assert view(state, None) == before
    assert legal_texts(state)[:3] == ["money L", "money R", "build L1 at 0,2"]


def test_a_seat_that_is_not_to_move_can_do_nothing():
    """Section 5: "A seat that is not to move ... has no legal actions"."""
    state = game()
    with pytest.raises(IllegalAction, match="not seat 2's turn"):
        apply(state, Money("L"), seat=2)
    assert legal_actions(state, seat=2) == []
    assert legal_actions(state, seat=1) == legal_actions(state)
    assert apply(state, Money("L"), seat=1).turn == 2


# -- take money ----------------------------------------------------------------------


def test_take_money_bonus_is_limited_by_the_bank():
    """Section 5: k=3 food tiles above a food tile, bank 1: the player gains 1 + min(3, 1) = 2."""
    state = game(left=["Y01", "Y02", "Y03", "Y04"], right=["B01", "B02"], supply=["G01", "G02"])
    state = play(state, "build R2 at 0,2")
    assert state.bank == 1
    state = play(state, "money L")
    assert state.player(2).money == 5
    assert state.bank == 0
    assert state.notes == ("Y01",)
    assert state.dispenser[0] == ("Y02", "Y03", "Y04", "G02")  # G01 refilled column R


@pytest.mark.parametrize(
    ("left", "bank", "gain"),
    [
        (["Y01", "Y02", "Y03", "Y04"], 5, 4),
        (["Y01", "B01", "Y02", "G01"], 5, 2),
        (["R01", "R02", "B01", "R05"], 1, 2),
        (["Y01", "B01", "G01", "R01"], 5, 1),
        (["Y01", "Y02", "Y03", "Y04"], 0, 1),
    ],
)
def test_take_money_gains_1_note_and_then_min_k_bank(left, bank, gain):
    """Section 5: k counts rows 2-4 of the column with the row-1 tile's category."""
    state = play(position(left=left, bank=bank), "money L")
    assert state.player(1).money == 3 + gain
    assert state.bank == bank - (gain - 1)


def test_a_tile_taken_as_money_leaves_the_game_and_the_column_slides_and_refills():
    """Section 5: "T leaves the game and becomes a note ... Then the column slides and refills"."""
    state = game(left=["Y01", "B01", "G01", "R01"], supply=["Y09", "B09"])
    after = play(state, "money L")
    assert after.notes == ("Y01",)
    assert after.dispenser[0] == ("B01", "G01", "R01", "Y09")
    assert after.dispenser[1] == state.dispenser[1]
    assert after.supply[0] == "B09"
    assert "Y01" not in {t.id for p in after.players for t in p.mall.tiles}
    assert "Y01" not in after.supply


def test_money_is_legal_only_when_row_1_of_the_column_holds_a_tile():
    """Section 5: take money is legal when that column's row 1 holds a tile."""
    state = dealt(["Y01", "B01", "G01", "R01"])
    assert state.dispenser[1] == (None, None, None, None)
    # column L full, column R empty: money L and L1-L4 on (0,2) or (1,2), nothing from R
    builds = [f"build L{row} at {x},2" for row in range(1, 5) for x in (0, 1)]
    assert legal_texts(state) == ["money L", *builds]
    with pytest.raises(IllegalAction, match="column R"):
        apply(state, Money("R"))


# -- pass ----------------------------------------------------------------------------


def test_pass_is_the_only_action_when_nothing_else_is_legal():
    """Section 5: pass is legal when "no other action is legal"."""
    state = dealt([])
    assert legal_actions(state) == [Pass()]
    assert apply(state, Pass()).turn == 2


def test_pass_is_illegal_while_another_action_is_legal():
    """Section 5: pass only when no other action is legal."""
    with pytest.raises(IllegalAction, match="pass only when no other action is legal"):
        apply(game(), Pass())


# -- notation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("money L", Money("L")),
        ("MONEY r", Money("R")),
        ("  money   l  ", Money("L")),
        ("build L2 at 1,3", Build("L2", 1, 3)),
        ("BUILD l2 AT 1 , 3", Build("L2", 1, 3)),
        ("build r4 at -1,3", Build("R4", -1, 3)),
        ("build L2 at 1,3 for M1.2", Build("L2", 1, 3, "M1.2")),
        ("build l2 at 1, 3 FOR r13.2", Build("L2", 1, 3, "R13.2")),
        ("attraction haunted-hotel at -1,2", BuildAttraction("haunted-hotel", -1, 2)),
        ("Attraction HAUNTED-HOTEL at -1 ,2 Mirror", BuildAttraction("haunted-hotel", -1, 2, True)),
        ("dock GD2 at 2", Dock("GD2", 2)),
        ("dock bd1 at -2", Dock("BD1", -2)),
        ("pass", Pass()),
        (" PASS ", Pass()),
    ],
)
def test_parsing_ignores_case_and_white_space(text, action):
    """Section 5: "Parsing ignores case and white space (also around the comma)"."""
    assert parse(text) == action


@pytest.mark.parametrize(
    "text",
    ["build L2 at +1,3", "build L2 at 1.5,3", "build L2 at 1;3", "money", "take money", "passes"],
)
def test_text_that_is_no_action_is_a_notation_error(text):
    """Section 5: coordinates are integers, `-` only for negatives."""
    with pytest.raises(NotationError):
        parse(text)


@pytest.mark.parametrize(
    ("action", "text", "doc"),
    [
        (Money("L"), "money L", {"type": "money", "column": "L"}),
        (Build("L2", 1, 3), "build L2 at 1,3", {"type": "build", "slot": "L2", "x": 1, "y": 3}),
        (
            Build("L2", 1, 3, "R13.2"),
            "build L2 at 1,3 for R13.2",
            {"type": "build", "slot": "L2", "x": 1, "y": 3, "customer": "R13.2"},
        ),
        (
            BuildAttraction("haunted-hotel", -1, 2),
            "attraction haunted-hotel at -1,2",
            {"type": "attraction", "id": "haunted-hotel", "x": -1, "y": 2},
        ),
        (
            BuildAttraction("haunted-hotel", -1, 2, True),
            "attraction haunted-hotel at -1,2 mirror",
            {"type": "attraction", "id": "haunted-hotel", "x": -1, "y": 2, "mirror": True},
        ),
        (Dock("GD2", 2), "dock GD2 at 2", {"type": "dock", "id": "GD2", "x": 2}),
        (Pass(), "pass", {"type": "pass"}),
    ],
)
def test_canonical_text_and_json_form(action, text, doc):
    """Section 5: single spaces, lower-case words, upper-case ids, `x,y` with no space; the JSON
    form leaves out `customer` and `mirror` exactly when the text does."""
    assert format_action(action) == text
    assert to_json(action) == doc
    assert from_json(doc) == action
    assert parse_any(doc) == action
    assert parse_any(text) == action


def test_the_canonical_form_of_a_sloppy_legal_action():
    """Section 5: each legal action has exactly one canonical text, which `check` returns."""
    state = game(left=["Y01"])
    canonical = check(state, parse("BUILD l1  AT 0 ,2 for m1.1"))
    assert format_action(canonical) == "build L1 at 0,2"
    assert to_json(canonical) == {"type": "build", "slot": "L1", "x": 0, "y": 2}


# -- pbem replay (docs/design.md contract) --------------------------------------------------

SETUP = {
    "players": ["Ann", "Ben"],
    "supply": ["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02", "Y03", "B03", "G03"],
    "commons": [],
    "secrets": {"1": "O1", "2": "O2"},
}


def replay(tmp_path: Path, actions: list, *options: str) -> subprocess.CompletedProcess:
    log = tmp_path / "game.json"
    log.write_text(json.dumps({"format": "pbem.mall/1", "setup": SETUP, "actions": actions}))
    command = [str(PBEM), "replay", str(log), *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_replay_json_seq_is_the_number_of_actions_plus_one(tmp_path):
    """docs/design.md, Command line: `seq` after k actions is k + 1 (section 5 turns)."""
    actions = [
        {"seat": 1, "action": "build L1 at 0,2"},
        {"seat": 2, "action": {"type": "money", "column": "R"}},
        {"seat": 1, "action": "build l1 at 1 , 2"},
    ]
    result = replay(tmp_path, actions, "--json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert (doc["seq"], doc["status"], doc["round"], doc["turn"]) == (4, "playing", 2, 2)
    first = replay(tmp_path, actions, "--json", "--at", "1")
    assert (first.returncode, json.loads(first.stdout)["seq"]) == (0, 2)


def test_replay_legal_lists_the_canonical_actions_of_the_seat_to_move(tmp_path):
    """docs/design.md `--legal`: the legal actions of section 5, canonical."""
    result = replay(tmp_path, [{"seat": 1, "action": "money L"}], "--json", "--legal")
    state = play(dealt(SETUP["supply"]), "money L")
    assert json.loads(result.stdout)["legal"] == legal_texts(state)


def test_replay_refuses_an_entry_by_a_seat_not_to_move(tmp_path):
    """docs/design.md: exit 2 and `action N (seat S, "TEXT"): not seat S's turn`."""
    result = replay(tmp_path, [{"seat": 1, "action": "money L"}, {"seat": 1, "action": "money L"}])
    assert result.returncode == 2
    assert result.stderr == 'action 2 (seat 1, "money L"): not seat 1\'s turn\n'


def test_replay_shows_a_refused_json_action_compactly(tmp_path):
    """docs/design.md: TEXT is the action as given, JSON forms compactly (section 5 JSON form)."""
    action = {"type": "build", "slot": "L4", "x": 0, "y": 1}
    result = replay(tmp_path, [{"seat": 1, "action": action}])
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        'action 1 (seat 1, "{"type":"build","slot":"L4","x":0,"y":1}"): (0,1) is taken by M1'
    )


def test_replay_refuses_an_illegal_action_with_the_rule_that_forbids_it(tmp_path):
    """docs/design.md: exit 2 and one line with the reason (section 6: cannot go below 0 notes)."""
    actions = [{"seat": 1, "action": "build L4 at 0,2"}, {"seat": 2, "action": "money L"}]
    actions.append({"seat": 1, "action": "build L4 at 1,2"})
    result = replay(tmp_path, actions)
    assert result.returncode == 2
    assert result.stderr == 'action 3 (seat 1, "build L4 at 1,2"): L4 costs 3 notes; you have 0\n'


def test_replay_refuses_text_that_is_no_action(tmp_path):
    """docs/design.md: an unreadable entry stops the replay like an illegal one (section 5
    notation)."""
    result = replay(tmp_path, [{"seat": 1, "action": "fly to the moon"}])
    assert result.returncode == 2
    assert result.stderr.startswith('action 1 (seat 1, "fly to the moon"): ')
    assert result.stderr.count("\n") == 1
