"""docs/games/mall.md section 6: where an element may be built, customers arriving on entrances,
moving onto stores (with the `for` choice of section 5), and reach."""

import pytest

from pbem.games.mall import Build, apply, check, format_action, parse

from builders import Plan, arena_overhang, customer, game, legal_texts, play, position, refusal


def builds_of(state, prefix: str) -> list[str]:
    return [text for text in legal_texts(state) if text.startswith(prefix)]


def waiting(state, seat: int = 1) -> list[str]:
    return [c.id for c in state.player(seat).mall.customers if not c.satisfied]


def on_tile(state, tile_id: str, seat: int = 1) -> list[str]:
    return [c.id for c in state.player(seat).mall.customers if c.on == tile_id]


# -- where an element stands ---------------------------------------------------------


def test_the_first_elements_go_above_the_main_entrance():
    """Section 6.3: the only supported cells of a new mall are (0,2) and (1,2)."""
    assert builds_of(game(left=["B01"]), "build L1 ") == ["build L1 at 0,2", "build L1 at 1,2"]


def test_an_element_over_empty_space_would_float():
    """Section 6.3: empty space below "is floating and illegal"."""
    assert "would float" in refusal(game(left=["B01"]), "build L1 at 2,2")


def test_an_element_may_stand_on_a_docking_bay():
    """Section 6.3: a docking bay supports an element."""
    plan = Plan(1).put("Y", 0, 2).put("B", 1, 2).put("G", 0, 3).put("R13", 1, 3).dock("GD4", 2)
    state = position(plan, left=["B09"])
    assert builds_of(state, "build L1 ") == [
        "build L1 at 2,2",
        "build L1 at 3,2",
        "build L1 at 0,4",
        "build L1 at 1,4",
    ]
    assert play(state, "build L1 at 3,2").player(1).mall.tile["B09"].cells == ((3, 2),)


def test_an_element_may_stand_on_an_attractions_platform_cell():
    """Section 6.3: the statue at 1,2 has its platform on (1,3), so (1,4) is supported."""
    plan = Plan(1).stack(0, 2, "G", "G", "G").attraction("founders-statue", 1, 2)
    state = play(position(plan, left=["B09"]), "build L1 at 1,4")
    assert state.player(1).mall.tile["B09"].cells == ((1, 4),)


def test_an_element_on_an_attractions_non_platform_cell_would_float():
    """Section 6.3: robot-arena's X cell (1,5) is no platform: (1,6) above it floats."""
    state = position(arena_overhang(), left=["G09"])
    assert refusal(state, "build L1 at 1,6") == (
        "(1,6) would float: (1,5) is part of robot-arena but not a platform cell"
    )
    assert "build L1 at 1,6" not in legal_texts(state)


# -- customers arriving and moving -----------------------------------------------------


def test_an_entrance_brings_its_two_customers_who_wait_on_it():
    """Section 6: "Entrance placed: its two customers arrive and wait on it"."""
    state = play(game(left=["R13"]), "build L1 at 0,2")
    assert on_tile(state, "R13") == ["R13.1", "R13.2"]
    assert waiting(state) == ["M1.1", "M1.2", "M1.3", "R13.1", "R13.2"]


def test_a_store_only_one_customer_can_reach_takes_that_customer():
    """Section 6: "If exactly one, it moves onto the store"."""
    state = play(game(left=["Y01"]), "build L1 at 0,2")
    assert customer(state, 1, "M1.1") == ("Y01", True)
    assert waiting(state) == ["M1.2", "M1.3"]


def test_a_store_no_customer_can_reach_stays_empty_and_nobody_moves():
    """Section 6: M1.1 is satisfied on Y01 already: Y02 next to it moves no one."""
    state = play(game(left=["Y01", "Y02"]), "build L1 at 0,2", "money R", "build L1 at 1,2")
    assert on_tile(state, "Y02") == []
    assert customer(state, 1, "M1.1") == ("Y01", True)
    assert waiting(state) == ["M1.2", "M1.3"]


def test_customers_never_move_except_onto_a_store_as_it_is_built():
    """Section 6: "Customers never move except onto a store at the moment it is built"."""
    state = play(game(left=["B01", "R05"]), "build L1 at 0,2", "money R", "build L1 at 1,2")
    assert customer(state, 1, "M1.2") == ("B01", True)
    assert on_tile(state, "R05") == ["R05.1", "R05.2"]
    assert waiting(state) == ["M1.1", "M1.3", "R05.1", "R05.2"]


# -- several customers: the `for` choice (with section 5) ------------------------------


def three_food_customers():
    """M1.1 on the Main Entrance and R01.1, R01.2 on R01 at (0,2) all reach (1,2)."""
    return play(game(left=["R01", "Y01"]), "build L1 at 0,2", "money R")


def test_a_store_three_customers_can_reach_needs_a_for_listing_all_three():
    """Section 6: "without a name it is illegal with a message listing the choices"."""
    message = refusal(three_food_customers(), "build L1 at 1,2")
    assert "M1.1" in message and "R01.1" in message and "R01.2" in message
    assert "for" in message


def test_each_of_three_choices_is_a_legal_action():
    """Sections 5 and 6: one legal build per customer that could move, by customer id."""
    assert builds_of(three_food_customers(), "build L1 at 1,2") == [
        "build L1 at 1,2 for M1.1",
        "build L1 at 1,2 for R01.1",
        "build L1 at 1,2 for R01.2",
    ]


@pytest.mark.parametrize("chosen", ["M1.1", "R01.1", "R01.2"])
def test_each_choice_moves_exactly_that_customer(chosen):
    """Section 6: the named customer is satisfied; "a store holds at most one customer"."""
    state = play(three_food_customers(), f"build L1 at 1,2 for {chosen}")
    assert on_tile(state, "Y01") == [chosen]
    assert customer(state, 1, chosen) == ("Y01", True)
    others = {"M1.1": "M1", "R01.1": "R01", "R01.2": "R01"}
    del others[chosen]
    for other, tile in others.items():
        assert customer(state, 1, other) == (tile, False)


def test_two_customers_on_one_tile_with_the_same_want_are_two_choices():
    """Section 5: "Two customers on one tile with the same want are two choices"."""
    state = play(
        game(left=["Y01", "R01", "Y02"]),
        "build L1 at 0,2",
        "money R",
        "build L1 at 1,2",
        "money R",
    )
    assert builds_of(state, "build L1 at 1,3") == [
        "build L1 at 1,3 for R01.1",
        "build L1 at 1,3 for R01.2",
    ]


def test_a_for_naming_the_only_customer_that_can_reach_is_accepted_and_dropped():
    """Section 5: "a `for` naming the only customer that can reach is accepted and dropped"."""
    state = game(left=["Y01"])
    canonical = check(state, parse("build L1 at 0,2 for M1.1"))
    assert canonical == Build("L1", 0, 2)
    assert format_action(canonical) == "build L1 at 0,2"
    assert customer(apply(state, canonical), 1, "M1.1") == ("Y01", True)


def test_a_for_on_an_entrance_is_illegal():
    """Section 5: "a `for` on an entrance ... is illegal"."""
    assert "is an entrance" in refusal(game(left=["R13"]), "build L1 at 0,2 for M1.1")


def test_a_for_naming_a_customer_that_cannot_reach_is_illegal():
    """Section 5: Y01 on (0,5) is 4 tiles from the Main Entrance."""
    state = play(
        game(left=["B01", "B02", "B03", "Y01"]),
        *("build L1 at 0,2", "money R", "build L1 at 0,3", "money R", "build L1 at 0,4", "money R"),
    )
    assert "M1.1 cannot reach (0,5)" in refusal(state, "build L1 at 0,5 for M1.1")


@pytest.mark.parametrize(
    ("named", "reason"),
    [
        ("M1.2", "M1.2 wants hobby, not food"),
        ("R02.1", "there is no customer R02.1 in your mall"),
    ],
)
def test_a_for_naming_a_customer_who_does_not_want_it_is_illegal(named, reason):
    """Section 6: only waiting customers wanting the category can move; "A named customer that
    cannot reach it is illegal too"."""
    assert reason in refusal(three_food_customers(), f"build L1 at 1,2 for {named}")


def test_a_satisfied_customer_cannot_be_named():
    """Section 6: a satisfied customer stays on its store to the end."""
    state = play(game(left=["Y01", "Y02"]), "build L1 at 0,2", "money R")
    assert "M1.1 is already satisfied on Y01" in refusal(state, "build L1 at 1,2 for M1.1")


# -- reach -----------------------------------------------------------------------------


def column_of_hobby_then_food(hobby: int):
    """B01.. stacked on (0,2) up, then Y01 on top, all built from L1 by seat 1."""
    tiles = [f"B{n:02d}" for n in range(1, hobby + 1)] + ["Y01"]
    moves = []
    for floor in range(2, 2 + len(tiles)):
        moves += [f"build L1 at 0,{floor}", "money R"]
    return play(game(left=tiles), *moves[:-1])


def test_a_store_3_tiles_away_is_within_reach():
    """Section 6: Main Entrance -> B01 (1) -> B02 (2) -> Y01 (3); B01 holds M1.2 already."""
    state = column_of_hobby_then_food(2)
    assert customer(state, 1, "M1.2") == ("B01", True)
    assert customer(state, 1, "M1.1") == ("Y01", True)


def test_a_store_4_tiles_away_is_out_of_reach():
    """Section 6: "It can reach the store when the cheapest walk counts 3 or less"."""
    state = column_of_hobby_then_food(3)
    assert customer(state, 1, "M1.1") == ("M1", False)
    assert on_tile(state, "Y01") == []


def test_a_customer_walks_through_an_entrance():
    """Section 6: (0,3) touches only R05: M1.1 walks Main Entrance -> R05 -> Y01."""
    state = play(game(left=["R05", "Y01"]), "build L1 at 0,2", "money R", "build L1 at 0,3")
    assert customer(state, 1, "M1.1") == ("Y01", True)


def test_a_customer_walks_through_a_store_another_customer_occupies():
    """Section 6: a customer walks "through any tile of the mall (stores occupied or not ...)"."""
    state = play(game(left=["B01", "Y01"]), "build L1 at 0,2", "money R", "build L1 at 0,3")
    assert customer(state, 1, "M1.2") == ("B01", True)
    assert customer(state, 1, "M1.1") == ("Y01", True)


def far_food_and_a_bay() -> Plan:
    """Seat 1: B01 (M1.2), G01 (M1.3), R05, Y01 stacked from (0,2) — Y01 is 4 tiles from
    the Main Entrance, so M1.1 still waits — then grey bay GD4 on (2,1) and (3,1)."""
    return Plan(1).stack(0, 2, "B", "G", "R05", "Y").dock("GD4", 2)


def test_a_customer_walks_through_a_docking_bay():
    """Section 6: (3,2) touches only the bay: Main Entrance -> GD4 -> Y09 counts 2."""
    plan = far_food_and_a_bay()
    assert plan.satisfied() == ["M1.2", "M1.3"]
    state = play(position(plan, left=["Y09"]), "build L1 at 3,2")
    assert customer(state, 1, "M1.1") == ("Y09", True)


def test_a_customer_never_walks_through_empty_cells():
    """Section 6: R05 on (0,4) and B04 on (2,4) have only the empty (1,4) between them: a hobby
    store on (2,5) is 2 steps away across it, but 8 tiles away through the mall."""
    plan = far_food_and_a_bay().stack(2, 2, "B", "B", "B")
    state = play(position(plan, left=["B09"]), "build L1 at 2,5")
    assert on_tile(state, "B09") == []
    assert customer(state, 1, "R05.1") == ("R05", False)
    assert customer(state, 1, "R05.2") == ("R05", False)


def statue_path(secret_met: bool) -> Plan:
    """Seat 1 (card O6, met by B01-B03 on x=0): on x=1 either the statue on (1,2)-(1,3)
    then two hobby stores, or four hobby stores, up to floor 5."""
    plan = Plan(1).stack(0, 2, "B", "B", "B")
    if secret_met:
        return plan.attraction("founders-statue", 1, 2).stack(1, 4, "B", "B")
    return plan.stack(1, 2, "B", "B", "B", "B")


def test_attraction_tiles_count_zero_toward_reach():
    """Section 6: Main Entrance -> statue (0) -> B04 (1) -> B05 (2) -> Y09 on (1,6) (3):
    within reach."""
    state = position(statue_path(True), left=["Y09"], secrets={"1": "O6", "2": "O1"})
    state = play(state, "build L1 at 1,6")
    assert customer(state, 1, "M1.1") == ("Y09", True)


def test_the_same_walk_without_the_attraction_is_out_of_reach():
    """Section 6: with stores on (1,2)-(1,5) instead, (1,6) is 5 tiles from the Main Entrance."""
    state = play(position(statue_path(False), left=["Y09"]), "build L1 at 1,6")
    assert customer(state, 1, "M1.1") == ("M1", False)
    assert on_tile(state, "Y09") == []
