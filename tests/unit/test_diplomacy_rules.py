"""Diplomacy's rules behind the game protocol: setup, the notation read forgivingly
and written canonically, orders refused with the order named, replaced orders, the
game's own resolution, holds and civil disorder for missing orders, a solo victory,
a unanimous draw, and the state's exact JSON round trip."""

from __future__ import annotations

import json

import pytest
from diplomacy_helpers import NAMES, give, phase, placed, resolve, seat, state_at

from pbem.games.base import IllegalAction, NotationError, SetupError
from pbem.games.diplomacy import GAME, Orders, Resolve, possible_orders


@pytest.fixture(scope="module")
def opening():
    return GAME.setup(NAMES, {"map": "standard"})


# -- setup --------------------------------------------------------------------------


def test_setup_takes_seven_players_and_the_standard_map(opening):
    assert GAME.active(opening) == frozenset(range(1, 8))
    assert GAME.to_move(opening) is None and not GAME.over(opening)
    assert GAME.round(opening) == 1
    with pytest.raises(SetupError, match="7 players, not 6"):
        GAME.setup(NAMES[:6], {})
    with pytest.raises(SetupError, match="unknown setup part 'pile'"):
        GAME.setup(NAMES, {"pile": 3})
    assert GAME.setup(NAMES, {"seed": "x"}) == opening  # no chance: the seed changes nothing
    with pytest.raises(SetupError, match="map is one of: standard"):
        GAME.setup(NAMES, {"map": "modern"})
    assert GAME.rematch_setup({"map": "standard"}) == {"map": "standard"}
    assert GAME.public_setup({"map": "standard", "players": NAMES}, opening, 1)["map"] == "standard"


def test_view_of_the_opening(opening):
    doc = GAME.view(opening, 3)
    assert doc["game"] == "diplomacy" and doc["status"] == "playing"
    assert (doc["round"], doc["turn"], doc["phase"]) == (1, None, "S1901M")
    assert doc["phase_name"] == "Spring 1901, movement"
    assert doc["players"][2] == {
        "seat": 3,
        "name": "Cat",
        "power": "FRANCE",
        "power_name": "France",
    }
    assert sorted(doc["units"]["FRANCE"]) == ["A MAR", "A PAR", "F BRE"]
    assert doc["centres"]["RUSSIA"] == ["MOS", "SEV", "STP", "WAR"]
    assert doc["waiting"] == [1, 2, 3, 4, 5, 6, 7] and doc["ordered"] == []
    assert doc["my_orders"] is None and doc["my_draw"] is False
    assert sorted(doc["possible"]) == ["BRE", "MAR", "PAR"]
    assert "A PAR - BUR" in doc["possible"]["PAR"]
    assert "my_orders" not in GAME.view(opening, None)
    assert possible_orders(opening, 3) == doc["possible"] and possible_orders(opening, 0) == {}
    assert doc["winners"] is None and doc["drawn"] is False and doc["history"] == []


# -- notation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("a par-bur", "A PAR - BUR"),
        ("  F   bre  -   MAO ", "F BRE - MAO"),
        ("A MUN supports A BER - SIL", "A MUN S A BER - SIL"),
        ("army par hold", "A PAR H"),
        ("F STP(SC) -> BOT", "F STP/SC - BOT"),
        ("PAR - BUR", "A PAR - BUR"),  # the unit type left out
        ("F STP - BOT", "F STP/SC - BOT"),  # the fleet's coast left out
        ("A MUN S BER - SIL", "A MUN S A BER - SIL"),
        ("a war support a mos - ukr", "A WAR S A MOS - UKR"),
    ],
)
def test_orders_are_read_forgivingly_and_written_as_the_package_does(opening, written, canonical):
    power = {"PAR": 3, "BRE": 3, "MUN": 4, "STP": 6, "WAR": 6}[canonical.split()[1][:3]]
    checked = GAME.check(opening, GAME.parse(written), power)
    assert checked == Orders(power, (canonical,))
    assert GAME.format(checked) == canonical
    assert GAME.check(opening, GAME.parse(written)) == checked  # the seat from the unit


def test_every_legal_action_round_trips_both_forms(opening):
    for s in range(1, 8):
        for action in GAME.legal_actions(opening, s):
            assert GAME.check(opening, action, s) == action
            assert GAME.check(opening, GAME.parse(GAME.format(action)), s) == action
            assert GAME.parse(json.loads(json.dumps(GAME.to_json(action)))) == action


def test_the_forms_of_an_order_set_and_a_resolution(opening):
    action = GAME.parse("A PAR - BUR; f bre - mao\ndraw")
    assert action == Orders(None, ("A PAR - BUR", "F BRE - MAO"), True)
    checked = GAME.check(opening, action, 3)
    assert GAME.format(checked) == "A PAR - BUR\nF BRE - MAO\ndraw"
    assert GAME.to_json(checked) == {
        "type": "orders",
        "orders": ["A PAR - BUR", "F BRE - MAO"],
        "draw": True,
        "seat": 3,
    }
    assert GAME.parse("") == GAME.parse("hold") == Orders(None, ())
    assert GAME.format(Orders(2, ())) == "hold"
    due = Resolve("S1901M", {3: ("A PAR - BUR",), 1: ()})
    assert GAME.format(due) == "resolve S1901M\n1:\n3: A PAR - BUR"
    assert GAME.parse(GAME.format(due)) == due
    assert GAME.to_json(due) == {
        "type": "resolve",
        "phase": "S1901M",
        "orders": {"1": [], "3": ["A PAR - BUR"]},
    }
    assert GAME.parse(GAME.to_json(due)) == due and hash(GAME.parse(GAME.to_json(due))) == hash(due)


@pytest.mark.parametrize(
    "given",
    [
        "A PAR - BUR 1",
        "A PAR - BUR <script>",
        "x" * 5000,
        {"type": "orders", "orders": "A PAR H"},
        {"type": "orders", "orders": [], "draw": "yes"},
        {"type": "orders", "orders": [], "seat": 8},
        {"type": "resolve", "phase": "S1901M", "orders": {"9": []}},
        {"type": "take", "count": 1},
        {"type": "orders", "orders": ["A PAR H"] * 41},
    ],
)
def test_what_is_no_action_at_all(given):
    with pytest.raises(NotationError):
        GAME.parse(given)


# -- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat_", "text", "said"),
    [
        (3, "A PAR - MUN", '"A PAR - MUN" is not a possible order in PAR'),
        (3, "A MUN - BUR", '"A MUN - BUR": the unit in MUN is Germany\'s, not yours'),
        (3, "A BUR - PAR", '"A BUR - PAR": you have nothing to order in BUR'),
        (3, "A PAR - BUR\nA PAR H", '"A PAR H": PAR has an order already ("A PAR - BUR")'),
        (3, "A PAR B", '"A PAR B" is not a possible order in PAR'),
        (3, "WAIVE", '"WAIVE" leaves out a build'),
        (6, "F STP - NWY", '"F STP - NWY" is not a possible order in STP'),
    ],
)
def test_an_illegal_order_is_refused_by_name(opening, seat_, text, said):
    with pytest.raises(IllegalAction) as refused:
        GAME.check(opening, GAME.parse(text), seat_)
    assert said in str(refused.value)


def test_a_seat_may_not_order_for_another(opening):
    with pytest.raises(IllegalAction, match="seat 2 cannot give seat 3's orders"):
        GAME.check(opening, Orders(3, ()), 2)
    with pytest.raises(IllegalAction, match="say which seat"):
        GAME.check(opening, GAME.parse("hold"))


def test_replaced_orders_and_the_resolution_they_wait_for(opening):
    state = give(opening, 3, "A PAR - BUR", draw=True)
    assert 3 not in GAME.active(state) and GAME.resolution(state) is None
    assert GAME.legal_actions(state, 3)[0] == Orders(3, ())  # it may still replace them
    state = give(state, 3, "A PAR - PIC")
    assert state.pending[2] == ("A PAR - PIC",) and state.draws[2] is False
    for s in (1, 2, 4, 5, 6, 7):
        state = give(state, s, "")
    due = GAME.resolution(state)
    assert due == Resolve("S1901M", {s: () for s in (1, 2, 4, 5, 6, 7)} | {3: ("A PAR - PIC",)})
    assert GAME.sealed(state, Orders(3, ())) and not GAME.sealed(state, due)
    assert GAME.legal_actions(state, None) == [due] and GAME.legal_actions(opening, None) == []
    with pytest.raises(IllegalAction, match="only the game"):
        GAME.check(state, due, 3)
    with pytest.raises(IllegalAction, match="not the resolution"):
        GAME.check(state, Resolve("S1901M", {3: ("A PAR - BUR",)}))
    after = GAME.perform(state, GAME.check(state, due))
    assert "A PIC" in after.position.units[2] and after.position.phase == "F1901M"
    assert after.history[-1].orders[2] == ("A PAR - PIC",)
    assert after.pending == (None,) * 7 and GAME.round(after) == 2


def test_a_power_with_nothing_to_order_is_refused_in_a_retreat_phase():
    start = placed("S1901M", units={"FRANCE": ["A BUR", "A RUH", "F BRE"]})
    state = phase(state_at(start), {3: "A BUR - MUN\nA RUH S A BUR - MUN"})
    assert state.position.phase == "S1901R"
    assert GAME.active(state) == {seat("GERMANY")}
    assert ("A MUN", ("dislodged",)) in state.history[-1].results
    assert state.position.retreats[3][0][0] == "A MUN" and "BOH" in state.position.retreats[3][0][1]
    with pytest.raises(IllegalAction, match="France has nothing to order in Spring 1901, retreats"):
        GAME.check(state, Orders(3, ()), 3)
    assert GAME.legal_actions(state, 3) == []
    assert Orders(4, ("A MUN R BOH",)) in GAME.legal_actions(state, 4)
    retreated = phase(state, {4: "a mun r boh"})
    assert "A BOH" in retreated.position.units[3] and retreated.position.phase == "F1901M"


# -- missing orders -----------------------------------------------------------------


def test_no_orders_hold_every_unit(opening):
    after = phase(opening)
    assert after.position.phase == "F1901M"
    assert after.position.units == opening.position.units
    assert GAME.bot("hold")(opening, 5) == Orders(5, ())


def test_missing_disbands_are_civil_disorder_and_missing_builds_waived():
    start = placed(
        "W1901A",
        units={"FRANCE": ["A BUR", "F MAO", "A PIC"]},
        centres={"GERMANY": ["BER", "MUN"], "FRANCE": ["BRE", "MAR", "PAR", "SPA", "KIE"]},
    )
    state = state_at(start)
    assert GAME.active(state) == {seat("GERMANY"), seat("FRANCE")}
    assert GAME.view(state, 3)["adjustments"]["FRANCE"] == 2
    with pytest.raises(IllegalAction, match="disbands 1 unit, not 2"):
        GAME.check(state, GAME.parse("A BER D\nA MUN D"), 4)
    with pytest.raises(IllegalAction, match=r"may build 2 units, not 3 \(WAIVE is one too many\)"):
        GAME.check(state, GAME.parse("A PAR B\nF BRE B\nWAIVE"), 3)
    with pytest.raises(IllegalAction, match="could be"):
        GAME.check(state, GAME.parse("BRE B"), 3)
    assert GAME.check(state, GAME.parse("PAR B"), 3) == Orders(3, ("A PAR B",))
    after = phase(state, {3: "A PAR B"})
    assert len(after.position.units[3]) == 2  # Germany: one unit gone, the package chose
    assert sorted(after.position.units[2]) == ["A BUR", "A PAR", "A PIC", "F MAO"]  # one waived
    assert after.position.phase == "S1902M"


# -- the end ------------------------------------------------------------------------

FRENCH_17 = ["BRE", "MAR", "PAR", "SPA", "POR", "LON", "LVP", "EDI", "HOL", "DEN", "KIE"]
FRENCH_17 += ["BER", "MUN", "NWY", "SWE", "TUN", "NAP"]


def test_a_solo_victory_at_eighteen_centres():
    start = placed(
        "F1901M",
        units={"FRANCE": ["A BUR"], "ITALY": ["A ROM"]},
        centres={"FRANCE": FRENCH_17, "ITALY": ["ROM", "VEN"]},
        clear=True,
    )
    state = state_at(start)
    assert GAME.active(state) == {seat("FRANCE"), seat("ITALY")}
    near = phase(state, {3: "A BUR - BEL"}, draw={3})  # one vote is no draw
    assert GAME.over(near) and near.winners == (3,) and near.drawn is False
    assert len(near.position.centres[2]) == 18
    assert GAME.active(near) == frozenset() and GAME.resolution(near) is None
    assert GAME.legal_actions(near, 3) == [] and GAME.legal_actions(near, None) == []
    doc = GAME.view(near, None)
    assert (doc["status"], doc["winners"], doc["drawn"]) == ("finished", [3], False)
    assert "France wins." in GAME.narrate(state, Resolve("F1901M", {}), near, None)
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.check(near, Orders(3, ()), 3)


def test_a_draw_every_surviving_power_votes_for(opening):
    all_but_one = phase(opening, draw={1, 2, 3, 4, 5, 6})
    assert not GAME.over(all_but_one) and all_but_one.draws == (False,) * 7
    state = all_but_one
    for s in range(1, 8):
        state = give(state, s, "", draw=True)
    due = GAME.resolution(state)
    drawn = GAME.perform(state, GAME.check(state, due))
    assert GAME.over(drawn) and drawn.drawn and drawn.winners == tuple(range(1, 8))
    assert drawn.position == state.position  # nothing was adjudicated
    said = GAME.narrate(state, due, drawn, 5)
    assert said.startswith("Fall 1901, movement: a draw agreed by Austria, England")
    assert GAME.round(drawn) == 2 and GAME.view(drawn, 1)["status"] == "finished"


def test_a_resignation_with_nobody_left_ends_in_a_draw_of_the_others(opening):
    assert GAME.on_resign(opening, 2, 1) == "bot" and GAME.on_resign(opening, 2, 0) == "end"
    ended = GAME.resign(opening, 2)
    assert GAME.over(ended) and ended.drawn and ended.winners == (1, 3, 4, 5, 6, 7)


# -- bots, snapshots ------------------------------------------------------------------


def test_the_random_bot_is_seeded_and_legal(opening):
    first, again, other = GAME.bot("random", 7), GAME.bot("random", 7), GAME.bot("random", 8)
    chosen = [first(opening, s) for s in range(1, 8)]
    assert chosen == [again(opening, s) for s in range(1, 8)]
    assert chosen != [other(opening, s) for s in range(1, 8)]
    for s, action in enumerate(chosen, start=1):
        assert GAME.check(opening, action, s) == action and len(action.orders) >= 3
    with pytest.raises(ValueError, match="unknown bot"):
        GAME.bot("clever")


def test_the_state_round_trips_through_json(opening):
    state, bot = opening, GAME.bot("random", "snap")
    for _ in range(12):
        for s in sorted(GAME.active(state))[:3]:
            state = GAME.perform(state, bot(state, s))
        doc = json.loads(json.dumps(GAME.dump_state(state)))
        assert GAME.load_state(doc) == state
        for s in sorted(GAME.active(state)):
            state = GAME.perform(state, bot(state, s))
        state = resolve(state)
    assert GAME.load_state(json.loads(json.dumps(GAME.dump_state(state)))) == state
    assert len(state.history) >= 12 and hash(state.position)
    assert GAME.reveals(opening, state) and not GAME.reveals(opening, opening)
