"""docs/games/mall.md section 8: docking bays — requirements, placement beside the Main Entrance
or the other bay, one of each type, ownership, effects and end bonuses."""

import pytest

from pbem.games.mall import score

from builders import Plan, customer, docks_legal, play, position, refusal

GREY = ["GD1", "GD2", "GD3", "GD4"]
BROWN = ["BD1", "BD2", "BD3", "BD4"]


def one_of_each(seat: int = 1) -> Plan:
    """Food, hobby and fashion satisfying the Main Entrance's customers, and an entrance
    (food and hobby customers waiting on (1,3))."""
    entrance = "R13" if seat == 1 else "R14"
    return Plan(seat).put("Y", 0, 2).put("B", 1, 2).put("G", 0, 3).put(entrance, 1, 3)


def two_of_each() -> Plan:
    """Seat 1: two elements of each category; R21's customers wait on (1,5)."""
    return one_of_each().put("Y", 0, 4).put("B", 1, 4).put("G", 0, 5).put("R21", 1, 5)


def docks(bays: list[str], xs: tuple[int, ...] = (-2, 2)) -> list[str]:
    return [f"dock {bay} at {x}" for bay in bays for x in xs]


def dock_points(state, seat: int = 1) -> int:
    return score(state).scores[seat - 1].docks


# -- requirements and placement --------------------------------------------------------


def test_a_grey_bay_needs_one_element_of_each_category():
    """Section 8: a grey bay once the player has at least 1 element of each of the four
    categories."""
    state = position(one_of_each())
    assert docks_legal(state) == docks(GREY)


def test_a_brown_bay_needs_two_elements_of_each_category():
    """Section 8: a brown bay once the player has at least 2 of each."""
    state = position(one_of_each())
    assert "a brown bay needs at least 2 elements of each category" in refusal(
        state, "dock BD1 at 2"
    )
    assert docks_legal(position(two_of_each())) == docks(GREY + BROWN)


def test_no_bay_without_an_element_of_each_category():
    """Section 8: no fashion element, no grey bay."""
    plan = Plan(1).put("Y", 0, 2).put("B", 1, 2).put("R13", 0, 3)
    state = position(plan)
    assert docks_legal(state) == []
    assert "a grey bay needs at least 1 element of each category" in refusal(state, "dock GD1 at 2")


@pytest.mark.parametrize("x", [-3, 3, 4])
def test_a_first_bay_must_touch_the_main_entrance(x):
    """Section 8: the bay adjacent to the Main Entrance or to the player's other bay."""
    message = refusal(position(one_of_each()), f"dock GD1 at {x}")
    assert "must touch your Main Entrance or your other bay" in message


def test_a_bay_covers_two_cells_of_floor_1():
    """Section 8: `dock GD1 at x` puts it on (x,1) and (x+1,1)."""
    state = play(position(one_of_each()), "dock GD1 at -2")
    assert state.player(1).mall.tile["GD1"].cells == ((-2, 1), (-1, 1))


def test_the_second_bay_may_touch_the_first_bay_instead_of_the_main_entrance():
    """Section 8: with GD4 on (2,1)-(3,1), a brown bay may go on (4,1)-(5,1), touching GD4 only."""
    state = position(two_of_each().dock("GD4", 2))
    assert docks_legal(state) == docks(BROWN, (-2, 4))
    assert "must touch" in refusal(state, "dock BD1 at 5")
    state = play(state, "dock BD1 at 4")
    assert state.player(1).mall.tile["BD1"].cells == ((4, 1), (5, 1))


def test_a_brown_bay_may_come_first_and_the_grey_one_touch_it():
    """Section 8: the grey bay may touch the brown one (BD2 on (-2,1)-(-1,1))."""
    state = position(two_of_each().dock("BD2", -2))
    assert docks_legal(state) == docks(GREY, (-4, 2))


def test_a_player_owns_at_most_one_grey_and_one_brown_bay():
    """Section 8: "Each player owns at most one grey and one brown bay"."""
    state = position(two_of_each().dock("GD4", 2))
    assert "you already have a grey bay (GD4)" in refusal(state, "dock GD1 at -2")
    state = position(two_of_each().dock("GD4", 2).dock("BD4", -2))
    assert docks_legal(state) == []


def test_each_bay_belongs_to_the_first_player_who_builds_it():
    """Section 8: "each bay tile belongs to the first player who builds it"."""
    state = position(one_of_each(1), one_of_each(2))
    state = play(state, "dock GD1 at 2")
    assert state.bay_owner == {"GD1": 1}
    assert docks_legal(state) == docks(["GD2", "GD3", "GD4"])
    assert "GD1 was already built by seat 1" in refusal(state, "dock GD1 at 2")


# -- effects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bay", "wants"),
    [
        ("GD1", ["food", "fashion"]),
        ("GD2", ["hobby", "food"]),
        ("BD1", ["food", "hobby", "fashion"]),
        ("BD2", ["fashion", "hobby"]),
    ],
)
def test_customers_arrive_on_the_bay_and_wait(bay, wants):
    """Section 8: the effect table; ids `<bay>.<spot>` (section 2)."""
    state = play(position(two_of_each()), f"dock {bay} at 2")
    arrived = [c for c in state.player(1).mall.customers if c.on == bay]
    assert [(c.id, c.want, c.satisfied) for c in arrived] == [
        (f"{bay}.{spot}", want, False) for spot, want in enumerate(wants, start=1)
    ]


def test_customers_on_a_bay_move_onto_a_store_like_customers_on_an_entrance():
    """Section 8: (3,2) is next to GD1 only: GD1.1 (food) is the one customer that reaches it."""
    state = position(one_of_each(), left=["Y09"])
    state = play(state, "dock GD1 at 2", "money R", "build L1 at 3,2")
    assert customer(state, 1, "GD1.1") == ("Y09", True)
    assert customer(state, 1, "GD1.2") == ("GD1", False)


@pytest.mark.parametrize(
    ("bay", "bank", "gain"),
    [("GD3", 2, 2), ("GD3", 7, 3), ("BD3", 3, 3), ("BD3", 7, 5), ("BD3", 0, 0)],
)
def test_a_bay_paying_notes_pays_at_most_what_the_bank_holds(bay, bank, gain):
    """Section 8: GD3 gains min(3, bank), BD3 min(5, bank)."""
    state = play(position(two_of_each(), bank=bank), f"dock {bay} at 2")
    assert state.player(1).money == 3 + gain
    assert state.bank == bank - gain


@pytest.mark.parametrize(
    ("bay", "points"), [("GD1", 3), ("GD2", 3), ("GD3", 2), ("BD1", 5), ("BD2", 5), ("BD3", 4)]
)
def test_a_bay_scores_its_points(bay, points):
    """Sections 8 and 10: the points of the bay table count in the score."""
    assert dock_points(play(position(two_of_each()), f"dock {bay} at 2")) == points


@pytest.mark.parametrize(
    ("extra", "points"),
    [((), 2 + 1), (("R01", "R02", "R05"), 2 + 4), (("R01", "R02", "R05", "R06", "R09"), 2 + 5)],
)
def test_rocket_valet_adds_1_per_entrance_element_at_most_5(extra, points):
    """Section 8: GD4 with R13 and `extra` entrances stacked on the bay."""
    plan = one_of_each().dock("GD4", 2).stack(2, 2, *extra)
    assert dock_points(position(plan)) == points


@pytest.mark.parametrize(("more", "satisfied", "points"), [(False, 5, 4 + 5), (True, 9, 4 + 8)])
def test_vip_landing_adds_1_per_satisfied_customer_at_most_8(more, satisfied, points):
    """Section 8: BD4, 4 points and +1 per satisfied customer, at most +8."""
    plan = two_of_each().dock("BD4", 2)
    if more:  # R21's two customers and R01's two join the five
        plan.put("G", 0, 6).put("Y", 1, 6).put("R01", 0, 7).put("Y", 1, 7, "R01.1").put("Y", 0, 8)
    assert len(plan.satisfied()) == satisfied
    assert dock_points(position(plan)) == points
