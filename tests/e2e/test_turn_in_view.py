"""In real Chromium: knowing it is your turn from the tab (title and favicon, and the
count of games waiting on you in every page's title and header, following the game
live), and playing a turn with it in view: the turn panel stays in sight beside the
board on a desktop, a whole turn takes at most 6 keys from page load, the keys
(t, d, m, ?) never fire while typing, a phone folds what the turn does not need,
and a mall keeps readable labels and scrolls inside its frame."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from test_phones_and_keyboards import focused
from tour import Tour, choose_a_cell

from pbem.service.service import PlayerSpec

DESKTOP = {"width": 1280, "height": 800}
WIDE = {"width": 1920, "height": 1080}
PHONE = {"width": 375, "height": 667}


@pytest.fixture
def tour(site):
    return Tour(site)


def inside(page, selector: str) -> bool:
    """Whether the element is wholly inside the viewport (its client rectangle)."""
    return page.evaluate(
        """sel => { const r = document.querySelector(sel).getBoundingClientRect();
             return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
                    && r.right <= innerWidth; }""",
        selector,
    )


def icon(page) -> str:
    return page.evaluate("document.querySelector('link[rel=icon]').getAttribute('href')")


def test_the_tab_says_your_turn_and_every_page_counts_the_games_waiting(tour, browser):
    # Ann's browser holds her seat (her turn) and Cy's in the nim game (her turn too)
    page = tour.enter(browser, DESKTOP)
    assert re.match(r"\(your turn\) \(2\) [^(]+ \(Mall\) — Mall by mail$", page.title())
    assert icon(page).endswith("/static/favicon-turn.svg")
    assert page.locator("header .waiting-count .badge").inner_text() == "2"
    page.goto(f"{tour.site.url}/rules")
    assert page.title() == "(2) Rules — Mall by mail"
    assert icon(page).endswith("/static/favicon-turn.svg")
    assert page.locator("header .waiting-count .sr-only").inner_text() == (
        "2 games waiting for you"
    )
    page.goto(f"{tour.site.url}/my-games")
    assert page.title() == "(2) My games — Mall by mail"
    # she plays: her game page no longer says it is her turn, its favicon is plain
    page.goto(f"{tour.site.url}/g/{tour.mall}")
    choose_a_cell(page)
    page.locator("#confirm").click()
    assert page.locator(".flash").inner_text().startswith("You played ")
    assert re.match(r"\(1\) [^(]+ \(Mall\) — Mall by mail$", page.title())
    assert icon(page).endswith("/static/favicon.svg")
    # a spectator's browser is told nothing
    stranger = browser.new_context(viewport=DESKTOP).new_page()
    stranger.goto(f"{tour.site.url}/g/{tour.mall}/watch")
    assert re.match(r"[^(]+ \(Mall\) — Mall by mail$", stranger.title())
    assert stranger.locator("header .waiting-count").count() == 1
    assert stranger.locator("header .waiting-count").is_hidden()
    # in German
    page.goto(f"{tour.site.url}/language/de?next=/g/{tour.nim}")
    assert re.match(r"\(du bist am Zug\) [^(]+ \(Nim\) — ", page.title())
    assert page.errors == []


@pytest.mark.live_pages
def test_the_title_and_favicon_follow_the_turn_live_without_a_reload(site, browser):
    created = site.parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48},
        {"pile": 9},
        game="nim",
    )
    tokens = {s.seat: s.token for s in created.seats}
    game_id = created.game_id
    ben = browser.new_context(viewport=DESKTOP).new_page()
    ben.goto(f"{site.url}/g/{game_id}/{tokens[2]}")
    assert ben.title() == "Ann vs Ben (Nim) — Mall by mail"
    assert icon(ben).endswith("/static/favicon.svg")
    # Ben is at the page (typing a chat line), so it does not reload under him
    ben.evaluate("window.stayed = true")
    ben.locator("#chat-text").fill("hello")
    doc = site.parts.service.state_at(game_id)
    site.parts.service.submit_action(
        game_id, tokens[1], site.parts.service.legal(game_id, 1)[0], doc["seq"]
    )
    expect(ben).to_have_title("(your turn) Ann vs Ben (Nim) — Mall by mail", timeout=10_000)
    assert icon(ben).endswith("/static/favicon-turn.svg")
    assert ben.evaluate("window.stayed === true")  # no reload: the title moved alone
    assert ben.locator("header .waiting-count .badge").inner_text() == "1"


@pytest.mark.parametrize("size", ["1280x800", "1920x1080"])
def test_after_picking_a_tile_the_choice_preview_and_play_stay_in_view(tour, browser, size):
    page = tour.enter(browser, DESKTOP if size == "1280x800" else WIDE)
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    cell = '.mall-card.yours rect.target.legal[data-x="1"][data-y="2"]'
    page.click(cell, force=True)  # scrolls down to the mall
    assert page.locator("#preview").inner_text().startswith("build L1 at 1,2")
    for selector in ("#preview", "#confirm", ".mall-card.yours rect.target.chosen"):
        assert inside(page, selector), selector
    assert page.evaluate("scrollY") > 0 or size == "1920x1080"
    # the panel sticks: scrolled further, Play is still in sight
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(100)
    assert inside(page, "#confirm")
    assert page.evaluate("getComputedStyle(document.getElementById('turn')).position") == "sticky"
    # a keyboard user choosing a cell sees it: Enter on it scrolls it into view
    page.keyboard.press("Escape")
    page.evaluate("scrollTo(0, 0)")
    page.keyboard.press("d")
    page.keyboard.press("Enter")
    page.keyboard.press("m")
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "confirm"
    assert inside(page, ".mall-card.yours rect.target.chosen")
    assert inside(page, "#preview") and inside(page, "#confirm")
    assert page.errors == []


def test_a_whole_turn_by_keyboard_alone_takes_at_most_six_keys(tour, browser, shoot):
    page = tour.enter(browser, DESKTOP)
    page.goto(f"{tour.site.url}/g/{tour.mall}")  # from page load
    keys = []

    def press(key: str) -> None:
        keys.append(key)
        page.keyboard.press(key)

    press("d")  # the Dispenser's first tile
    assert focused(page)["slot"] == "L1"
    press("Enter")  # picked: its cells are lit
    press("m")  # your mall's first lit cell
    cell = focused(page)
    assert cell["x"] is not None and cell["label"].startswith("Build L1 at ")
    press("Enter")  # chosen: the focus is on Play, the preview says what it plays
    assert focused(page)["id"] == "confirm"
    assert page.locator("#preview").inner_text().startswith(f"build L1 at {cell['x']},{cell['y']}")
    shoot(page, "keyboard-six")
    press("Enter")  # played
    assert page.locator(".flash").inner_text().startswith("You played ")
    assert f"L1 at {cell['x']},{cell['y']}" in page.locator(".flash").inner_text()
    assert len(keys) <= 6, keys
    assert page.errors == []


def test_skip_links_come_first_and_land_on_the_parts_first_control(tour, browser):
    page = tour.enter(browser, DESKTOP)
    page.goto(f"{tour.site.url}/g/{tour.mall}")
    said = []
    for _ in range(3):
        page.keyboard.press("Tab")
        said.append(page.evaluate("document.activeElement.textContent.trim()"))
    assert said == ["Skip to your turn", "Skip to the Dispenser", "Skip to the malls"]
    assert inside(page, ".skips a:focus")  # shown while focused
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # "Skip to the Dispenser"
    assert focused(page)["slot"] == "L1"
    page.keyboard.press("Shift+Tab")
    page.locator(".skips a").first.focus()
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "turn"
    assert page.locator("#turn").get_attribute("aria-keyshortcuts") == "t"
    assert page.locator("#dispenser").get_attribute("aria-keyshortcuts") == "d"
    assert page.locator(".mall-card.yours").get_attribute("aria-keyshortcuts") == "m"
    assert "t your turn" in page.locator(".keys-line .sr-only").inner_text()
    assert page.errors == []


def test_the_keys_list_is_a_dialog_and_no_key_fires_while_typing(tour, browser):
    page = tour.enter(browser, DESKTOP)
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    assert dialog.is_visible()
    assert "Go to the Dispenser" in dialog.inner_text()
    assert focused(page)["id"] == "keys-close"
    page.keyboard.press("d")  # the keys sleep while the list is open
    assert focused(page)["id"] == "keys-close"
    page.keyboard.press("Escape")
    assert dialog.is_hidden()
    page.locator("#keys-open").click()
    assert dialog.is_visible()
    page.keyboard.press("Escape")
    assert focused(page)["id"] == "keys-open"  # back where it was
    # typing a move: every letter goes into the field
    page.locator("#move").focus()
    page.keyboard.type("dmt?")
    assert page.locator("#move").input_value() == "dmt?"
    assert focused(page)["id"] == "move"
    assert dialog.is_hidden()
    # the chat's line, too
    chat = page.locator("#chat-text")
    chat.focus()
    page.keyboard.type("mad?")
    assert chat.input_value() == "mad?"
    assert dialog.is_hidden()
    # with a modifier held nothing moves
    page.locator("#confirm").focus()
    page.keyboard.press("Alt+d")
    page.keyboard.press("Control+m")
    assert focused(page)["id"] == "confirm"
    assert page.errors == []


def screens(page) -> float:
    return page.evaluate("document.documentElement.scrollHeight / innerHeight")


def test_a_phone_folds_what_the_turn_does_not_need(tour, browser, shoot):
    page = tour.enter(browser, PHONE, has_touch=True, is_mobile=True)
    folded = screens(page)
    folds = ("details.balloon-lines", "details.log-fold", "details[data-fold=seat]")
    for fold in (*folds, ".mall-card:not(.yours) details"):
        assert page.locator(fold).first.evaluate("d => d.open") is False, fold
    assert page.locator(".mall-card.yours svg").is_visible()  # your mall stays open
    assert page.locator(".mall-card:not(.yours) svg").is_hidden()
    shoot(page, "phone-folded")
    # the others' mall is one tap away, and stays open on the next visit
    page.locator(".mall-card:not(.yours) summary").tap()
    assert page.locator(".mall-card:not(.yours) svg").is_visible()
    page.reload()
    assert page.locator(".mall-card:not(.yours) svg").is_visible()
    assert page.locator("details.log-fold").evaluate("d => d.open") is False
    page.evaluate("document.querySelectorAll('details.fold').forEach(d => d.open = true)")
    unfolded = screens(page)
    assert folded < unfolded - 1, (folded, unfolded)
    assert page.errors == []
    # a finished four-player game, in a browser that kept no fold open: the malls,
    # the balloons and the log fold
    page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(f"{tour.site.url}/g/{tour.finished}/watch")
    assert page.locator(".mall-card details[open]").count() == 0
    finished = screens(page)
    page.evaluate("document.querySelectorAll('details.fold').forEach(d => d.open = true)")
    assert finished < screens(page) / 2, (finished, screens(page))
    # on a desktop nothing is folded
    wide = tour.enter(browser, DESKTOP)
    assert wide.locator("details.fold:not([open])").count() == 0
    assert wide.errors == []


def test_a_mall_keeps_readable_labels_and_scrolls_inside_its_frame(tour, browser):
    page = tour.enter(browser, DESKTOP)
    page.goto(f"{tour.site.url}/g/{tour.finished}/watch")
    scales = page.evaluate(
        """[...document.querySelectorAll('.malls svg')].map(s =>
             s.getBoundingClientRect().width / s.viewBox.baseVal.width)"""
    )
    assert len(scales) == 4 and min(scales) >= 1.2, scales
    label = page.evaluate(
        """Math.min(...[...document.querySelectorAll('.malls svg g.tile text')].map(t =>
             t.getBoundingClientRect().height))"""
    )
    assert label >= 9.5, label  # the smallest tile label, in CSS px
    # a mall taller than its frame scrolls inside it, a named, focusable region
    frame = ".mall-card .drawing.frame"
    assert page.eval_on_selector(frame, "f => getComputedStyle(f).overflowY") == "auto"
    page.eval_on_selector(frame, "f => { f.style.maxHeight = '150px'; }")
    page.evaluate("dispatchEvent(new Event('resize'))")
    first = page.locator(frame).first
    assert first.get_attribute("tabindex") == "0" and first.get_attribute("role") == "region"
    assert first.get_attribute("aria-label").endswith(": the mall (scrolls)")
    first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(500)  # a key scrolls smoothly
    assert first.evaluate("f => f.scrollTop") > 0
    # your own mall's cells still take clicks after its frame scrolled
    ann = tour.enter(browser, DESKTOP)
    ann.eval_on_selector(".mall-card.yours .drawing.frame", "f => { f.scrollTop = 40; }")
    choose_a_cell(ann)
    assert ann.locator("#preview").inner_text().startswith("build L1 at 1,2")
    assert page.errors == [] and ann.errors == []
