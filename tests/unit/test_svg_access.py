"""The mall's drawings for people who cannot tell its colours apart or use no mouse:
every tile kind and customer want carries a shape besides its colour, the kinds differ
in greyscale, lit cells stand out from the empty grid, and no empty cell is a tab stop
until the turn script lights it (docs/games/mall.md sections 1, 2 and 6 name the kinds)."""

import itertools
import re
import xml.etree.ElementTree as ET

from pbem.games.mall import apply, load, parse, setup
from pbem.games.mall import svg_mall as drawings
from pbem.games.mall.svg_common import COLOURS, contrast_ratio
from pbem.games.mall.svg_dispenser import dispenser_svg
from pbem.games.mall.svg_mall import mall_svg

SVG = "{http://www.w3.org/2000/svg}"
SUPPLY = ["Y01", "R13", "B01", "G01", "Y02", "B02", "G02", "R14"]
SUPPLY += ["Y03", "B03", "G03", "R01", "Y04", "B04", "G04", "R02"]
KINDS = ("food", "hobby", "fashion", "entrance")
EMPTY_GRID, PAPER = "#f1f3f5", "#ffffff"  # what surrounds a lit cell: the grid, the page


def a_mall_of_every_kind():
    """Ann's mall with a food store, an entrance, a hobby store and a fashion store."""
    state = setup(
        ["Ann", "Ben"], supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}
    )
    for move in (
        "build L1 at 0,2",
        "build R1 at 1,2",
        "build L1 at 1,2",
        "money R",
        "build L1 at 0,3 for R13.2",
        "money R",
        "build L1 at 1,3",
    ):
        state = apply(state, parse(move))
    return state.player(1).mall


def drawn(**options) -> ET.Element:
    return ET.fromstring(mall_svg(a_mall_of_every_kind(), label="Ann's mall", **options))


def outline(element: ET.Element) -> tuple[str, ...]:
    """The tags of the shapes inside `element`, its words and titles left out."""
    skip = {f"{SVG}title", f"{SVG}text", f"{SVG}g"}
    return tuple(e.tag.removeprefix(SVG) for e in element.iter() if e.tag not in skip)


def test_each_kind_of_store_and_entrance_carries_its_own_shape():
    tiles = {
        g.get("data-tile"): g
        for g in drawn().iter(f"{SVG}g")
        if "tile" in g.get("class", "").split()
    }
    marks = {
        tile_id: [m.get("class") for m in g.iter(f"{SVG}g") if "kind-mark" in m.get("class", "")]
        for tile_id, g in tiles.items()
    }
    assert marks == {
        "M1": [],  # the Main Entrance says so in words
        "Y01": ["kind-mark circle"],
        "R13": ["kind-mark diamond"],
        "B01": ["kind-mark triangle"],
        "G01": ["kind-mark square"],
    }


def test_the_dispenser_marks_each_tile_with_its_kinds_shape():
    columns = {"L": ["Y07", "R13", None, None], "R": ["G02", "B11", None, None]}
    root = ET.fromstring(dispenser_svg(columns, load()))
    marks = {
        g.get("data-slot"): [m.get("class") for m in g.iter(f"{SVG}g")][1:]
        for g in root.iter(f"{SVG}g")
        if "slot" in g.get("class", "").split()
    }
    assert marks == {
        "L1": ["kind-mark circle"],
        "L2": ["kind-mark diamond", "marker circle", "marker triangle"],
        "L3": [],
        "L4": [],
        "R1": ["kind-mark square"],
        "R2": ["kind-mark triangle"],
        "R3": [],
        "R4": [],
    }


def test_a_customers_want_reads_from_its_shape_waiting_or_satisfied():
    shapes = {}
    for g in drawn().iter(f"{SVG}g"):
        if "customer" in g.get("class", "").split():
            want = next(c for c in g.get("class").split() if c.startswith("want-"))
            status = "satisfied" if "satisfied" in g.get("class") else "waiting"
            shapes.setdefault((want, status), set()).add(outline(g))
    assert shapes == {
        ("want-food", "satisfied"): {("circle", "path")},  # the shape with a tick
        ("want-food", "waiting"): {("circle", "circle")},  # the shape with a hole
        ("want-hobby", "satisfied"): {("polygon", "path")},
        ("want-hobby", "waiting"): {("polygon", "polygon")},
        ("want-fashion", "satisfied"): {("rect", "path")},
    }


def test_the_four_kinds_differ_in_greyscale_not_only_in_hue():
    ratios = {
        (one, other): round(contrast_ratio(COLOURS[one], COLOURS[other]), 2)
        for one, other in itertools.combinations(KINDS, 2)
    }
    assert min(ratios.values()) >= 1.5, ratios  # blue hobby and red entrance were 1.01


def lit_fill() -> tuple[str, float]:
    """The colour and opacity the drawing's own style gives a lit cell."""
    style = drawn(targets=True).find(f"{SVG}style").text
    rule = re.search(r"\.pbem-mall \.target\.legal\{([^}]*)\}", style)[1]
    found = dict(part.split(":", 1) for part in rule.split(";"))
    return found["fill"], float(found.get("fill-opacity", "1"))


def test_a_lit_cell_stands_out_three_to_one_from_the_grid_and_the_page():
    fill, opacity = lit_fill()
    assert opacity == 1.0  # see-through, it would take its contrast from what is below
    assert contrast_ratio(fill, EMPTY_GRID) >= 3
    assert contrast_ratio(fill, PAPER) >= 3
    assert drawings.EMPTY == EMPTY_GRID and drawings.PAPER == PAPER


def test_no_empty_cell_is_a_tab_stop_or_a_control_before_it_is_lit():
    root = drawn(targets=True)
    cells = [r for r in root.iter(f"{SVG}rect") if "target" in r.get("class", "")]
    assert len(cells) > 50
    assert [r.attrib for r in cells if {"tabindex", "role", "focusable"} & set(r.attrib)] == []
    # with cells to press the drawing is a group (an image hides its children)
    assert root.get("role") == "group"
    assert ET.fromstring(mall_svg(a_mall_of_every_kind(), label="Ben's")).get("role") == "img"


def test_a_mall_to_build_in_keeps_thumb_wide_cells_on_a_phone():
    root = drawn(targets=True)
    width = float(root.get("viewBox").split()[2])
    columns = len({r.get("data-x") for r in root.iter(f"{SVG}rect") if r.get("data-x")})
    touch = float(re.fullmatch(r"[\d.]+", root.get("data-touch-width"))[0])  # CSS px
    assert touch / width * 48 >= 40  # CSS px a cell of 48 units is drawn at
    assert touch >= columns * 40
    assert drawn().get("data-touch-width") is None  # someone else's mall shrinks to fit
    assert root.get("style") is None  # the pages allow no style attribute
