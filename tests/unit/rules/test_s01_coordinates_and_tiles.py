"""docs/games/mall.md section 1: cells and floors, tiles that never share a cell, edge adjacency,
and which kinds of tile are elements and stores."""

import pytest

from pbem.games.mall import apply, parse, view

from builders import Plan, docks_legal, game, play, position, refusal


def test_every_mall_starts_with_the_main_entrance_on_0_1_and_1_1():
    """Section 1: the Main Entrance covers (0,1) and (1,1) and holds 3 customers."""
    doc = view(game(players=3), None)
    for seat, player in enumerate(doc["players"], start=1):
        assert player["tiles"] == [{"id": f"M{seat}", "kind": "main", "cells": [[0, 1], [1, 1]]}]
        assert [c["on"] for c in player["customers"]] == [f"M{seat}"] * 3


def test_an_element_never_stands_on_floor_1_or_below():
    """Section 1: floor 1 is ground level, nothing stands below it (and section 6.2)."""
    state = game(left=["Y01"])
    assert refusal(state, "build L1 at 2,1") == (
        "(2,1) is on the ground floor: elements go on floor 2 or higher"
    )
    assert refusal(state, "build L1 at 0,0") == (
        "(0,0) is below floor 1: nothing stands below the ground"
    )
    assert "below floor 1" in refusal(state, "build L1 at 3,-2")


def test_an_attraction_never_reaches_below_floor_1():
    """Section 1: nothing ever stands below floor 1; here the statue's base at (3,0)."""
    plan = Plan(1).stack(0, 2, "R01", "R02", "R03", "R05")  # card O2: 4 entrance elements
    state = position(plan, secrets={"1": "O2", "2": "O1"})
    assert "below floor 1" in refusal(state, "attraction founders-statue at 3,0")


@pytest.mark.parametrize("text", ["build L1 at 0,1", "build L1 at 1,1"])
def test_an_element_cannot_share_a_cell_with_the_main_entrance(text):
    """Section 1: no two tiles of a mall share a cell."""
    assert "is taken by M1" in refusal(game(left=["Y01"]), text)


def test_an_element_cannot_share_a_cell_with_another_element():
    """Section 1: "no two tiles of a mall share a cell"."""
    state = play(game(left=["B01", "Y01"]), "build L1 at 0,2", "money R")
    assert "(0,2) is taken by B01" in refusal(state, "build L1 at 0,2")


def test_an_attraction_cannot_share_a_cell_with_another_tile():
    """Section 1: the statue at 0,5 would put its base plate on R05's cell."""
    plan = Plan(1).stack(0, 2, "R01", "R02", "R03", "R05")
    state = position(plan, secrets={"1": "O2", "2": "O1"})
    assert "(0,5) is taken by R05" in refusal(state, "attraction founders-statue at 0,5")


def test_a_docking_bay_cannot_share_a_cell_with_the_main_entrance():
    """Section 1, and section 8: both cells of a bay must be empty."""
    plan = Plan(1).put("Y", 0, 2).put("B", 1, 2).put("G", 0, 3).put("R13", 1, 3)
    assert "(1,1) is taken by M1" in refusal(position(plan), "dock GD1 at 1")


def test_tiles_touching_only_at_a_corner_are_not_adjacent():
    """Section 1: adjacency is a shared edge, never a diagonal. Food on (0,2) and (1,3)
    touch at a corner only, so the largest food cluster is 1."""
    plan = Plan(1).put("Y01", 0, 2).put("B01", 1, 2).put("Y02", 1, 3)
    assert plan.mall().largest_cluster("food")[0] == 1


def test_tiles_sharing_an_edge_are_adjacent():
    """Section 1: tiles sharing an edge are adjacent, so food on (0,2) and (0,3) form a cluster of
    2."""
    plan = Plan(1).put("Y01", 0, 2).put("B01", 1, 2).put("Y02", 0, 3)
    assert plan.mall().largest_cluster("food")[0] == 2


def test_the_main_entrance_is_not_an_entrance_element():
    """Section 1: the Main Entrance is not an element, so with food, hobby and fashion
    but no red entrance tile a grey bay (1 element of each category) is not legal."""
    plan = Plan(1).put("Y", 0, 2).put("B", 1, 2).put("G", 0, 3)
    state = position(plan)
    assert docks_legal(state) == []
    assert "0 entrance" in refusal(state, "dock GD1 at 2")


def test_a_docking_bay_is_not_an_element():
    """Section 1: with a dock in the mall, 3 entrance tiles are still 3 entrance
    elements: card O2 (4 entrance elements) is not met."""
    plan = (
        Plan(1)
        .put("Y", 0, 2)
        .put("B", 1, 2)
        .put("G", 0, 3)
        .put("R01", 1, 3)
        .dock("GD4", 2)
        .stack(1, 4, "R02", "R03")
    )
    state = position(plan, secrets={"1": "O2", "2": "O1"})
    assert "needs 4 entrance elements" in refusal(state, "attraction founders-statue at 2,2")


def test_a_store_is_food_hobby_or_fashion_and_an_entrance_is_not_one():
    """Section 1: an entrance is an element but not a store, so no customer moves onto
    it and `for` is refused (section 5)."""
    state = game(left=["R13"])
    assert "is an entrance" in refusal(state, "build L1 at 0,2 for M1.1")
    after = apply(state, parse("build L1 at 0,2"))
    mall = after.player(1).mall
    assert [(c.id, c.on, c.satisfied) for c in mall.customers][:3] == [
        ("M1.1", "M1", False),
        ("M1.2", "M1", False),
        ("M1.3", "M1", False),
    ]


def test_tile_kinds_in_the_state_document():
    """Section 1's kinds as the state document names them; a dock covers 2 cells on
    floor 1, an attraction its shape."""
    plan = (
        Plan(1)
        .put("Y01", 0, 2)
        .put("B01", 1, 2)
        .put("G01", 0, 3)
        .put("R13", 1, 3)
        .dock("GD4", 2)
        .stack(0, 4, "G02", "G03")
    )
    state = play(position(plan), "attraction founders-statue at 1,4")  # card O1
    tiles = {t["id"]: (t["kind"], t["cells"]) for t in view(state, 1)["players"][0]["tiles"]}
    assert tiles == {
        "M1": ("main", [[0, 1], [1, 1]]),
        "Y01": ("food", [[0, 2]]),
        "B01": ("hobby", [[1, 2]]),
        "G01": ("fashion", [[0, 3]]),
        "R13": ("entrance", [[1, 3]]),
        "GD4": ("dock", [[2, 1], [3, 1]]),
        "G02": ("fashion", [[0, 4]]),
        "G03": ("fashion", [[0, 5]]),
        "founders-statue": ("attraction", [[1, 4], [1, 5]]),
    }
