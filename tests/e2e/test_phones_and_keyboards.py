"""In real Chromium: every page fits a 375 px phone, the turn can be played on a phone
(a bar with the preview and Play at the bottom of the screen, the chosen cell marked,
cells at least 40 px) and with the keyboard alone (only lit cells are tab stops,
arrows move between them, Enter chooses, Escape cancels)."""

from __future__ import annotations

import pytest
from tour import DESKTOP, PHONE, Tour, choose_a_cell, visit

from pbem.games.mall.svg_common import EMPTY, contrast_ratio


@pytest.fixture
def tour(site):
    return Tour(site)


def test_no_page_is_wider_than_a_phone(tour, browser, shoot):
    page = tour.enter(browser, PHONE, every_game=True, has_touch=True, is_mobile=True)
    wide = {}
    for name, url in tour.pages().items():
        visit(page, name, url)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[name] = width
        shoot(page, f"phone-{name}")
    assert wide == {}, f"pages wider than {PHONE['width']} px: {wide}"
    assert page.errors == []


def test_no_page_breaks_its_content_security_policy(tour, browser):
    """No style (nor anything else) the browser refuses: the policy allows no style
    attribute and only the drawings' own <style>, so a page that wrote one would lose
    its look without a word. Your mall on a phone still keeps thumb-wide cells (the
    turn script sets the width the drawing names)."""
    page = tour.enter(browser, PHONE, every_game=True, has_touch=True, is_mobile=True)
    page.add_init_script(
        "window.refused = [];"
        "document.addEventListener('securitypolicyviolation', e => window.refused.push("
        "[e.effectiveDirective, e.blockedURI, e.sample].join(' ')));"
    )
    refused = {}
    for name, url in tour.pages().items():
        visit(page, name, url)
        page.wait_for_load_state("load")
        seen = page.evaluate("window.refused || []")
        if seen:
            refused[name] = seen
        if name == "seat-turn":
            mall = page.locator(".mall-card.yours svg")
            wide = float(mall.get_attribute("data-touch-width"))
            kept = page.evaluate(
                "getComputedStyle(document.querySelector('.mall-card.yours svg')).minWidth"
            )
            assert float(kept.removesuffix("px")) == pytest.approx(wide, abs=0.01)
            assert mall.get_attribute("style").startswith("--touch-width:")
    assert refused == {}, refused
    assert page.errors == []


def test_on_a_phone_the_preview_and_play_stay_on_screen_and_the_chosen_cell_is_marked(
    tour, browser, shoot
):
    page = tour.enter(browser, PHONE, has_touch=True, is_mobile=True)
    bar = page.locator(".turn-bar")
    cell = page.locator('.mall-card.yours rect.target[data-x="1"][data-y="2"]')
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    box = cell.bounding_box()
    assert box["width"] >= 40 and box["height"] >= 40, box  # big enough for a thumb
    cell.tap(force=True)
    assert page.locator("#preview").inner_text().startswith("build L1 at 1,2")
    assert cell.get_attribute("class").split() == ["target", "legal", "chosen"]
    assert cell.get_attribute("aria-pressed") == "true"
    marked = page.evaluate(
        """getComputedStyle(document.querySelector('.mall-card.yours rect.target.chosen'))
             .strokeWidth"""
    )
    assert float(marked.removesuffix("px")) >= 4
    # the cell is far down the page, yet the preview and Play are on screen beside it
    viewport = page.viewport_size
    for element in (bar, page.locator("#preview"), page.locator("#confirm")):
        where = element.bounding_box()
        assert where["y"] >= 0 and where["y"] + where["height"] <= viewport["height"], where
    assert page.evaluate("getComputedStyle(document.querySelector('.turn-bar')).position") == (
        "fixed"
    )
    shoot(page, "phone-chosen")
    page.locator("#confirm").tap()
    assert page.locator(".flash").inner_text().startswith("You played ")
    assert "L1 at 1,2" in page.locator(".flash").inner_text()
    assert page.errors == []


def test_on_a_desktop_nothing_floats_over_the_page(tour, browser):
    page = tour.enter(browser, DESKTOP)
    choose_a_cell(page)
    assert page.evaluate("getComputedStyle(document.querySelector('.turn-bar')).position") != (
        "fixed"
    )


def focused(page) -> dict:
    return page.evaluate(
        """(() => { const e = document.activeElement;
             return {tag: e.tagName.toLowerCase(), id: e.id, x: e.getAttribute('data-x'),
                     y: e.getAttribute('data-y'), slot: e.getAttribute('data-slot'),
                     label: e.getAttribute('aria-label') || e.textContent.trim()}; })()"""
    )


def tab_stops(page, selector: str) -> list:
    """Where Tab stops among the elements `selector` finds, walking the whole page
    with the key itself (Chromium's own idea of a tab stop, not the tabindex)."""
    page.locator("a.brand").focus()  # the first stop of every page
    stops = []
    for _ in range(400):
        page.keyboard.press("Tab")
        here = page.evaluate(
            """sel => { const e = document.activeElement;
                 if (!e || e === document.body) return null;
                 return e.matches(sel) ? e.getAttribute('data-x') + ',' + e.getAttribute('data-y')
                                       : ''; }""",
            selector,
        )
        if here is None:
            break
        if here:
            stops.append(here)
    return stops


def test_a_move_is_played_with_the_keyboard_alone(tour, browser, shoot):
    page = tour.enter(browser, DESKTOP)
    cells = ".mall-card.yours rect.target"
    # nothing lit yet: not one empty cell of the mall is a tab stop
    assert page.locator(cells).count() > 50
    assert tab_stops(page, cells) == []
    # Tab to the Dispenser: its tiles are one stop, arrows move between them
    page.locator("#move").focus()
    presses = 0
    while focused(page)["slot"] is None and presses < 10:
        page.keyboard.press("Tab")
        presses += 1
    assert focused(page)["slot"] == "L1", focused(page)
    assert presses <= 3
    assert focused(page)["label"].startswith("Build L1: ")  # the tile named in words
    page.keyboard.press("ArrowUp")
    assert focused(page)["slot"] == "L2"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    assert page.locator('.dispenser g.slot.picked[data-slot="L1"]').count() == 1
    # only the lit cells are tab stops, and Tab reaches the first in a few presses
    lit = page.locator(f"{cells}.legal")
    assert lit.count() >= 2
    lit_places = lit.evaluate_all(
        "rs => rs.map(r => r.getAttribute('data-x') + ',' + r.getAttribute('data-y'))"
    )
    stops = tab_stops(page, cells)
    assert len(stops) == 1 and stops[0] in lit_places, stops  # the lit cells: one stop
    page.locator('.dispenser g.slot[data-slot="L1"]').focus()
    presses = 0
    while focused(page)["x"] is None and presses < 10:
        page.keyboard.press("Tab")
        presses += 1
    assert presses <= 3, f"{presses} Tabs from the Dispenser to the first lit cell"
    first = focused(page)
    assert first["label"].startswith("Build L1 at ")
    # the arrows walk the lit cells only
    seen = {(first["x"], first["y"])}
    for key in ("ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "ArrowRight"):
        page.keyboard.press(key)
        now = focused(page)
        assert now["x"] is not None and "legal" in page.evaluate(
            "document.activeElement.getAttribute('class')"
        )
        seen.add((now["x"], now["y"]))
    assert len(seen) >= 2
    # Escape lets go of the tile: nothing lit, focus back on the Dispenser
    page.keyboard.press("Escape")
    assert page.locator(f"{cells}.legal").count() == 0
    assert focused(page)["slot"] == "L1"
    assert tab_stops(page, cells) == []
    page.locator('.dispenser g.slot[data-slot="L1"]').focus()
    # again, and this time Enter chooses the cell and Enter on Play plays it
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    while focused(page)["x"] is None:
        page.keyboard.press("Tab")
    cell = focused(page)
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "confirm"
    expect = f"build L1 at {cell['x']},{cell['y']}"
    assert page.locator("#preview").inner_text().startswith(expect)
    shoot(page, "keyboard-chosen")
    page.keyboard.press("Enter")
    assert page.locator(".flash").inner_text().startswith("You played ")
    assert f"L1 at {cell['x']},{cell['y']}" in page.locator(".flash").inner_text()
    assert page.errors == []


def test_every_control_on_the_turn_has_a_name(tour, browser):
    page = tour.enter(browser, DESKTOP)
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    nameless = page.evaluate(
        """Array.from(document.querySelectorAll(
               'button, a[href], input:not([type=hidden]), select, [tabindex], [role=button]'))
             .filter(e => e.tabIndex >= 0)
             .filter(e => !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby')
                            || (e.labels && e.labels.length) || e.textContent.trim()))
             .map(e => e.outerHTML.slice(0, 80))"""
    )
    assert nameless == []


def test_lit_cells_stand_out_from_the_empty_grid(tour, browser):
    page = tour.enter(browser, DESKTOP)
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    fill = page.evaluate(
        """(() => { const s = getComputedStyle(
               document.querySelector('.mall-card.yours rect.target.legal'));
             return [s.fill, s.fillOpacity]; })()"""
    )
    rgb, opacity = fill
    assert float(opacity) == 1.0, "a see-through lit cell takes its contrast from below"
    red, green, blue = (int(v) for v in rgb.removeprefix("rgb(").removesuffix(")").split(","))
    assert contrast_ratio(f"#{red:02x}{green:02x}{blue:02x}", EMPTY) >= 3
