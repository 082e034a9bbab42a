"""The mall's SVG drawings (pbem/games/mall/svg_*.py), parsed as XML: malls built by legal play
or by hand (docs/games/mall.md sections 1, 2, 6, 7 and 8) and the Dispenser (section 4)."""

import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from pbem.games.mall import apply, load, parse, setup
from pbem.games.mall.mall import Mall, Tile
from pbem.games.mall.svg_common import COLOURS, contrast_ratio, text_colour, tile_colour
from pbem.games.mall.svg_dispenser import dispenser_svg
from pbem.games.mall.svg_mall import mall_svg

SVG = "{http://www.w3.org/2000/svg}"
CONTENT = load()
SUPPLY = ["Y01", "R13", "B01", "G01", "Y02", "B02", "G02", "R14"]
SUPPLY += ["Y03", "B03", "G03", "R01", "Y04", "B04", "G04", "R02"]


def played(*moves: str):
    """Ann and Ben from an explicit setup (Dispenser L: Y01 R13 B01 G01, R: Y02 B02 G02
    R14), after `moves`."""
    state = setup(
        ["Ann", "Ben"], supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}
    )
    for move in moves:
        state = apply(state, parse(move))
    return state


def ann_after_three_turns() -> Mall:
    """M1 on (0,1)-(1,1); Y01 (0,2) with M1.1; R13 (1,2) with R13.1 waiting; B01 (0,3)
    with R13.2; M1.2 and M1.3 waiting on M1."""
    state = played(
        "build L1 at 0,2",
        "build R1 at 1,2",
        "build L1 at 1,2",
        "money R",
        "build L1 at 0,3 for R13.2",
    )
    return state.player(1).mall


def hobby_square() -> Mall:
    """B01 B02 / B03 B04 over the Main Entrance; M1.2 satisfied on B01."""
    mall = Mall.start(CONTENT, 1).add(Tile("B01", "hobby", ((0, 2),)), mover="M1.2")
    for tile_id, cell in (("B02", (1, 2)), ("B03", (0, 3)), ("B04", (1, 3))):
        mall = mall.add(Tile(tile_id, "hobby", (cell,)))
    return mall


def arena_overhang() -> Mall:
    """robot-arena mirrored at 1,4 on the hobby square: base plate (1,4) on B04, X cells
    (1,5) (2,5) (3,5), platforms (2,6) (3,6) over the empty columns 2 and 3."""
    cells = ((1, 4), (1, 5), (2, 5), (3, 5), (2, 6), (3, 6))
    arena = Tile("robot-arena", "attraction", cells, frozenset({(2, 6), (3, 6)}), mirror=True)
    return hobby_square().add(arena)


def statue_on_main() -> Mall:
    """founders-statue on (0,2) (base plate, on M1) and (0,3) (platform)."""
    statue = Tile("founders-statue", "attraction", ((0, 2), (0, 3)), frozenset({(0, 3)}))
    return Mall.start(CONTENT, 1).add(statue)


def classes(element: ET.Element) -> list[str]:
    return (element.get("class") or "").split()


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if kind in classes(g)]


def tiles(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("data-tile"): g for g in groups(root, "tile")}


def title(element: ET.Element) -> str:
    return element.find(f"{SVG}title").text


def cells(group: ET.Element, kind: str = "cell") -> list[tuple[int, int]]:
    return [
        (int(r.get("data-x")), int(r.get("data-y")))
        for r in group.iter(f"{SVG}rect")
        if kind in classes(r)
    ]


def texts(element: ET.Element, kind: str | None = None) -> list[str]:
    return [t.text for t in element.iter(f"{SVG}text") if kind is None or kind in classes(t)]


def drawn(mall: Mall, **options) -> ET.Element:
    return ET.fromstring(mall_svg(mall, label="Ann's mall", **options))


# -- tiles (docs/games/mall.md sections 1, 2, 7, 8) ---------------------------------------------


def test_each_tile_is_one_group_with_its_kind_and_title():
    root = drawn(ann_after_three_turns())
    assert {tile_id: classes(g) for tile_id, g in tiles(root).items()} == {
        "M1": ["tile", "kind-main"],
        "Y01": ["tile", "kind-food"],
        "R13": ["tile", "kind-entrance"],
        "B01": ["tile", "kind-hobby"],
    }
    assert {tile_id: title(g) for tile_id, g in tiles(root).items()} == {
        "M1": "M1: Main Entrance",
        "Y01": "Y01 Burger Bar (food)",
        "R13": "R13 entrance (customers want food, hobby)",
        "B01": "B01 Arcade (hobby)",
    }


def test_each_cell_of_a_tile_is_one_rect_in_the_tiles_colour():
    root = drawn(ann_after_three_turns())
    assert {tile_id: cells(g) for tile_id, g in tiles(root).items()} == {
        "M1": [(0, 1), (1, 1)],
        "Y01": [(0, 2)],
        "R13": [(1, 2)],
        "B01": [(0, 3)],
    }
    fills = {
        tile_id: {r.get("fill") for r in g.iter(f"{SVG}rect")} for tile_id, g in tiles(root).items()
    }
    assert fills == {
        "M1": {COLOURS["main"]},
        "Y01": {COLOURS["food"]},
        "R13": {COLOURS["entrance"]},
        "B01": {COLOURS["hobby"]},
    }


def test_tiles_show_their_id_and_shortened_store_name():
    mall = Mall.start(CONTENT, 2).add(Tile("Y17", "food", ((0, 2),)), mover="M2.1")
    mall = mall.add(Tile("R21", "entrance", ((1, 2),)), arrivals=("fashion", "food"))
    found = {tile_id: texts(g) for tile_id, g in tiles(drawn(mall)).items()}
    assert found == {
        "M2": ["M2", "Main Entrance"],
        "Y17": ["Y17", "Cosmic", "Creamery"],
        "R21": ["R21"],
    }


def test_docking_bays_are_grey_or_brown_with_id_name_and_points():
    mall = Mall.start(CONTENT, 1).add(Tile("GD2", "dock", ((2, 1), (3, 1))), ("hobby", "food"))
    mall = mall.add(Tile("BD3", "dock", ((-2, 1), (-1, 1))))
    found = tiles(drawn(mall))
    assert title(found["GD2"]) == (
        "GD2 Buggy Port: grey docking bay, 3 points;"
        " when built, 2 customers arrive on it, wanting hobby and food"
    )
    assert title(found["BD3"]) == (
        "BD3 Freight Hub: brown docking bay, 4 points;"
        " when built, you take up to 5 notes from the bank"
    )
    assert cells(found["GD2"]) == [(2, 1), (3, 1)]
    assert {r.get("fill") for r in found["GD2"].iter(f"{SVG}rect")} == {COLOURS["grey"]}
    assert {r.get("fill") for r in found["BD3"].iter(f"{SVG}rect")} == {COLOURS["brown"]}
    assert texts(found["GD2"]) == ["GD2", "Buggy Port"]


def test_attraction_platform_cells_are_marked_section_7():
    found = tiles(drawn(statue_on_main()))
    statue = found["founders-statue"]
    assert classes(statue) == ["tile", "kind-attraction"]
    assert title(statue) == "Founder's Statue: personal attraction, 6 points; platform cells (0,3)"
    assert cells(statue) == [(0, 2), (0, 3)]
    assert cells(statue, "platform") == [(0, 3)]
    assert len([p for p in statue.iter(f"{SVG}path") if "deck" in classes(p)]) == 1
    assert {r.get("fill") for r in statue.iter(f"{SVG}rect")} == {COLOURS["orange"]}
    assert texts(statue) == ["Founder's", "Statue"]  # its name, never a slug or initials


def test_mirrored_overhanging_attraction_marks_its_two_platforms():
    arena = tiles(drawn(arena_overhang()))["robot-arena"]
    assert title(arena) == (
        "Robot Arena: attraction, 6 points; needs a group of 4 hobby stores joined edge to"
        " edge; platform cells (2,6) (3,6)"
    )
    assert sorted(cells(arena)) == [(1, 4), (1, 5), (2, 5), (2, 6), (3, 5), (3, 6)]
    assert sorted(cells(arena, "platform")) == [(2, 6), (3, 6)]
    assert {r.get("fill") for r in arena.iter(f"{SVG}rect")} == {COLOURS["purple"]}
    assert texts(arena) == ["Robot", "Arena"]  # the name once, not on every cell


def test_changed_tiles_carry_the_class_and_a_highlight():
    root = drawn(ann_after_three_turns(), changed=frozenset({"B01"}))
    highlighted = {
        tile_id: ("changed" in classes(g), len([p for p in g if "highlight" in classes(p)]))
        for tile_id, g in tiles(root).items()
    }
    assert highlighted == {
        "M1": (False, 0),
        "Y01": (False, 0),
        "R13": (False, 0),
        "B01": (True, 1),
    }


# -- customers (docs/games/mall.md section 6) -----------------------------------------------------


def customers(root: ET.Element) -> dict[str, tuple[list[str], str, str]]:
    return {
        g.get("data-customer"): (classes(g), g.get("data-on"), title(g))
        for g in groups(root, "customer")
    }


def test_a_built_store_satisfies_the_customer_who_reaches_it():
    root = drawn(played("build L1 at 0,2").player(1).mall)
    assert customers(root) == {
        "M1.1": (
            ["customer", "want-food", "satisfied"],
            "Y01",
            "M1.1 wants food — satisfied on Y01",
        ),
        "M1.2": (["customer", "want-hobby", "waiting"], "M1", "M1.2 wants hobby — waiting on M1"),
        "M1.3": (
            ["customer", "want-fashion", "waiting"],
            "M1",
            "M1.3 wants fashion — waiting on M1",
        ),
    }


def test_the_named_customer_is_satisfied_and_the_others_keep_waiting():
    found = customers(drawn(ann_after_three_turns()))
    assert {cid: (kind[2], on) for cid, (kind, on, _) in found.items()} == {
        "M1.1": ("satisfied", "Y01"),
        "M1.2": ("waiting", "M1"),
        "M1.3": ("waiting", "M1"),
        "R13.1": ("waiting", "R13"),
        "R13.2": ("satisfied", "B01"),
    }
    assert found["R13.2"][2] == "R13.2 wants hobby — satisfied on B01"


def test_each_customer_is_drawn_on_the_tile_it_stands_on():
    root = drawn(ann_after_three_turns())
    boxes = {}
    for tile_id, g in tiles(root).items():
        rects = list(g.iter(f"{SVG}rect"))
        xs = [float(r.get("x")) for r in rects]
        ys = [float(r.get("y")) for r in rects]
        boxes[tile_id] = (min(xs), min(ys), max(xs) + 48, max(ys) + 48)
    standing = {}
    for g in groups(root, "customer"):
        marker = g.find(f"{SVG}g")
        x, y = float(marker.get("data-cx")), float(marker.get("data-cy"))
        standing[g.get("data-customer")] = [
            tile_id for tile_id, (x0, y0, x1, y1) in boxes.items() if x0 < x < x1 and y0 < y < y1
        ]
    assert standing == {
        "M1.1": ["Y01"],
        "M1.2": ["M1"],
        "M1.3": ["M1"],
        "R13.1": ["R13"],
        "R13.2": ["B01"],
    }


def test_customers_on_one_tile_stand_side_by_side_on_it_and_differ_in_shape():
    root = drawn(Mall.start(CONTENT, 1), cell=48)
    main = tiles(root)["M1"]
    left = min(float(r.get("x")) for r in main.iter(f"{SVG}rect"))
    markers = {}
    for g in groups(root, "customer"):
        marker = g.find(f"{SVG}g")
        shapes = [e.tag.removeprefix(SVG) for e in g.iter() if e.tag != f"{SVG}g"][1:]
        markers[g.get("data-customer")] = (float(marker.get("data-cx")) - left, shapes)
    # three waiting customers spread over the two cells (96 units), each its want's
    # shape with a hole of that shape (food a circle, hobby a triangle, fashion a square)
    assert markers == {
        "M1.1": (16.0, ["circle", "circle"]),
        "M1.2": (48.0, ["polygon", "polygon"]),
        "M1.3": (80.0, ["rect", "rect"]),
    }
    satisfied = groups(drawn(played("build L1 at 0,2").player(1).mall), "satisfied")
    assert [
        (len(list(g.iter(f"{SVG}circle"))), len(list(g.iter(f"{SVG}path")))) for g in satisfied
    ] == [
        (1, 1)  # a solid disc (food) and a tick
    ]


# -- the drawn area, targets and labels --------------------------------------------------


def test_targets_cover_exactly_the_empty_cells_of_the_drawn_area():
    mall = ann_after_three_turns()  # columns 0..1, floors 1..3
    root = drawn(mall, targets=True)
    found = [
        (int(r.get("data-x")), int(r.get("data-y")))
        for r in root.iter(f"{SVG}rect")
        if "target" in classes(r)
    ]
    area = {(x, y) for x in range(-4, 6) for y in range(1, 9)}
    occupied = {(0, 1), (1, 1), (0, 2), (1, 2), (0, 3)}
    assert len(found) == len(area) - len(occupied) == 75
    assert set(found) == area - occupied
    last = list(root)[-1]  # painted above everything else
    assert classes(last) == ["targets"]
    assert {r.get("fill") for r in last} == {"transparent"}


def test_no_targets_unless_asked():
    root = drawn(ann_after_three_turns())
    assert [r for r in root.iter(f"{SVG}rect") if "target" in classes(r)] == []


def test_the_drawn_area_has_four_spare_columns_each_side_and_five_floors_above():
    root = drawn(arena_overhang())  # columns 0..3, floors 1..6
    assert texts(root, "floor-label") == [str(y) for y in range(1, 12)]
    assert texts(root, "column-label") == [str(x) for x in range(-4, 8)]
    targets = [
        r
        for r in drawn(arena_overhang(), targets=True).iter(f"{SVG}rect")
        if "target" in classes(r)
    ]
    assert min(int(r.get("data-y")) for r in targets) == 1  # nothing below floor 1
    assert max(int(r.get("data-y")) for r in targets) == 11


def test_the_svg_scales_and_is_named_and_described():
    root = drawn(ann_after_three_turns())
    assert root.tag == f"{SVG}svg"
    assert (root.get("width"), root.get("preserveAspectRatio"), root.get("role")) == (
        "100%",
        "xMidYMid meet",
        "img",
    )
    # 0.6-cell gutter + 10 columns + 0.25-cell pad wide; 0.25 + 8 floors + 0.6 high
    assert root.get("viewBox") == "0 0 520.8 424.8"
    named = {e.get("id"): e.text for e in root.iter() if e.get("id")}
    assert named[root.get("aria-labelledby")] == "Ann's mall"
    assert named[root.get("aria-describedby")] == (
        "4 tiles up to floor 3 (Main Entrance, 1 food, 1 hobby, 1 entrance); "
        "2 customers satisfied, 3 waiting."
    )
    style = root.find(f"{SVG}style").text
    for rule in (
        ".pbem-mall .target.legal{",
        ".pbem-mall .target:focus{",
        ".pbem-mall .changed",
        ".pbem-mall .ghost{",
        ".pbem-mall .ghost:not(.target){pointer-events:none}",
    ):
        assert rule in style


def test_ids_are_unique_when_a_page_shows_several_malls():
    state = played("build L1 at 0,2", "build R1 at 1,2")
    page = "".join(
        [
            "<div>",
            mall_svg(state.player(1).mall, label="Ann's mall"),
            mall_svg(state.player(2).mall, label="Ben's mall"),
            mall_svg(state.player(2).mall, label="Ben's mall", id_prefix="seat-2-before"),
            dispenser_svg({"L": ["Y01", None, None, None], "R": [None] * 4}, CONTENT),
            "</div>",
        ]
    )
    ids = [e.get("id") for e in ET.fromstring(page).iter() if e.get("id")]
    assert len(ids) == 8
    assert len(set(ids)) == 8


def test_names_and_labels_from_data_are_escaped():
    odd = '<Tom & "Jerry\'s">'
    content = replace(
        CONTENT, elements={**CONTENT.elements, "Y01": replace(CONTENT.elements["Y01"], name=odd)}
    )
    mall = Mall(content, (Tile("M1", "main", ((0, 1), (1, 1))), Tile("Y01", "food", ((0, 2),))), ())
    text = mall_svg(mall, label=f"{odd}'s mall")
    assert "<Tom" not in text
    root = ET.fromstring(text)
    assert root.find(f"{SVG}title").text == f"{odd}'s mall"
    assert title(tiles(root)["Y01"]) == f"Y01 {odd} (food)"
    dispenser = ET.fromstring(dispenser_svg({'L"<': ["Y01"]}, content, label=odd))
    slot = {g.get("data-slot"): g for g in groups(dispenser, "slot")}['L"<1']
    assert (slot.get("data-slot"), slot.get("data-tile"), title(slot)) == (
        'L"<1',
        "Y01",
        f'L"<1: Y01 {odd} (food); costs 0 notes',
    )


# -- the Dispenser (docs/games/mall.md section 4) --------------------------------------------------


def test_dispenser_slots_carry_their_slot_tile_and_cost():
    columns = {"L": ["Y07", "R13", None, None], "R": ["G02", "B11", "Y20", "R21"]}
    root = ET.fromstring(dispenser_svg(columns, CONTENT))
    found = {
        g.get("data-slot"): (classes(g), g.get("data-tile"), g.get("data-cost"), title(g))
        for g in groups(root, "slot")
    }
    assert found == {
        "L4": (["slot", "empty"], None, "3", "L4: empty"),
        "R4": (
            ["slot"],
            "R21",
            "3",
            "R4: R21 entrance (customers want fashion, food); costs 3 notes",
        ),
        "L3": (["slot", "empty"], None, "2", "L3: empty"),
        "R3": (["slot"], "Y20", "2", "R3: Y20 Cosmic Creamery (food); costs 2 notes"),
        "L2": (["slot"], "R13", "1", "L2: R13 entrance (customers want food, hobby); costs 1 note"),
        "R2": (["slot"], "B11", "1", "R2: B11 Zero-G Gym (hobby); costs 1 note"),
        "L1": (["slot"], "Y07", "0", "L1: Y07 Burger Bar (food); costs 0 notes"),
        "R1": (["slot"], "G02", "0", "R1: G02 Boot Orbit (fashion); costs 0 notes"),
    }
    assert list(found) == ["L4", "R4", "L3", "R3", "L2", "R2", "L1", "R1"]  # row 4 on top
    assert texts(root, "cost") == ["costs 3", "costs 2", "costs 1", "costs 0"]
    assert texts(root, "column-label") == ["L", "R"]
    assert texts(root, "row-label") == ["4", "3", "2", "1"]


def test_dispenser_shows_store_names_and_entrance_wants():
    columns = {"L": ["Y07", "R13", None, None], "R": ["G02", "B11", "Y20", "R21"]}
    root = ET.fromstring(dispenser_svg(columns, CONTENT))
    slots = {g.get("data-slot"): g for g in groups(root, "slot")}
    assert texts(slots["L2"]) == ["R13", "food", "hobby"]
    assert texts(slots["R3"]) == ["Y20", "Cosmic", "Creamery"]
    assert texts(slots["L1"]) == ["Y07", "Burger", "Bar"]
    assert texts(slots["L3"]) == []
    faces = {name: g.find(f"{SVG}rect[@class='face']") for name, g in slots.items()}
    assert faces["R4"].get("fill") == COLOURS["entrance"]
    assert faces["R2"].get("fill") == COLOURS["hobby"]


def test_dispenser_is_named_and_described():
    root = ET.fromstring(
        dispenser_svg({"L": ["Y07", None, None, None], "R": ["G02"] + [None] * 3}, CONTENT)
    )
    named = {e.get("id"): e.text for e in root.iter() if e.get("id")}
    assert (root.get("role"), named[root.get("aria-labelledby")]) == ("img", "The Dispenser 3000")
    assert named[root.get("aria-describedby")] == (
        "column L, bottom to top: Y07, empty, empty, empty; "
        "column R, bottom to top: G02, empty, empty, empty."
    )


# -- the palette -----------------------------------------------------------------------


def test_text_on_every_colour_of_the_palette_is_readable():
    ratios = {
        name: round(contrast_ratio(text_colour(fill), fill), 1) for name, fill in COLOURS.items()
    }
    assert all(ratio >= 4.5 for ratio in ratios.values()), ratios


def test_tile_colour_names_the_games_colours():
    assert [tile_colour(k) for k in ("food", "hobby", "fashion", "entrance")] == [
        "#f5c518",
        "#2563c9",
        "#3fae5a",
        "#7f1d1d",
    ]
    with pytest.raises(ValueError, match="no colour for 'teal'"):
        tile_colour("teal")
