"""In real Chromium: the rules at hand on the game page. Attractions, bays and balloons
are named in words and explained on hover, on keyboard focus and on a tap; an
attraction's footprint is drawn under the pointer, held by its base plate, and lands
where it is drawn. (Customer choices in words, identical ones merged: test_browser.)"""

from __future__ import annotations

import re

import pytest
from test_browser import build, open_seats, play, take_money

# L: four hobby stores for a cluster; R: what Ben turns into money; then plenty more.
ARENA_SUPPLY = ["B01", "B02", "B03", "B04", "Y01", "Y02", "G01", "G02"]
ARENA_SUPPLY += ["B05", "Y03", "B06", "Y04", "G03", "Y05", "G04", "Y06", "R01", "R02", "R05", "R06"]
ARENA_COMMONS = ["robot-arena", "haunted-hotel"]
SLUG = re.compile(r"\b(zero-g-carousel|robot-arena|haunted-hotel|founders-statue|ZGC|RA|HH|FS)\b")


def tip_of(page, term):
    return page.locator("#" + term.get_attribute("aria-describedby"))


def test_attractions_and_balloons_explain_themselves_on_hover_focus_and_tap(site, browser, shoot):
    _, pages = open_seats(site, browser, ARENA_SUPPLY, ARENA_COMMONS)
    ann = pages[1]
    term = ann.locator('tr.common[data-attraction="robot-arena"] .term')
    assert term.inner_text() == "Robot Arena"
    tip = tip_of(ann, term)
    assert not tip.is_visible()
    term.hover()
    assert tip.is_visible()
    assert tip.inner_text().startswith(
        "Robot Arena: 6 points; build it once your mall has a group of 4 hobby stores"
        " joined edge to edge."
    )
    shoot(ann, "attraction-explained", element=".commons")
    ann.mouse.move(0, 0)
    assert not tip.is_visible()
    # the keyboard: Tab reaches the name, and focus shows the explanation
    ann.locator('tr.common[data-attraction="haunted-hotel"] .term').focus()
    ann.keyboard.press("Shift+Tab")
    assert ann.evaluate("document.activeElement.textContent") == "Robot Arena"
    assert tip.is_visible()
    rainbow = ann.locator('.standings th .term:text-is("Rainbow")')
    rainbow.focus()
    assert tip_of(ann, rainbow).inner_text() == "Rainbow: most satisfied customers (1st 12)"
    # the standings explain each balloon, player by player
    lines = ann.locator(".balloon-lines li").all_inner_texts()
    assert "Rainbow: most satisfied customers (none yet) — 0" in lines
    visible = ann.locator("main").inner_text()
    assert not SLUG.search(visible), SLUG.search(visible)
    assert ann.errors == []

    # a tap on a phone shows the explanation too
    _, phones = open_seats(site, browser, ARENA_SUPPLY, ARENA_COMMONS, touch=True)
    phone = phones[2]
    statue = phone.locator(".commons .hint .term")
    assert statue.inner_text() == "Founder's Statue"
    assert not tip_of(phone, statue).is_visible()
    statue.tap()
    assert tip_of(phone, statue).is_visible()
    assert "one for each player" in tip_of(phone, statue).inner_text()
    shoot(phone, "statue-tapped", element=".commons")


def test_the_footprint_is_drawn_under_the_pointer_and_lands_there(site, browser, shoot):
    game_id, pages = open_seats(site, browser, ARENA_SUPPLY, ARENA_COMMONS)
    ann, ben = pages[1], pages[2]
    for x, y in ((0, 2), (1, 2), (0, 3), (1, 3)):  # four hobby stores side by side and stacked
        build(ann, "L1", x, y)
        ann.click("#confirm")
        flash = ann.locator(".flash").inner_text()
        assert flash.startswith("You played ") and f"from L1 at {x},{y}" in flash, flash
        take_money(ben, "R")
        ann.reload()
    offer = ann.locator('#picker button[data-offer="robot-arena"]')
    assert offer.inner_text() == "Attraction Robot Arena, 6 points"
    offer.hover()
    assert "group of 4 hobby stores" in tip_of(ann, offer).inner_text()
    ann.mouse.move(0, 0)
    assert not tip_of(ann, offer).is_visible()
    offer.focus()  # the keyboard reaches it: the explanation shows
    assert tip_of(ann, offer).is_visible()
    offer.click()  # a click or tap puts it in the preview, where nothing covers the mall
    assert ann.locator("#preview").inner_text().startswith("Robot Arena: 6 points")
    lit = ann.locator(".mall-card.yours rect.target.legal")
    assert lit.count() > 0
    # every lit cell: the footprint drawn under the pointer covers that very cell
    for i in range(lit.count()):
        cell = lit.nth(i)
        cell.hover(force=True)
        assert "ghost-legal" in cell.get_attribute("class"), (i, cell.get_attribute("data-x"))
    cell = lit.nth(0)
    x, y = int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))
    cell.hover(force=True)
    drawn = ann.evaluate(
        """Array.from(document.querySelectorAll('.mall-card.yours rect.target.ghost-legal'))
             .map(r => [Number(r.dataset.x), Number(r.dataset.y)]).sort()"""
    )
    shoot(ann, "footprint-under-pointer", element=".mall-card.yours")
    cell.click(force=True)
    assert f"base plate on {x},{y}" in ann.locator("#preview").inner_text()
    play(ann, f"attraction robot-arena at {x - 2},{y}")  # the base plate is column 2 of the shape
    state = site.parts.service.state_at(game_id)
    arena = next(t for t in state["players"][0]["tiles"] if t["id"] == "robot-arena")
    assert sorted(map(tuple, arena["cells"])) == sorted(map(tuple, drawn))
    assert (x, y) in map(tuple, arena["cells"])
    # the built attraction is named beside the drawing, explained on focus and hover
    built = ben.locator(".mall-card:not(.yours) p.built .term")
    ben.reload()
    assert built.all_inner_texts() == ["Robot Arena"]
    assert ben.locator('svg g.tile[data-tile="robot-arena"] > title').count() == 1
    built.focus()
    assert tip_of(ben, built).is_visible()
    assert tip_of(ben, built).inner_text().startswith("Robot Arena: 6 points")
    assert ann.errors == [] and ben.errors == []


@pytest.mark.parametrize("width", [375, 1280])
def test_the_rules_pages_fit_a_phone_and_a_desktop(site, browser, shoot, width):
    page = browser.new_page(viewport={"width": width, "height": 812})
    page.goto(site.url)
    page.click("header nav >> text=Rules")
    for game, title in (("mall", "Rules of Mall"), ("nim", "Rules of Nim")):
        page.click(f"text={title}")
        assert page.url == f"{site.url}/rules/{game}"
        assert page.locator("h1").inner_text() == title
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"/rules/{game} is {overflow}px wider than a {width}px screen"
        shoot(page, f"rules-{game}-{width}")
        page.goto(f"{site.url}/rules")
    page.goto(f"{site.url}/rules/mall")
    drawings = page.locator(".rules-attraction svg")
    assert drawings.count() == 11  # ten common attractions and the founder's statue
