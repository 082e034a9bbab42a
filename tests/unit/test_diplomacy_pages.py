"""Diplomacy's pages and mails from its state documents: the map drawn from what a
viewer may see (their own pending orders on it, nobody else's; a mail's picture
nobody's), fit for the pages' style policy (no style attribute, one <style> of
the game's `inline_styles`, every class it draws styled, ids prefixed); the
standings order; what an event changed; the rules' examples; and the partials in
German."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, PrefixLoader, select_autoescape

from pbem import i18n
from pbem.games import GAMES
from pbem.games.diplomacy import GAME, standings_order
from pbem.games.diplomacy.drawing import MAP_STYLE, STYLED, map_svg
from pbem.games.diplomacy.pages_words import EXAMPLES

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))
from german import english_left, visible_text

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus"]
PAGES = GAMES["diplomacy"].part("pages")
MAILS = GAMES["diplomacy"].part("mails")


def played(state: Any, orders: dict[int, str]) -> Any:
    """The state after each seat's orders (hold where none is given), resolved."""
    for seat in sorted(GAME.active(state)):
        checked = GAME.check(state, GAME.parse(orders.get(seat, "hold")), seat)
        state = GAME.perform(state, checked)
        while (due := GAME.resolution(state)) is not None:
            state = GAME.perform(state, due)
    return state


@pytest.fixture(scope="module")
def spring() -> Any:
    """Spring 1901 resolved (Munich and Paris bounce in Burgundy); France has
    ordered for the fall, nobody else yet."""
    state = GAME.setup(NAMES, {})
    state = played(state, {3: "A PAR - BUR\nF BRE - MAO", 4: "A MUN - BUR", 2: "F EDI - NWG"})
    return GAME.perform(state, GAME.check(state, GAME.parse("F MAO - SPA/NC\nA PAR - PIC"), 3))


def doc_of(state: Any, seat: int | None) -> dict[str, Any]:
    return {**GAME.view(state, seat), "seq": 9}


def test_the_map_shows_the_viewers_own_orders_and_nobody_elses(spring):
    before = GAME.setup(NAMES, {})
    before = played(before, {3: "A PAR - BUR\nF BRE - MAO", 4: "A MUN - BUR", 2: "F EDI - NWG"})
    france, england = doc_of(spring, 3), doc_of(spring, 2)
    assert map_svg(england, 2) == map_svg(doc_of(before, 2), 2)  # France's orders: no trace
    assert map_svg(doc_of(spring, None), None) == map_svg(doc_of(before, None), None)
    assert map_svg(france, 3) != map_svg(doc_of(before, 3), 3)  # France's own, drawn
    # a viewer never draws another's orders from their own view, whatever seat is named
    assert map_svg(england, 3) == map_svg(england, None)
    # a mail's picture is nobody's orders, even from the view of a seat that ordered
    assert MAILS.turn_picture(france, 3) == MAILS.picture(doc_of(spring, None))
    assert MAILS.picture(france) == MAILS.picture(doc_of(before, None))


def test_the_map_keeps_to_the_pages_style_policy(spring):
    for svg in (
        map_svg(doc_of(spring, 3), 3, label="x"),
        map_svg(doc_of(spring, 3), 3, last=True, prefix="last", label="y"),
        MAILS.picture(doc_of(spring, None)),
    ):
        assert svg is not None
        assert not re.search(r"\sstyle=", svg)  # no style attribute anywhere
        assert re.findall(r"<style>(.*?)</style>", svg, re.S) == [MAP_STYLE]
        assert list(PAGES.inline_styles) == [MAP_STYLE] and "CDATA" not in svg
        classes = {c for found in re.findall(r'class="([^"]*)"', svg) for c in found.split()}
        assert classes - STYLED <= {"dip-map", "shadow"}  # what the package leaves plain
        assert "<script" not in svg and not re.search(r"\son[a-z]+=", svg)
    last = map_svg(doc_of(spring, 3), 3, last=True, prefix="last")
    assert last is not None
    ids = re.findall(r'\bid="([^"]+)"', last)
    assert ids and all(i.startswith("last-") for i in ids)
    refs = re.findall(r'href="#([^"]+)"', last)
    assert refs and set(refs) <= set(ids)
    assert 'id="last-_par"' in last and PAGES.marker in last
    assert map_svg(doc_of(GAME.setup(NAMES, {}), 1), 1, last=True) is None  # nothing yet


def test_the_page_map_says_each_province_to_click_and_the_mail_picture_not(spring):
    svg = PAGES.board(doc_of(spring, 3), 3)["map"]
    shapes = re.findall(r'<path\b[^>]*\bid="map-_(\w+)" data-province="(\w+)"', svg)
    assert len(shapes) == 76  # every province (Switzerland too), once
    assert ("nat", "NAO") in shapes and ("par", "PAR") in shapes and ("mid", "MAO") in shapes
    assert all(
        province.lower() == map_id
        for map_id, province in shapes
        if map_id not in {"nat", "nrg", "mid", "gol", "tyn"}
    )
    assert re.search(r'<use id="map-unit_STP/SC" data-province="STP"', svg)
    assert re.search(r'<text\b[^>]*data-province="LYO">LYO</text>', svg)
    assert "<script" not in svg and not re.search(r"\son[a-z]+=", svg)
    last = PAGES.board(doc_of(spring, 3), 3)["last"]["map"]
    for drawing in (last, MAILS.picture(doc_of(spring, None))):
        assert drawing is not None and "data-province" not in drawing


def test_the_turn_script_knows_the_seats_own_possible_orders_only(spring):
    doc = doc_of(spring, 3)
    options = [
        {"text": GAME.format(a), "action": GAME.to_json(a), "preview": ""}
        for a in GAME.legal_actions(spring, 3)
    ]
    data = PAGES.turn(doc, 3, options)["script"]
    assert PAGES.script == "orders.js"
    assert data["possible"] == doc["possible"] and data["kind"] == "M"
    assert sorted(data["possible"]) == ["MAO", "MAR", "PAR"]  # France's units (PAR bounced)
    assert "F MAO - SPA/NC" in data["possible"]["MAO"]
    with i18n.speaking("de"):
        words = PAGES.turn(doc, 3, options)["script"]["words"]
    assert words["written"] == "In deine Befehle geschrieben: %(order)s"


def test_the_last_phase_is_told_with_every_order_and_result(spring):
    board = PAGES.board(doc_of(spring, 2), 2)
    last = board["last"]
    assert last["phase_name"] == "Spring 1901, movement"
    given = {o["power"]: o["orders"] for o in last["orders"]}
    assert given["FRANCE"] == ["A PAR - BUR", "F BRE - MAO"] and given["AUSTRIA"] == []
    assert {r["unit"]: r["results"] for r in last["results"]} == {
        "A MUN": "bounced",
        "A PAR": "bounced",
    }
    assert board["by_seat"][3]["status"] == "ordered" and board["by_seat"][2]["status"] == "waiting"
    assert board["my_orders"] == [] and "A PAR - PIC" not in str(board)


def test_the_standings_put_the_winners_first_then_the_most_centres():
    doc = doc_of(GAME.setup(NAMES, {}), None)
    assert standings_order(doc) == [6, 1, 2, 3, 4, 5, 7]  # Russia has four centres
    assert standings_order({**doc, "winners": [7, 2]}) == [2, 7, 6, 1, 3, 4, 5]


def test_what_an_event_changed_and_what_the_others_moved(spring):
    before = GAME.setup(NAMES, {})
    after = played(before, {3: "A PAR - PIC", 1: "A VIE - GAL"})
    changed = PAGES.changed(GAME.view(before, 1), GAME.view(after, 1))
    assert changed == {"resolved": True, "units": ["A GAL", "A PIC"]}
    assert PAGES.outlined(GAME.view(before, 1), GAME.view(after, 1), 1) == ["#map-_pic"]
    assert PAGES.outlined(GAME.view(before, 3), GAME.view(after, 3), 3) == ["#map-_gal"]


def test_the_rules_examples_are_orders_the_notation_reads():
    for order, _kind in EXAMPLES:
        assert GAME.format(GAME.parse(order)) == order
    context = PAGES.rules()
    assert context["victory"] == 18 and len(context["powers"]) == 7


def _environment() -> Environment:
    loaders = {name: FileSystemLoader(str(plugin.templates)) for name, plugin in GAMES.items()}
    env = Environment(
        loader=PrefixLoader(loaders),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    i18n.install(env)
    return env


def test_the_page_parts_are_german(spring):
    env = _environment()
    # the notation and the provinces' names read the same in every language
    allowed = frozenset(NAMES) | {"hold", "draw"}
    with i18n.speaking("de"):
        for seat in (3, 2, None):
            doc = doc_of(spring, seat)
            board = PAGES.board(doc, seat, your_turn=seat is not None)
            html = env.get_template("diplomacy/board.html").render(
                doc=doc, board=board, standings=standings_order(doc)
            )
            html += env.get_template("diplomacy/ordered.html").render(doc=doc, board=board)
            if seat is not None:
                options = [
                    {"text": GAME.format(a), "action": GAME.to_json(a), "preview": ""}
                    for a in GAME.legal_actions(spring, seat)
                ]
                turn = PAGES.turn(doc, seat, options)
                html += env.get_template("diplomacy/turn.html").render(
                    turn=turn, typed=None, chosen=None
                )
            assert english_left(visible_text(html), allowed=allowed) == [], seat
            assert "Letzte Phase: Frühjahr 1901, Bewegung" in html
        rules = env.get_template("diplomacy/rules.html").render(rules=PAGES.rules())
        setup = env.get_template("diplomacy/setup.html").render(form={})
    assert english_left(visible_text(rules + setup), allowed=allowed) == []
    assert "Österreich" in setup and "18 Versorgungszentren" in rules
