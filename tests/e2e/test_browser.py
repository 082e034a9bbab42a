"""In real Chromium: create a game in the form, read the invitations from the SMTP
catcher, open both links, and play turns by clicking — a build with a customer
choice, money, an attraction, a bay — see an illegal move's reason, step through the
history, and watch as a spectator; and a game of nim made on the New game page and
played against a bot to its end."""

from __future__ import annotations

import re

import pytest
from hidden import shows

from pbem.games.mall.explain import attraction_name

SUPPLY = [
    "R01",
    "Y01",
    "Y02",
    "Y03",
    "Y05",
    "Y06",
    "Y07",
    "Y08",  # L1..L4, R1..R4
    "B01",
    "Y09",
    "G01",
    "Y10",
    "G02",
    "Y11",
    "G03",
    "Y12",
    "B02",
    "B03",
    "B04",
    "B05",
    "B06",
    "G04",
    "G05",
    "G06",
    "R05",
    "R06",
]
LINK = re.compile(r"http://127\.0\.0\.1:\d+/g/\w+/[\w-]+")


def links_by_address(mails) -> dict[str, str]:
    return {
        m["To"].addresses[0].addr_spec: LINK.search(m.get_body(("plain",)).get_content())[0]
        for m in mails
    }


def test_a_game_created_in_the_form_mails_each_player_a_link_that_opens_it(site, browser, shoot):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site.url}/new")
    page.fill("#name1", "Ann")
    page.fill("#email1", "ann@example.com")
    page.fill("#name2", "Ben")
    page.fill("#email2", "ben@example.com")
    page.check("#public")
    page.click("text=Create the game and send the invitations")
    assert page.locator("ul.mailed li").all_inner_texts() == [
        "seat 1, Ann: to ann@example.com",
        "seat 2, Ben: to ben@example.com",
    ]
    shoot(page, "created")
    links = links_by_address(site.wait_for_mails(2))
    assert sorted(links) == ["ann@example.com", "ben@example.com"]
    for link in links.values():
        assert link not in page.content()  # the creator never sees the links
    page.goto(links["ann@example.com"])
    assert re.fullmatch(rf"{site.url}/g/\w+", page.url)  # the token left the address bar
    assert page.locator("#turn-h").inner_text() == "Your turn"
    shoot(page, "ann")


def open_seats(site, browser, supply=SUPPLY, commons=("zero-g-carousel", "aqua-dome"), touch=False):
    """A game with a known deal, created through the API; each player opens the
    link from their invitation in a browser of their own (a phone's with `touch`)."""
    setup = {"seed": "e2e", "supply": supply, "commons": list(commons)}
    game_id = site.ann_and_ben({**setup, "secrets": {"1": "O3", "2": "O5"}})["id"]
    links = links_by_address(site.wait_for_mails(2))
    size = {"width": 375, "height": 812} if touch else {"width": 1100, "height": 900}
    pages = {}
    for seat, address in ((1, "ann@example.com"), (2, "ben@example.com")):
        context = browser.new_context(viewport=size, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.errors = errors
        page.goto(links[address])
        pages[seat] = page
    return game_id, pages


def told(action: str) -> str:
    """Where the narration of a mall action says it went, by name ("build L1 at 0,2"
    is told "... from L1 at 0,2", "attraction zero-g-carousel at 0,5" is "Zero-G
    Carousel at 0,5"); a nim action is told as written."""
    words = action.split()
    if words[0] == "build":
        return f"from {words[1]} at {words[3]}"
    if words[0] == "money":
        return f"from {words[1]}1 as money"
    if words[0] == "attraction":
        return f"{attraction_name(words[1])} at {words[3]}"
    if words[0] == "dock":
        return f"at column {words[3]}"
    return action


def play(page, expect: str) -> None:
    """Confirm the chosen action; the page comes back saying what it did."""
    assert page.locator("#preview").inner_text().startswith(expect)
    page.click("#confirm")
    flash = page.locator(".flash").inner_text()
    assert flash.startswith("You played ") and told(expect) in flash, flash


def build(page, slot: str, x: int, y: int, customer: str | None = None) -> None:
    page.click(f'.dispenser svg g.slot[data-slot="{slot}"]')
    page.click(f'.mall-card.yours rect.target.legal[data-x="{x}"][data-y="{y}"]', force=True)
    if customer:
        page.click(f'#chooser button:text-is("{customer}")')


def take_money(page, column: str) -> None:
    page.reload()
    page.click(f"text=Take money from {column}")
    play(page, f"money {column}")


def test_two_players_play_by_clicking_and_a_spectator_watches(site, browser, shoot):
    game_id, pages = open_seats(site, browser)
    ann, ben = pages[1], pages[2]

    # Ann: an entrance, then a food store three of her customers could reach
    build(ann, "L1", 1, 2)
    play(ann, "build L1 at 1,2")
    take_money(ben, "R")
    ann.reload()
    build(ann, "L1", 0, 2)
    choices = ann.locator("#chooser button").all_inner_texts()
    assert choices == [  # in words, R01's two food customers as one choice
        "The customer wanting food, from the Main Entrance",
        "A customer wanting food, from entrance R01 (one of 2 alike)",
    ]
    shoot(ann, "customer-choice")
    ann.click(
        '#chooser button:text-is("A customer wanting food, from entrance R01 (one of 2 alike)")'
    )
    assert "A customer wanting food, from entrance R01" in ann.locator("#preview").inner_text()
    play(ann, "build L1 at 0,2 for R01.1")
    assert "moves from Entrance (R01) to Burger Bar (Y01)" in ann.locator(".flash").inner_text()

    # an illegal typed move comes back with the rule, and the text is kept
    take_money(ben, "R")
    ann.reload()
    ann.fill("#move", "build L4 at 5,5")
    ann.click("#confirm")
    assert "(5,5) would float: nothing below supports it" in ann.locator(".error").inner_text()
    assert ann.locator("#move").input_value() == "build L4 at 5,5"
    shoot(ann, "illegal")
    ann.fill("#move", "")

    main_food = "The customer wanting food, from the Main Entrance"
    for slot_x_y_customer in ((0, 3, main_food), (0, 4, None), (1, 3, None), (1, 4, None)):
        x, y, customer = slot_x_y_customer
        build(ann, "L1", x, y, customer)
        ann.click("#confirm")
        flash = ann.locator(".flash").inner_text()
        assert flash.startswith("You played ") and f"from L1 at {x},{y}" in flash, flash
        take_money(ben, "R")
        ann.reload()

    # an attraction: its footprint follows the pointer, a click places it
    ann.click("text=Attraction Zero-G Carousel, 4 points")
    corner = '.mall-card.yours rect.target[data-x="0"][data-y="5"]'
    ann.hover(corner, force=True)
    assert ann.locator(".mall-card.yours rect.target.ghost-legal").count() == 4
    shoot(ann, "attraction-footprint", element=".mall-card.yours")
    ann.click(corner, force=True)
    play(ann, "attraction zero-g-carousel at 0,5")
    take_money(ben, "R")

    # a docking bay beside the Main Entrance
    ann.reload()
    bay = ann.locator('#picker button[data-offer="GD1"]')
    assert (
        bay.inner_text()
        == "Bay Shuttle Stop (GD1), 3 points, needs 1 element of each of the 4 kinds"
    )
    bay.click()
    ann.click('.mall-card.yours rect.target.legal[data-x="2"][data-y="1"]', force=True)
    play(ann, "dock GD1 at 2")
    assert "2 customers arrive" in ann.locator(".flash").inner_text()
    shoot(ann, "after-the-bay")

    state = site.parts.service.state_at(game_id)
    tiles = [t["id"] for t in state["players"][0]["tiles"]]
    assert tiles == ["M1", "R01", "Y01", "Y02", "Y03", "B01", "G01", "zero-g-carousel", "GD1"]
    assert state["commons"][0] == {"id": "zero-g-carousel", "built_by": 1}

    # the history: back and forth, and the slider
    ann.click("text=Step through the history")
    history_h1 = "History of Ann vs Ben: step"  # the game by its players' names
    assert ann.locator("h1").inner_text() == f"{history_h1} {state['seq']} of {state['seq']}"
    assert ann.locator("p.game-id").inner_text() == f"game {game_id}"  # small, for support
    ann.click("#prev")
    assert ann.locator("h1").inner_text().endswith(f"step {state['seq'] - 1} of {state['seq']}")
    ann.click("#next")
    assert ann.locator("h1").inner_text().endswith(f"step {state['seq']} of {state['seq']}")
    ann.locator("#at").fill("2")
    ann.locator("#at").dispatch_event("change")
    ann.wait_for_url(re.compile(r"at=2"))
    assert ann.locator("h1").inner_text() == f"{history_h1} 2 of {state['seq']}"
    assert ann.locator('.mall-card g.tile.changed[data-tile="R01"]').count() == 1
    shoot(ann, "history")

    # a spectator sees the game, no secret card, no turn form
    spectator = browser.new_page(viewport={"width": 375, "height": 800})
    spectator.goto(f"{site.url}/g/{game_id}/watch")
    assert "You are watching." in spectator.locator(".status").inner_text()
    assert spectator.locator("#turn").count() == 0
    assert not shows(spectator.content(), "O3") and not shows(spectator.content(), "O5")
    shoot(spectator, "spectator-phone")
    assert ann.errors == [] and ben.errors == []


@pytest.mark.parametrize("width", [375, 1280])
def test_the_player_page_fits_a_phone_and_a_desktop(site, browser, shoot, width):
    _, pages = open_seats(site, browser)
    page = pages[1]
    page.set_viewport_size({"width": width, "height": 800})
    page.reload()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a {width}px screen"
    unlabelled = page.evaluate(
        """Array.from(document.querySelectorAll('input:not([type=hidden]), select'))
             .filter(e => !e.labels || e.labels.length === 0).map(e => e.name)"""
    )
    assert unlabelled == []
    untitled = page.evaluate(
        "Array.from(document.querySelectorAll('svg')).filter(s => !s.querySelector('title')).length"
    )
    assert untitled == 0
    shoot(page, f"player-{width}")


def test_a_nim_game_made_on_the_new_game_page_is_played_to_the_end_by_clicking(
    site, browser, shoot
):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/")
    page.click("text=Start a game of Nim")
    assert page.locator("#game-nim").is_checked()
    page.fill("#name1", "Ann")
    page.fill("#email1", "ann@example.com")
    page.select_option("#kind2", "greedy")
    page.fill("#nim_pile", "6")
    page.check("#public")
    page.click("text=Create the game and send the invitations")
    assert page.locator("ul.mailed li").all_inner_texts() == [
        "seat 1, Ann: to ann@example.com",
        "seat 2, Greedy bot: a bot, no mail",
    ]
    link = links_by_address(site.wait_for_mails(1))["ann@example.com"]
    page.goto(link)
    game_id = page.url.rsplit("/", 1)[1]
    assert "6 tokens left" in page.locator(".nim-pile").inner_text()
    assert page.locator('input[name="action"]').evaluate_all("rs => rs.map(r => r.value)") == [
        "take 1",
        "take 2",
        "take 3",
    ]
    shoot(page, "nim-turn")
    service = site.parts.service
    # Ann leaves a multiple of 4 each time: take 2 (4 left), then whatever the bot
    # left her down to the last token.
    while service.state_at(game_id)["turn"] is not None:
        pile = service.state_at(game_id)["pile"]
        take = pile % 4 or 1
        page.check(f'input[name="action"][value="take {take}"]')
        page.click("#confirm")
        assert page.locator(".flash").inner_text().startswith(f"You played take {take}")
        service.play_bots(game_id)  # what the worker does for a bot's turn
        page.reload()
    assert "The game is over." in page.locator(".status").inner_text()
    assert "Ann wins." in " ".join(page.locator(".status").inner_text().split())
    assert "The pile is empty" in page.locator(".nim-pile").inner_text()
    assert page.locator("#turn").count() == 0
    shoot(page, "nim-over")
    page.click("text=Step through the history")
    assert page.locator(".nim-pile").count() == 1
    spectator = browser.new_page(viewport={"width": 375, "height": 800})
    spectator.goto(f"{site.url}/g/{game_id}/watch")
    assert "winner" in spectator.locator(".standings").inner_text()
    assert errors == []
