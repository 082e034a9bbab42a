"""In real Chromium: every page fits a 375 px phone, the turn can be played on a phone
(a bar with the preview and Play at the bottom of the screen, the chosen cell marked,
cells at least 40 px) and with the keyboard alone (only lit cells are tab stops,
arrows move between them, Enter chooses, Escape cancels)."""

from __future__ import annotations

import pytest
from test_browser import SUPPLY, links_by_address

from pbem.games import GAMES
from pbem.games.mall.svg_common import EMPTY, contrast_ratio
from pbem.service import rows
from pbem.service.joining import join_token
from pbem.service.service import PlayerSpec

PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}


class Tour:
    """The games every page is shown with: a two-player mall game with Ann to move, a
    finished four-player mall game of bots, a nim game with Cy to move against a
    bot, and every registered game's example under way."""

    def __init__(self, site) -> None:
        self.mall = site.ann_and_ben(
            {
                "seed": "e2e",
                "supply": SUPPLY,
                "commons": ["zero-g-carousel", "aqua-dome"],
                "secrets": {"1": "O3", "2": "O5"},
            }
        )["id"]
        self.links = links_by_address(site.wait_for_mails(2))
        service = site.parts.service
        bots = [PlayerSpec(f"Bot {n}", None, "greedy") for n in range(1, 5)]
        self.finished = service.create_game(bots, {"public": True}, None).game_id
        service.play_bots(self.finished)
        assert service.state_at(self.finished)["status"] == "finished"
        nim = service.create_game(
            [PlayerSpec("Cy", "cy@example.com", None), PlayerSpec("Nim bot", None, "greedy")],
            {"public": True},
            None,
            game="nim",
        )
        self.nim = nim.game_id
        for count in range(3, 10):  # Cy's invitation, whenever it comes
            self.links.update(links_by_address(site.wait_for_mails(count)))
            if "cy@example.com" in self.links:
                break
        # a nim game Cy has won, for My games' archive (her result, replay and log)
        won = service.create_game(
            [PlayerSpec("Cy", "cy@example.com", None), PlayerSpec("Nim bot", None, "greedy")],
            None,
            {"pile": 3},
            game="nim",
        )
        service.submit_action(won.game_id, won.seats[0].token, "take 3")
        self.won = f"{site.url}/g/{won.game_id}/{won.seats[0].token}"
        self.profile = service.publish_profile("cy@example.com", "Cy")  # her public page
        # an open table of nim with a seat left, and Eve's link to take it (unused)
        opened = service.open_table([PlayerSpec("Dee", "dee@example.com")], 2, game="nim")
        self.table, self.manage = opened.table_id, opened.manage
        service.ask_to_join(opened.table_id, "Eve", "eve@example.com")
        with site.parts.database.reading() as conn:
            kind = rows.OUTBOX.c.kind == "join_confirm"
            payload = conn.execute(rows.OUTBOX.select().where(kind)).one().payload
        self.join = join_token(site.parts.settings.signing_key(), payload["nonce"])
        self.site = site
        # every registered game under way, from its examples: a seat's page on its
        # turn (the browser holds the seat), the watch and history pages
        self.examples = {name: example_under_way(service, site.url, name) for name in GAMES}

    def pages(self) -> dict[str, str]:
        """Every page a visitor meets, by a short name (the seat's own page is opened
        through its link first, see `enter`)."""
        url = self.site.url
        return {
            "home": f"{url}/",
            "new": f"{url}/new",
            "my-games": f"{url}/my-games",
            "my-games-finished": f"{url}/my-games?show=finished&game=nim",
            "profile": f"{url}/players/{self.profile}",
            "rules": f"{url}/rules",
            "seat-turn": f"{url}/g/{self.mall}",
            "seat": f"{url}/g/{self.mall}",  # with a tile and a cell chosen
            "seat-keys": f"{url}/g/{self.mall}",  # with the list of keys open
            "watch": f"{url}/g/{self.mall}/watch",
            "history": f"{url}/g/{self.mall}/history",
            "finished": f"{url}/g/{self.finished}/watch",
            "finished-history": f"{url}/g/{self.finished}/history",
            "nim": f"{url}/g/{self.nim}",  # Cy's seat, her turn
            "nim-watch": f"{url}/g/{self.nim}/watch",
            "mails": f"{url}/dev/mail",
            "mail": f"{url}/dev/mail/1",
            "created": f"{url}/new",  # an all-bot game made through the form
            "sign-in": f"{url}/my-games/sign-in/a-mailed-link",  # its button
            "sign-out": f"{url}/my-games/sign-out-everywhere/a-mailed-link",  # its button
            "error": f"{url}/g/no-such-game",
            # Ben's link in the browser holding Ann's seat: which one it is to be
            "switch-seat": self.links["ben@example.com"],
            "open": f"{url}/open",
            "open-table": f"{url}/open/{self.table}",
            "open-join": f"{url}/open/join/{self.join}",  # its button
            "open-manage": f"{url}/open/{self.table}/manage/{self.manage}",
            # the switch, then the seat's page and the history in German
            "seat-de": f"{url}/language/de?next=/g/{self.mall}",
            "history-de": f"{url}/g/{self.mall}/history",
            **{f"rules-{name}": f"{url}/rules/{name}" for name in GAMES},
            **{
                f"{name}-{page}": f"{url}/g/{game_id}{path}"
                for name, (game_id, _link) in self.examples.items()
                for page, path in (("seat", ""), ("watch", "/watch"), ("history", "/history"))
            },
        }

    def enter(self, browser, viewport: dict, **options):
        """A browser holding Ann's seat and Cy's, on Ann's game page."""
        context = browser.new_context(viewport=viewport, **options)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors
        page.goto(self.links["cy@example.com"])
        page.goto(self.won)
        for _game_id, link in self.examples.values():
            page.goto(link)
        page.goto(self.links["ann@example.com"])
        assert page.locator(".mall-card.yours").count() == 1, (
            f"Ann's link did not open her seat: {self.links}\n{page.url}\n"
            f"{page.locator('body').inner_text()[:800]}"
        )
        return page


SEATS = tuple(f"{name}-seat" for name in GAMES)  # each game's example, a seat on its turn


def example_under_way(service, url: str, name: str) -> tuple[str, str]:
    """A public game of `name` played as its first example under way says, and the
    link of a seat it waits on (its people have addresses of their own)."""
    example = next(e for e in GAMES[name].examples() if not e.ends)
    people = [PlayerSpec(n, f"{n.lower()}.{name}@example.com") for n in example.players]
    created = service.create_game(people, {"public": True}, dict(example.setup), game=name)
    tokens = {s.seat: s.token for s in created.seats}
    for seat, text in example.moves:
        service.submit_action(created.game_id, tokens[seat], text)
    seat = min(service.state_at(created.game_id)["waiting"])
    return created.game_id, f"{url}/g/{created.game_id}/{tokens[seat]}"


def visit(page, name: str, url: str) -> None:
    """Open one page of the tour; on the seat's own page, also choose a move."""
    page.goto(url)
    if name == "created":
        page.select_option("#kind1", index=1)
        page.select_option("#kind2", index=1)
        page.locator("form button[type=submit]").last.click()
        page.wait_for_url("**/new/created/**")
    if name == "seat-de":
        assert page.locator("html").get_attribute("lang") == "de"
    if name in ("seat-turn", "seat", "seat-keys", "nim", "seat-de", *SEATS):
        assert page.locator("#turn").count() == 1, (
            f"{name}: not the player's turn: {page.url}\n{page.locator('body').inner_text()[:600]}"
        )
    if name == "seat":
        choose_a_cell(page)
    if name == "seat-keys":
        page.keyboard.press("?")
        assert page.locator("dialog#keys").evaluate("d => d.open")


def choose_a_cell(page) -> None:
    """Ann picks the tile in L1 and taps a lit cell of her mall."""
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    page.click('.mall-card.yours rect.target.legal[data-x="1"][data-y="2"]', force=True)


@pytest.fixture
def tour(site):
    return Tour(site)


def test_no_page_is_wider_than_a_phone(tour, browser, shoot):
    page = tour.enter(browser, PHONE, has_touch=True, is_mobile=True)
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
    page = tour.enter(browser, PHONE, has_touch=True, is_mobile=True)
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
