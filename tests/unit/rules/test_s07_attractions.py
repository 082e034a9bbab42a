"""docs/games/mall.md section 7: attraction conditions, who may build what, and placing shapes —
bounding-box corners, mirroring, base-plate support and overhangs."""

import pytest

from pbem.games.mall import BuildAttraction, apply, check, format_action, parse

from builders import Plan, arena_overhang, can_build, customer, legal_texts, play, position, refusal

# -- plans that meet a condition, or fall just short of it -----------------------------


def docked(left: str, right: str) -> Plan:
    """`left` on (0,2), `right` on (1,2), the third store and R13 above them, and grey
    bay GD4 on (2,1)-(3,1), so that floor 2 runs from x=0 to x=3."""
    (top,) = (c for c in "YBG" if c not in (left, right))
    return Plan(1).put(left, 0, 2).put(right, 1, 2).put(top, 0, 3).put("R13", 1, 3).dock("GD4", 2)


def five_satisfied() -> Plan:
    return (
        Plan(1)
        .put("R13", 0, 2)
        .put("Y", 1, 2, customer="M1.1")
        .put("Y", 0, 3)
        .put("B", 1, 3, customer="M1.2")
        .put("B", 0, 4)
    )


def two_of_each_but_fashion() -> Plan:
    """Satisfied: M1.1 and R13.1 (food), M1.2 and R13.2 (hobby), M1.3 (fashion); R21's
    fashion and food customers wait on (0,5)."""
    return (
        Plan(1)
        .put("R13", 0, 2)
        .put("B", 1, 2, customer="M1.2")
        .put("G", 1, 3)
        .put("Y", 0, 3, customer="M1.1")
        .put("B", 0, 4)
        .put("Y", 1, 4)
        .put("R21", 0, 5)
    )


CONDITIONS = {
    # attraction or card: (a plan meeting it, a plan falling just short)
    "zero-g-carousel": (
        lambda: Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "B", "B", "B"),
        lambda: Plan(1).stack(0, 2, "Y", "Y", "B").stack(1, 2, "Y", "B", "B"),
    ),
    "holo-fountain": (
        lambda: docked("Y", "B").put("B", 2, 2).put("B", 3, 2),
        lambda: docked("Y", "B").put("B", 2, 2).put("B", 2, 3),
    ),
    "meteor-slide": (
        lambda: Plan(1).stack(0, 2, "B", "G", "B", "B", "B"),
        lambda: Plan(1).stack(0, 2, "B", "G", "B", "B"),
    ),
    "haunted-hotel": (
        lambda: Plan(1).put("G", 0, 2).put("G", 1, 2).put("G", 0, 3).put("G", 1, 3),
        lambda: Plan(1).put("G", 0, 2).put("G", 1, 2).put("G", 0, 3).stack(1, 3, "B", "G"),
    ),
    "giant-fishbowl": (lambda: five_satisfied().put("G", 1, 4), five_satisfied),
    "robot-arena": (
        lambda: Plan(1).put("B", 0, 2).put("B", 1, 2).put("B", 0, 3).put("B", 1, 3),
        lambda: Plan(1).put("B", 0, 2).put("B", 1, 2).put("B", 0, 3).put("Y", 1, 3),
    ),
    "galaxy-wheel": (lambda: two_of_each_but_fashion().put("G", 1, 5), two_of_each_but_fashion),
    "roller-coaster": (
        lambda: docked("Y", "B").put("G", 2, 2).put("R21", 3, 2),
        lambda: docked("Y", "B").put("G", 2, 2).put("Y", 3, 2),
    ),
    "space-elevator": (
        lambda: Plan(1).stack(0, 2, "B", "G", "B", "B", "B", "B", "B"),
        lambda: Plan(1).stack(0, 2, "B", "G", "B", "B", "B", "B"),
    ),
    "aqua-dome": (
        lambda: docked("Y", "B").stack(2, 2, "Y", "Y", "Y").stack(3, 2, "Y", "Y"),
        lambda: docked("Y", "B").stack(2, 2, "Y", "Y").stack(3, 2, "Y", "Y"),
    ),
    "O1": (
        lambda: Plan(1).stack(0, 2, "G", "G", "G"),
        lambda: Plan(1).put("G", 0, 2).put("G", 1, 2).put("G", 0, 3),
    ),
    "O2": (
        lambda: Plan(1).stack(0, 2, "R01", "R02", "R05", "R06"),
        lambda: Plan(1).stack(0, 2, "R01", "R02", "R05"),
    ),
    "O3": (
        lambda: two_of_each_but_fashion().put("G", 1, 5).put("Y", 0, 6),
        lambda: two_of_each_but_fashion().put("G", 1, 5),
    ),
    "O4": (
        lambda: docked("B", "Y").put("Y", 2, 2).put("Y", 3, 2),
        lambda: docked("B", "Y").put("Y", 2, 2).put("Y", 2, 3),
    ),
    "O5": (
        lambda: (
            Plan(1)
            .stack(0, 2, "Y", "B", "G", "R01", "Y", "B")
            .stack(1, 2, "G", "R02", "Y", "B", "G", "R05")
        ),
        lambda: (
            Plan(1)
            .stack(0, 2, "Y", "B", "G", "R01", "Y", "B")
            .stack(1, 2, "G", "R02", "Y", "B", "G")
        ),
    ),
    "O6": (
        lambda: Plan(1).stack(0, 2, "B", "B", "B"),
        lambda: Plan(1).put("B", 0, 2).put("B", 1, 2).put("B", 0, 3),
    ),
}


def in_play(condition: str, plan: Plan):
    """Seat 1 with `plan`, and the attraction (or the card) of `condition` in play."""
    if condition.startswith("O"):
        secrets = {"1": condition, "2": "O1" if condition != "O1" else "O2"}
        return position(plan, secrets=secrets), "founders-statue"
    return position(plan, commons=[condition]), condition


@pytest.mark.parametrize("condition", CONDITIONS)
def test_an_attraction_can_be_built_once_its_condition_holds(condition):
    """Section 7: each condition of the tables, met in the builder's mall."""
    state, attraction = in_play(condition, CONDITIONS[condition][0]())
    assert can_build(state, attraction)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_an_attraction_cannot_be_built_just_short_of_its_condition(condition):
    """Section 7: the same conditions, missed by one element, customer or floor."""
    state, attraction = in_play(condition, CONDITIONS[condition][1]())
    assert not can_build(state, attraction)


def test_the_condition_holds_before_placing_and_the_attractions_own_cells_never_count():
    """Section 7: height 5; meteor-slide's base plate on (0,6) would raise the mall to floor 8."""
    state = position(CONDITIONS["meteor-slide"][1](), commons=["meteor-slide"])
    assert refusal(state, "attraction meteor-slide at -2,6") == (
        "meteor-slide needs height 6 in your mall"
    )


def test_height_counts_any_cell_of_any_tile_an_attractions_too():
    """Section 7: the statue's platform on floor 6 is the mall's only cell that high."""
    plan = Plan(1).stack(0, 2, "G", "G", "G").attraction("founders-statue", 0, 5)
    state = position(plan, commons=["meteor-slide"])
    assert can_build(state, "meteor-slide")


# -- who may build -------------------------------------------------------------------


def carousel_for_both():
    """Ann and Ben both have a line of 3 food, vertical; zero-g-carousel is in play."""
    ann = Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "B", "B", "B")
    ben = Plan(2).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "B", "B", "B")
    return position(ann, ben, commons=["zero-g-carousel", "aqua-dome"])


def test_a_common_attraction_is_built_by_the_first_player_only():
    """Section 7: "A common attraction can be built by one player only, the first"."""
    state = play(carousel_for_both(), "attraction zero-g-carousel at 0,5")
    assert state.built_by == {"zero-g-carousel": 1}
    assert not can_build(state, "zero-g-carousel")
    assert refusal(state, "attraction zero-g-carousel at 0,5") == (
        "zero-g-carousel was already built by seat 1"
    )


def test_before_anyone_builds_it_every_player_meeting_the_condition_may():
    """Section 7: until it is built, a common is open to everyone meeting its condition."""
    state = play(carousel_for_both(), "money L")
    assert can_build(state, "zero-g-carousel")


def test_a_common_attraction_not_in_play_cannot_be_built():
    """Sections 3 and 7: only the commons in play can be built."""
    state = position(Plan(1).stack(0, 2, "Y", "Y", "Y"), commons=["aqua-dome"])
    assert not can_build(state, "zero-g-carousel")
    assert "not in play" in refusal(state, "attraction zero-g-carousel at 0,5")


def test_the_personal_attraction_follows_its_owners_card_only():
    """Section 7: Ann (card O1) has 4 entrance elements, which is card O2's condition."""
    state = position(CONDITIONS["O2"][0](), secrets={"1": "O1", "2": "O2"})
    assert not can_build(state, "founders-statue")
    assert "your card O1" in refusal(state, "attraction founders-statue at 1,2")


def test_each_player_builds_their_own_statue_once():
    """Section 7: "founders-statue ... one per player", built only by its owner."""
    ann = Plan(1).stack(0, 2, "G", "G", "G")
    ben = Plan(2).stack(0, 2, "R01", "R02", "R05", "R06")
    state = position(ann, ben, secrets={"1": "O1", "2": "O2"})
    state = play(state, "attraction founders-statue at 1,2", "attraction founders-statue at 1,2")
    for seat in (1, 2):
        assert "founders-statue" in state.player(seat).mall.tile
    assert not can_build(state, "founders-statue")
    assert "already built" in refusal(state, "attraction founders-statue at 0,6")


# -- placing -------------------------------------------------------------------------


def cluster_of_4_hobby():
    """Seat 1 with B01-B04 in a square on (0,2)-(1,3); robot-arena is one of two commons
    (so building it ends nothing)."""
    plan = CONDITIONS["robot-arena"][0]()
    return position(plan, commons=["robot-arena", "aqua-dome"], left=["Y09"])


def placed(state, attraction: str) -> tuple[set, set]:
    tile = state.player(1).mall.tile[attraction]
    return set(tile.cells), set(tile.platforms)


def test_at_xy_is_the_bounding_box_corner_even_where_the_shape_has_no_cell():
    """Section 7: `PP. / XXX / ..B` at -1,4: B on (1,4) above B04, corner (-1,4) left empty."""
    state = play(cluster_of_4_hobby(), "attraction robot-arena at -1,4")
    cells, platforms = placed(state, "robot-arena")
    assert cells == {(1, 4), (-1, 5), (0, 5), (1, 5), (-1, 6), (0, 6)}
    assert platforms == {(-1, 6), (0, 6)}


def test_a_mirrored_shape_is_placed_by_its_own_bounding_box():
    """Section 7: mirrored, `.PP / XXX / B..` at 1,4: the base plate is the corner itself."""
    state = cluster_of_4_hobby()
    action = check(state, parse("attraction robot-arena at 1,4 mirror"))
    assert format_action(action) == "attraction robot-arena at 1,4 mirror"
    cells, platforms = placed(apply(state, action), "robot-arena")
    assert cells == {(1, 4), (1, 5), (2, 5), (3, 5), (2, 6), (3, 6)}
    assert platforms == {(2, 6), (3, 6)}


def test_a_base_plate_needs_a_tile_directly_below_it():
    """Section 7: unmirrored at 1,4 the base plate lands on (3,4), above nothing."""
    message = refusal(cluster_of_4_hobby(), "attraction robot-arena at 1,4")
    assert "base plate at (3,4)" in message


def test_every_cell_of_the_shape_must_be_empty():
    """Section 7: at -2,3 the base plate would cover B03 on (0,3)."""
    message = refusal(cluster_of_4_hobby(), "attraction robot-arena at -2,3")
    assert "(0,3) is taken by B03" in message


def test_a_platform_over_empty_space_opens_a_new_column():
    """Section 7: the mirrored arena's platforms (2,6) and (3,6) overhang x=2 and x=3; M1.1 walks
    M1 -> B02 -> B04 -> arena (0) -> (3,7), so the new store takes it."""
    state = position(arena_overhang(), left=["Y09"])
    # (0,4) over B03 and the two platforms' upper cells; (1,6) stands on an X cell
    assert [t for t in legal_texts(state) if t.startswith("build L1 ")] == [
        "build L1 at 0,4",
        "build L1 at 2,7",
        "build L1 at 3,7",
    ]
    state = play(state, "build L1 at 3,7")
    assert customer(state, 1, "M1.1") == ("Y09", True)


def test_an_overhang_built_in_play_opens_its_columns_and_only_those():
    """Section 7: after the mirrored arena: (0,4) above B03, and (2,7), (3,7) above the platforms;
    (1,6) above the X cell (1,5) is no build cell."""
    state = play(cluster_of_4_hobby(), "attraction robot-arena at 1,4 mirror", "money R")
    builds = [t for t in legal_texts(state) if t.startswith("build L1 ")]
    assert builds == ["build L1 at 0,4", "build L1 at 2,7", "build L1 at 3,7"]
    assert "would float" in refusal(state, "build L1 at 1,6")


def test_attractions_are_listed_in_table_order_then_by_y_and_x():
    """Section 5: Ann (card O1) may build zero-g-carousel and her statue; commons given out of
    table order."""
    ann = Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "G", "G", "G")
    state = position(ann, commons=["haunted-hotel", "zero-g-carousel"])
    assert [t for t in legal_texts(state) if t.startswith("attraction")] == [
        "attraction zero-g-carousel at 0,5",
        "attraction founders-statue at 0,5",
        "attraction founders-statue at 1,5",
    ]


def test_a_base_plate_may_stand_on_any_cell_of_an_attraction():
    """Section 7: card O6: the statue may go on the arena's X cell (1,5) or its platform (2,6)."""
    plan = Plan(1).put("B", 0, 2).put("B", 1, 2).stack(0, 3, "B", "B")
    plan.attraction("robot-arena", 1, 3, mirror=True)  # X (1,4) (2,4) (3,4), P (2,5) (3,5)
    state = position(plan, secrets={"1": "O6", "2": "O1"})
    texts = legal_texts(state)
    assert "attraction founders-statue at 1,5" in texts  # on X (1,4)
    assert "attraction founders-statue at 2,6" in texts  # on P (2,5)
    statue = placed(play(state, "attraction founders-statue at 1,5"), "founders-statue")
    assert statue == ({(1, 5), (1, 6)}, {(1, 6)})


@pytest.mark.parametrize(
    ("condition", "text"),
    [
        ("O1", "attraction founders-statue at 1,5 mirror"),
        ("zero-g-carousel", "attraction zero-g-carousel at 0,5 mirror"),
    ],
)
def test_mirror_on_a_symmetric_shape_is_accepted_and_dropped(condition, text):
    """Section 5: "`mirror` on a symmetric shape is accepted and dropped"."""
    plan = CONDITIONS[condition][0]()
    if condition == "O1":
        plan.stack(1, 2, "B", "B", "B")
    state, attraction = in_play(condition, plan)
    action = check(state, parse(text))
    assert action == BuildAttraction(attraction, *map(int, text.split()[3].split(",")))
    assert format_action(action) == text.removesuffix(" mirror")
    assert not any(t.endswith("mirror") for t in legal_texts(state))


def test_placements_are_listed_by_y_then_x():
    """Section 5: attractions in the legal list by y, then x."""
    state = position(CONDITIONS["O2"][0](), secrets={"1": "O2", "2": "O1"})
    assert [t for t in legal_texts(state) if t.startswith("attraction")] == [
        "attraction founders-statue at 1,2",
        "attraction founders-statue at 0,6",
    ]
