"""docs/games/mall.md section 4: the Dispenser 3000 — slot costs, sliding and refilling, columns
that shrink once the supply is empty, and end trigger A."""

import pytest

from pbem.games.mall import IllegalAction, apply, parse

from builders import dealt, game, legal_texts, play


@pytest.mark.parametrize("row", [1, 2, 3, 4])
def test_the_tile_in_row_r_costs_r_minus_1_notes(row):
    """Section 4: "Taking the tile in row r costs r − 1 notes (0, 1, 2, 3)"."""
    state = play(game(left=["B01", "B02", "B03", "B04"]), f"build L{row} at 0,2")
    assert state.player(1).money == 3 - (row - 1)
    assert state.bank == row - 1


def test_a_slot_the_player_cannot_pay_for_is_illegal():
    """Section 6: a player cannot go below 0 notes; 2 notes do not pay for row 4."""
    state = play(game(left=["B01"], right=["G01"]), "build R2 at 0,2", "money L")
    assert state.player(1).money == 2
    assert not any(text.startswith("build L4 ") for text in legal_texts(state))
    with pytest.raises(IllegalAction, match="L4 costs 3 notes; you have 2"):
        apply(state, parse("build L4 at 1,2"))


def test_taking_a_tile_slides_the_column_down_and_refills_the_top():
    """Section 4: the tiles above slide down one row; the top takes the next supply tile."""
    state = dealt(["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02", "Y03", "B03"])
    after = play(state, "build L2 at 1,2")
    assert after.dispenser == (("Y01", "G01", "R01", "Y03"), ("Y02", "B02", "G02", "R02"))
    assert after.supply == ("B03",)


def test_once_the_supply_is_empty_columns_shrink_from_the_top():
    """Section 4: "once the supply is empty, columns shrink from the top"."""
    state = dealt(["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02"])
    after = play(state, "build L1 at 0,2", "build L1 at 0,2")
    assert after.dispenser == (("G01", "R01", None, None), ("Y02", "B02", "G02", "R02"))


def test_a_short_setup_fills_the_rows_from_the_bottom():
    """Section 4: "Rows always fill from the bottom"; section 5: money R needs a tile in R1."""
    state = dealt(["Y01", "B01", "G01", "R01", "Y02"])
    assert state.dispenser == (("Y01", "B01", "G01", "R01"), ("Y02", None, None, None))
    assert legal_texts(state)[:2] == ["money L", "money R"]


def test_only_the_refill_that_places_the_last_supply_tile_is_trigger_a():
    """Section 4: 10 tiles leave 2 in the supply; the second refill places the last."""
    state = dealt(["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02", "Y03", "B03"])
    assert not state.end_triggered
    state = play(state, "money L")
    assert not state.end_triggered
    state = play(state, "money L")
    assert state.end_triggered


def test_a_setup_that_leaves_the_supply_empty_has_triggered_a_before_the_first_turn():
    """Section 4: the game then lasts one round."""
    state = dealt(["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02"])
    assert state.end_triggered
    assert (state.round, state.turn) == (1, 1)
    state = play(state, "money L")
    assert state.turn == 2
    state = play(state, "money L")
    assert (state.round, state.turn) == (1, None)


def test_a_setup_with_fewer_than_8_tiles_has_triggered_a_too():
    """Section 4: setup leaves the supply empty, so trigger A has happened."""
    state = dealt(["Y01", "B01", "G01"])
    assert state.end_triggered
    assert play(state, "money L", "money L").turn is None
