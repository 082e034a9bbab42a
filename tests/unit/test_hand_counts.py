"""Legal-action counts worked out by hand from the mall's rules, not by the engine: each position
is built explicitly, and its comment shows which slots, cells, placements and customers
the rules allow and why. They pin the move generator where the golden files
(tests/unit/golden/) only record what the engine itself once counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.games.mall import setup

from builders import Plan, dealt, legal_texts, play, position, with_malls

GOLDEN = Path(__file__).parent / "golden" / "legal_counts.json"
SLOTS = ("L1", "L2", "L3", "L4", "R1", "R2", "R3", "R4")


def assert_hand_count(state, total: int, expected: list[str]) -> None:
    """The player to move has exactly the legal actions `expected`, in rules order,
    and `total` of them: the count worked out by hand in the test's docstring."""
    assert len(expected) == total, "the expected list does not add up to the hand count"
    assert legal_texts(state) == expected


# -- the opening ------------------------------------------------------------------------


def opening_list() -> list[str]:
    """Any opening, any player count (docs/games/mall.md sections 2-8): the mall is the Main
    Entrance on (0,1) and (1,1), 3 notes each, a full Dispenser.
    - money L, money R: both row-1 slots hold a tile (section 5)                  2
    - builds: every slot costs 0-3 notes, all affordable with 3; an element needs
      y >= 2 and the Main Entrance, a bay, an element or a platform directly below,
      so only (0,2) and (1,2): 8 slots x 2 cells                                 16
      (one customer of each want waits, so no store ever needs `for`)
    - attractions: every condition needs elements (or height 6 / 8): none        0
    - bays: need one element of each category: none                              0
    - pass: only when nothing else is legal                                      0
                                                                          total 18"""
    return ["money L", "money R"] + [f"build {slot} at {x},2" for slot in SLOTS for x in (0, 1)]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", ["hand-count", "7", "pinned opening"])
def test_an_opening_has_eighteen_legal_actions(players, seed):
    state = setup(["Ann", "Ben", "Cid", "Dee"][:players], seed=seed)
    assert_hand_count(state, 18, opening_list())


def test_two_plies_from_an_opening_are_eighteen_squared():
    """Whatever seat 1 does first, seat 2 still has only the Main Entrance, 3 notes and
    a refilled, full Dispenser: 18 again, so 18 x 18 = 324 two-ply sequences."""
    state = setup(["Ann", "Ben"], seed="hand-count")
    for action in opening_list():
        assert_hand_count(play(state, action), 18, opening_list())


def test_the_golden_openings_agree_with_the_hand_count():
    """The self-generated golden file must hold the hand-derived opening numbers. After
    one action seat 2 still faces an opening (18); in a 3- or 4-player game so does seat
    3 after seat 2's action, whatever it was, so two plies from there are 18 x 18 too."""
    golden = json.loads(GOLDEN.read_text())
    for game in ("game-2p.json", "game-3p.json", "game-4p.json"):
        assert golden[f"{game}@0"]["depth1"] == 18
        assert golden[f"{game}@0"]["depth2"] == 18 * 18
        assert golden[f"{game}@0"]["legal"] == opening_list()
        assert golden[f"{game}@1"]["depth1"] == 18
    for game in ("game-3p.json", "game-4p.json"):
        assert golden[f"{game}@1"]["depth2"] == 18 * 18


# -- money against builds ---------------------------------------------------------------


def short_dispenser(money: int):
    """Five tiles dealt: L1 Y01, L2 B01, L3 G01, L4 R01, R1 Y02; R2-R4 stay empty and the
    supply is empty (end trigger A before the first turn). Every player has `money`."""
    return with_malls(dealt(["Y01", "B01", "G01", "R01", "Y02"]), money=money)


def test_one_note_buys_rows_one_and_two_beside_both_money_actions():
    """Seat 1 has 1 note (sections 4-6):
    - money L (L1 Y01), money R (R1 Y02)                                          2
    - affordable slots: L1 (0 notes), L2 (1), R1 (0); L3 costs 2, L4 3; R2-R4 empty
    - cells (0,2) and (1,2) on the Main Entrance: 3 slots x 2 cells               6
      (Y01 and Y02 only M1.1 can take, B01 only M1.2: no `for`)
                                                                           total 8"""
    assert_hand_count(
        short_dispenser(money=1),
        8,
        [
            "money L",
            "money R",
            "build L1 at 0,2",
            "build L1 at 1,2",
            "build L2 at 0,2",
            "build L2 at 1,2",
            "build R1 at 0,2",
            "build R1 at 1,2",
        ],
    )


def test_no_money_leaves_only_the_free_bottom_row():
    """Seat 1 has 0 notes: money L, money R, and L1 and R1 (cost 0) on (0,2) and (1,2):
    2 + 2 x 2 = 6."""
    assert_hand_count(
        short_dispenser(money=0),
        6,
        [
            "money L",
            "money R",
            "build L1 at 0,2",
            "build L1 at 1,2",
            "build R1 at 0,2",
            "build R1 at 1,2",
        ],
    )


def test_after_money_the_short_column_slides_and_is_not_refilled():
    """Seat 1 takes money L: Y01 leaves, B01 G01 R01 slide to L1-L3, L4 stays empty
    (supply empty). Seat 2, 1 note: money L, money R; L1 B01 (0), L2 G01 (1), R1 Y02 (0)
    on (0,2) and (1,2): 2 + 3 x 2 = 8."""
    state = play(short_dispenser(money=1), "money L")
    assert state.turn == 2
    assert_hand_count(
        state,
        8,
        [
            "money L",
            "money R",
            "build L1 at 0,2",
            "build L1 at 1,2",
            "build L2 at 0,2",
            "build L2 at 1,2",
            "build R1 at 0,2",
            "build R1 at 1,2",
        ],
    )


# -- attraction placements, mirrored and symmetric --------------------------------------


def hobby_corner() -> Plan:
    """Seat 1: B01 (0,2), B02 (0,3), B03 (0,4) and B04 (1,2). B01 takes M1.2."""
    return Plan(1).put("B01", 0, 2).put("B02", 0, 3).put("B03", 0, 4).put("B04", 1, 2)


def test_attraction_placements_mirrored_and_symmetric():
    """Seat 1: hobby on (0,2) (0,3) (0,4) (1,2); secret O6 (line of 3 hobby, vertical);
    commons robot-arena (cluster of 4 hobby: held) and holo-fountain (line of 3 hobby,
    horizontal: not held, no floor has 3 hobby side by side).

    Taken cells: Main (0,1) (1,1), hobby (0,2) (0,3) (0,4) (1,2). A base plate needs an
    empty cell with a taken cell directly below: (0,5) or (1,3), nothing else.

    robot-arena `PP.` / `XXX` / `..B` (section 7): unmirrored B at (x+2,y), X on
    (x..x+2, y+1), P on (x, y+2) (x+1, y+2); mirrored B at (x,y), X the same, P on
    (x+1, y+2) (x+2, y+2). The shapes differ, so mirror is written.
    - B (0,5) unmirrored: at -2,5: X (-2,6) (-1,6) (0,6), P (-2,7) (-1,7) free  legal
    - B (1,3) unmirrored: at -1,3: X (-1,4) (0,4) (1,4): (0,4) is B03        illegal
    - B (0,5) mirrored:   at 0,5: X (0,6) (1,6) (2,6), P (1,7) (2,7) free     legal
    - B (1,3) mirrored:   at 1,3: X (1,4) (2,4) (3,4), P (2,5) (3,5) free     legal
    founders-statue `P` / `B`: symmetric, so never `mirror`: B (1,3) P (1,4);
    B (0,5) P (0,6): 2 placements.

    Builds: elements go on (1,3) (over B04) or (0,5) (over B03): 8 slots x 2 = 16; food
    (M1.1) and fashion (M1.3) wait alone, so no `for`. Bays: no food element, none.
    Total 2 + 16 + 3 + 2 = 23, attractions ordered by table, then y, then x."""
    state = position(
        hobby_corner(),
        commons=["robot-arena", "holo-fountain"],
        secrets={"1": "O6", "2": "O2"},
    )
    builds = [f"build {slot} at {x},{y}" for slot in SLOTS for x, y in ((1, 3), (0, 5))]
    assert_hand_count(
        state,
        23,
        [
            "money L",
            "money R",
            *builds,
            "attraction robot-arena at 1,3 mirror",
            "attraction robot-arena at -2,5",
            "attraction robot-arena at 0,5 mirror",
            "attraction founders-statue at 1,3",
            "attraction founders-statue at 0,5",
        ],
    )


# -- docking bays -----------------------------------------------------------------------


def two_of_each_with_cargo_lift() -> Plan:
    """Seat 1: two elements of each category stacked on the Main Entrance, and its grey
    bay GD3 on (2,1) (3,1)."""
    return (
        Plan(1)
        .stack(0, 2, "Y01", "G01", "Y02", "G02")
        .stack(1, 2, "B01", "R01", "B02", "R02")
        .dock("GD3", 2)
    )


def comet_ferry_elsewhere() -> Plan:
    """Seat 2: two elements of each category, and the brown bay BD2 on (-2,1) (-1,1)."""
    return (
        Plan(2)
        .stack(0, 2, "Y07", "G07", "Y08", "G08")
        .stack(1, 2, "B07", "R09", "B08", "R10")
        .dock("BD2", -2)
    )


def test_a_bay_choice_with_one_grey_owned_and_one_brown_taken():
    """Seat 1 has 2 elements of each category (a brown bay allowed), already owns grey
    GD3 on (2,1) (3,1) (no second grey), and seat 2 built BD2 (each bay belongs to the
    first builder). Seat 1 has 0 notes; L1 and R1 hold entrances (no customer moves).
    - money L, money R                                                           2
    - builds: L1 and R1 only (0 notes), on (0,6) (1,6) over the stacks and (2,2)
      (3,2) over the bay: 2 slots x 4 cells                                        8
    - bays: BD1, BD3, BD4; at -2 (cells (-2,1) (-1,1), beside the Main Entrance's
      (0,1)) or at 4 (cells (4,1) (5,1), beside GD3's (3,1)); x = -1 and 3 overlap
      taken cells: 3 bays x 2 places                                              6
    - attractions: no commons; secret O1 (3 fashion in a column): G01 (0,3) and G02
      (0,5) are not consecutive                                                   0
                                                                         total 16"""
    state = position(
        two_of_each_with_cargo_lift(),
        comet_ferry_elsewhere(),
        left=["R05"],
        right=["R06"],
        money=0,
    )
    builds = [
        f"build {slot} at {x},{y}"
        for slot in ("L1", "R1")
        for x, y in ((2, 2), (3, 2), (0, 6), (1, 6))
    ]
    docks = [f"dock {bay} at {x}" for bay in ("BD1", "BD3", "BD4") for x in (-2, 4)]
    assert_hand_count(state, 16, ["money L", "money R", *builds, *docks])


# -- customer choice ----------------------------------------------------------------------


def arcade_queue() -> Plan:
    """Seat 1: Y01 (0,2) takes M1.1, G01 (0,3) takes M1.3, R05 (0,4) brings two hobby
    customers; M1.2 (hobby) still waits on the Main Entrance."""
    return Plan(1).put("Y01", 0, 2).put("G01", 0, 3).put("R05", 0, 4)


def test_a_hobby_store_names_which_of_the_reaching_customers_moves():
    """Seat 1, 0 notes, L1 hobby B05, R1 food Y05 (section 6, reach).
    Cells for an element: (1,2) over the Main Entrance, (0,5) over R05.
    Hobby B05, waiting hobby customers M1.2 (Main Entrance), R05.1 and R05.2 (R05):
    - on (1,2): M1.2 steps onto it from the Main Entrance, 1; R05.x walks G01 1,
      Y01 2, the store 3 <= 3: three choices, `for M1.2`, `for R05.1`, `for R05.2`
    - on (0,5): R05.x 1; M1.2 walks Y01 1, G01 2, R05 3, the store 4 > 3:
      two choices                                                          3 + 2 = 5
    Food Y05: M1.1 is already satisfied, no food customer waits: (1,2), (0,5)      2
    money L, money R                                                               2
    Bays: no hobby element; attractions: no commons, O1 not held.           total 9"""
    state = position(arcade_queue(), left=["B05"], right=["Y05"], money=0)
    assert_hand_count(
        state,
        9,
        [
            "money L",
            "money R",
            "build L1 at 1,2 for M1.2",
            "build L1 at 1,2 for R05.1",
            "build L1 at 1,2 for R05.2",
            "build L1 at 0,5 for R05.1",
            "build L1 at 0,5 for R05.2",
            "build R1 at 1,2",
            "build R1 at 0,5",
        ],
    )


# -- pass -----------------------------------------------------------------------------------


def test_pass_is_the_only_action_when_the_dispenser_is_empty_and_nothing_else_fits():
    """One tile dealt (L1 Y01, supply empty). Seat 1 takes it as money; seat 2 then has
    an empty Dispenser (no money, no build), no commons, no element for a bay or for
    secret O2: only `pass`."""
    state = play(dealt(["Y01"]), "money L")
    assert state.turn == 2
    assert_hand_count(state, 1, ["pass"])


def test_an_empty_dispenser_still_leaves_a_bay_to_build_instead_of_passing():
    """As above, but seat 2 has one element of each category: grey bays GD1-GD4 at -2
    or 2 beside the Main Entrance are legal (4 x 2 = 8), so `pass` is not."""
    one_of_each = Plan(2).put("Y07", 0, 2).put("B07", 1, 2).put("G07", 0, 3).put("R09", 1, 3)
    state = with_malls(play(dealt(["Y01"]), "money L"), one_of_each)
    assert_hand_count(state, 8, [f"dock GD{n} at {x}" for n in range(1, 5) for x in (-2, 2)])
