"""docs/games/mall.md section 10: balloons by player count, every tie rule, the score and the
winners, and provisional standings."""

import pytest

from pbem.games.mall import score, view

from builders import Plan, dealt, play, position


def balloons(state, name: str) -> list[int]:
    return [s.balloons[name] for s in score(state).scores]


def satisfying(seat: int, n: int) -> Plan:
    """Seat `seat` with n (0-4) satisfied customers, each store on its own colour's
    cluster of 1: food (M.1), hobby (M.2), fashion (M.3), then a food store above an
    entrance for its first customer."""
    plan = Plan(seat)
    steps = [
        lambda p: p.put("Y", 0, 2),
        lambda p: p.put("B", 1, 2),
        lambda p: p.put("G", 0, 3),
        lambda p: p.put(f"R{12 + seat:02d}", 1, 3).put("Y", 1, 4),
    ]
    for step in steps[:n]:
        step(plan)
    assert len(plan.satisfied()) == n
    return plan


def food_column(seat: int, n: int) -> Plan:
    """A food cluster of n stacked on (0,2) (one satisfied customer), or only a hobby
    store when n is 0."""
    if n == 0:
        return Plan(seat).put("B", 0, 2)
    return Plan(seat).stack(0, 2, *["Y"] * n)


# -- values by player count ------------------------------------------------------------


@pytest.mark.parametrize(
    ("satisfied", "rainbow"),
    [
        ((3, 2), [12, 0]),
        ((3, 2, 1), [12, 8, 0]),
        ((4, 3, 2, 1), [12, 8, 4, 0]),
        ((1, 2, 4, 3), [0, 4, 12, 8]),
    ],
)
def test_rainbow_balloons_use_the_first_p_minus_1_values(satisfied, rainbow):
    """Section 10: rainbow 12, 8, 4; "each set uses only its first P − 1 values"."""
    plans = [satisfying(seat, n) for seat, n in enumerate(satisfied, start=1)]
    assert balloons(position(*plans), "rainbow") == rainbow


@pytest.mark.parametrize(
    ("sizes", "yellow"),
    [((3, 2), [8, 0]), ((1, 3, 2), [0, 8, 4]), ((4, 3, 2, 1), [8, 4, 2, 0])],
)
def test_colour_balloons_use_the_first_p_minus_1_values(sizes, yellow):
    """Section 10: yellow by largest food cluster, 8, 4, 2, first P − 1 values."""
    plans = [food_column(seat, n) for seat, n in enumerate(sizes, start=1)]
    assert balloons(position(*plans), "yellow") == yellow


def test_a_player_with_no_satisfied_customer_takes_no_rainbow_balloon():
    """Section 10: without the rule seats 2 and 3 would share the 8 of second place."""
    plans = [satisfying(1, 1), satisfying(2, 0), satisfying(3, 0)]
    assert balloons(position(*plans), "rainbow") == [12, 0, 0]


def test_a_player_with_no_store_of_a_colour_takes_no_balloon_of_it():
    """Section 10: seats 2-4 have hobby stores only; otherwise they would share 4 + 2 + 0."""
    plans = [food_column(1, 1), food_column(2, 0), food_column(3, 0), food_column(4, 0)]
    state = position(*plans)
    assert balloons(state, "yellow") == [8, 0, 0, 0]
    assert balloons(state, "green") == [0, 0, 0, 0]


# -- rainbow ties ----------------------------------------------------------------------


def two_satisfied_up_to_floor_3(seat: int) -> Plan:
    """M.1 on (0,2) and M.2 on a hobby store on (1,3), above an entrance."""
    entrance = f"R{4 + seat:02d}"  # hobby, hobby
    return Plan(seat).put("Y", 0, 2).put(entrance, 1, 2).put("B", 1, 3, customer=f"M{seat}.2")


def two_satisfied_on_floor_2(seat: int) -> Plan:
    return Plan(seat).put("Y", 0, 2).put("B", 1, 2)


@pytest.mark.parametrize("tall", [1, 2])
def test_a_rainbow_tie_goes_to_the_higher_customer(tall):
    """Section 10: rainbow ties go to the player whose highest customer stands higher."""
    plans = [
        two_satisfied_up_to_floor_3(seat) if seat == tall else two_satisfied_on_floor_2(seat)
        for seat in (1, 2)
    ]
    expected = [12 if seat == tall else 0 for seat in (1, 2)]
    assert balloons(position(*plans), "rainbow") == expected


def test_a_waiting_customer_counts_for_the_rainbow_tie():
    """Section 10: Ben's customers waiting on R11 (0,4) stand higher than Ann's M1.2 on floor 3."""
    ann = two_satisfied_up_to_floor_3(1)
    ben = two_satisfied_on_floor_2(2).stack(0, 3, "R10", "R11")
    assert balloons(position(ann, ben), "rainbow") == [0, 12]


def test_a_rainbow_tie_on_the_same_floor_shares_the_values():
    """Section 10: still tied, (12 + 0) / 2 each."""
    plans = [two_satisfied_on_floor_2(1), two_satisfied_on_floor_2(2)]
    assert balloons(position(*plans), "rainbow") == [6, 6]


# -- colour ties -----------------------------------------------------------------------


def food_pair_with_its_customer(seat: int) -> Plan:
    return Plan(seat).stack(0, 2, "Y", "Y")


def food_pair_without_customers(seat: int) -> Plan:
    """M.1 satisfied on a lone food store on (0,2); the largest food cluster, (1,3) and
    (1,4), holds no customer."""
    return Plan(seat).put("Y", 0, 2).put("B", 1, 2).stack(1, 3, "Y", "Y")


def test_a_colour_tie_goes_to_more_satisfied_customers_in_the_largest_cluster():
    """Section 10: both largest food clusters are 2; Ben's holds a customer, Ann's none."""
    ann, ben = food_pair_without_customers(1), food_pair_with_its_customer(2)
    assert balloons(position(ann, ben), "yellow") == [0, 8]


def two_largest_food_clusters() -> Plan:
    """Ann: food on (1,2)-(1,3) holding M1.1 and R01.1, and food on (1,5)-(1,6) holding
    no one (4 tiles from R01 and 4 from the Main Entrance)."""
    return (
        Plan(1)
        .put("R01", 0, 2)
        .put("Y", 1, 2, customer="M1.1")
        .put("Y", 1, 3, customer="R01.1")
        .put("B", 0, 3)
        .put("G", 0, 4)
        .put("B", 1, 4)
        .stack(1, 5, "Y", "Y")
    )


def test_with_several_largest_clusters_the_one_with_most_customers_counts():
    """Section 10: "if a player has several largest clusters, the one with most customers counts" (2
    beats Ben's 1)."""
    ann = two_largest_food_clusters()
    assert ann.satisfied() == ["M1.1", "M1.2", "M1.3", "R01.1"]
    ben = food_pair_with_its_customer(2)
    assert balloons(position(ann, ben), "yellow") == [8, 0]


def test_customers_in_a_smaller_cluster_do_not_count_for_the_tie():
    """Section 10: Ann's largest food cluster is now (1,5)-(1,7), empty; Ben's column of 3
    holds M2.1."""
    ann = two_largest_food_clusters().put("Y", 1, 7)
    ben = Plan(2).stack(0, 2, "Y", "Y", "Y")
    assert balloons(position(ann, ben), "yellow") == [0, 8]


def test_players_still_tied_share_rounded_down_places_beyond_the_values_worth_0():
    """Section 10: "a place beyond the set's values is worth 0"."""
    plans = [food_pair_with_its_customer(1), food_pair_with_its_customer(2)]
    assert balloons(position(*plans), "yellow") == [4, 4]  # (8 + 0) / 2


def test_three_tied_of_four_share_the_first_three_values_rounded_down():
    """Section 10: the sum divided by m, rounded down."""
    plans = [food_column(1, 1), food_column(2, 1), food_column(3, 1), food_column(4, 0)]
    assert balloons(position(*plans), "yellow") == [4, 4, 4, 0]  # 14 / 3


def test_a_tie_for_second_place_shares_second_and_third():
    """Section 10: the tied players share the values of the places they occupy."""
    plans = [satisfying(1, 3), satisfying(2, 1), satisfying(3, 1), satisfying(4, 1)]
    assert balloons(position(*plans), "rainbow") == [12, 4, 4, 4]  # (8 + 4 + 0) / 3


def test_a_tie_for_the_last_paid_place_shares_it_with_a_place_worth_0():
    """Section 10, P=3: places 2 and 3 are worth 8 and 0."""
    plans = [satisfying(1, 2), satisfying(2, 1), satisfying(3, 1)]
    assert balloons(position(*plans), "rainbow") == [12, 4, 4]  # (8 + 0) / 2


# -- the score and the winners ---------------------------------------------------------


def statue_and_rocket_valet() -> Plan:
    """Ann: 3 satisfied, R13's two waiting, fashion (0,3)-(0,5) for card O1, the statue
    on (1,4)-(1,5) and GD4 with 1 entrance element."""
    return (
        Plan(1)
        .put("Y", 0, 2)
        .put("B", 1, 2)
        .put("G", 0, 3)
        .put("R13", 1, 3)
        .dock("GD4", 2)
        .stack(0, 4, "G", "G")
        .attraction("founders-statue", 1, 4)
    )


def test_score_adds_balloons_attractions_bays_and_bay_bonuses():
    """Section 10: rainbow 12 (3 vs 1), yellow shared 4, blue 8, green 8, statue 6, GD4
    2 + 1: 41."""
    state = position(statue_and_rocket_valet(), food_column(2, 1))
    ann, ben = score(state).scores
    assert ann.balloons == {"rainbow": 12, "yellow": 4, "blue": 8, "green": 8}
    assert (ann.attractions, ann.docks, ann.total) == (6, 2 + 1, 41)
    assert (ben.balloons, ben.total) == ({"rainbow": 0, "yellow": 4, "blue": 0, "green": 0}, 4)
    assert score(state).winners == (1,)


def test_notes_and_waiting_customers_are_worth_nothing():
    """Section 10: "Unsatisfied customers and unused notes are worth nothing"."""
    plans = (statue_and_rocket_valet(), food_column(2, 1))
    rich, poor = position(*plans, money=40), position(*plans, money=0)
    assert [s.total for s in score(rich).scores] == [s.total for s in score(poor).scores]


@pytest.mark.parametrize(
    ("plan", "action", "points"),
    [
        (
            lambda: Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "B", "B", "B"),
            "attraction zero-g-carousel at 0,5",
            4,
        ),
        (
            lambda: Plan(1).put("G", 0, 2).put("G", 1, 2).put("G", 0, 3).put("G", 1, 3),
            "attraction haunted-hotel at 0,4",
            6,
        ),
        (lambda: Plan(1).stack(0, 2, "G", "G", "G"), "attraction founders-statue at 1,2", 6),
    ],
)
def test_an_attraction_scores_its_points(plan, action, points):
    """Sections 7 and 10: carousel 4, hotel 6, statue 6."""
    state = position(plan(), commons=["zero-g-carousel", "haunted-hotel"])
    assert score(play(state, action)).scores[0].attractions == points


def test_equal_totals_go_to_the_player_with_more_rainbow_points():
    """Section 10: Ann: rainbow 12 (2 satisfied). Ben: yellow 8 (food column of 3) + carousel 4."""
    ann = Plan(1).put("Y", 0, 2).put("R01", 1, 2).put("Y", 1, 3, customer="R01.1")
    ben = Plan(2).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "R05", "R06", "R07")
    ben.attraction("zero-g-carousel", 0, 5)
    standings = score(position(ann, ben, commons=["zero-g-carousel"]))
    assert [s.total for s in standings.scores] == [12, 12]
    assert [s.balloons["rainbow"] for s in standings.scores] == [12, 0]
    assert standings.winners == (1,)


def test_equal_totals_and_rainbow_points_share_the_victory():
    """Section 10: "still tied, they share the victory"."""
    plans = [two_satisfied_on_floor_2(1), two_satisfied_on_floor_2(2)]
    standings = score(position(*plans))
    assert [s.total for s in standings.scores] == [14, 14]  # rainbow 6, yellow 4, blue 4
    assert standings.winners == (1, 2)


def test_standings_are_provisional_while_playing_and_final_at_the_end():
    """Section 10: the same scoring while playing (provisional) and at the end (final)."""
    state = dealt([f"Y{n:02d}" for n in range(1, 9)])
    assert score(state).final is False
    state = play(state, "build L1 at 0,2", "money L")
    standings = score(state)
    assert standings.final is True
    assert [s.balloons["rainbow"] for s in standings.scores] == [12, 0]
    doc = view(state, None)
    assert doc["winners"] == [1]
    assert doc["players"][0]["score"] == {
        "rainbow": 12,
        "yellow": 8,
        "blue": 0,
        "green": 0,
        "attractions": 0,
        "docks": 0,
        "total": 20,
    }


def test_the_state_document_shows_provisional_scores_while_playing():
    """Section 10, end-of-round scoring, as docs/design.md's state document shows it."""
    doc = view(position(statue_and_rocket_valet(), food_column(2, 1)), 1)
    assert doc["status"] == "playing"
    assert doc["players"][0]["score"] == {
        "rainbow": 12,
        "yellow": 4,
        "blue": 8,
        "green": 8,
        "attractions": 6,
        "docks": 3,
        "total": 41,
    }
