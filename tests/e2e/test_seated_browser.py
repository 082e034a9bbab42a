"""In real Chromium: a creator who plays names the game, ticks "I play in this game"
and lands on their own seat's page (the game's name in its title, no invitation to
themselves); a browser holding one seat asked before another seat's link makes it
someone else, and it stays or switches as the person says."""

from __future__ import annotations

from test_browser import links_by_address

DESKTOP = {"width": 1280, "height": 900}


def test_the_creator_who_plays_lands_on_their_seat(site, browser, shoot):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{site.url}/new")
    page.fill("#game_name", "Friday mall")
    page.fill("#name1", "Ann")
    page.check("#creator_plays")
    page.select_option("#kind2", "random")
    page.locator("form.new-game button[type=submit]").click()
    page.wait_for_url("**/g/*")
    (game,) = site.parts.service.games()
    assert page.url == f"{site.url}/g/{game.id}"
    # her turn first: the tab says so before the name
    assert page.title() == "(your turn) Friday mall, against Random bot (Mall) — Mall by mail"
    assert page.locator(".mall-card.yours").count() == 1  # Ann's own seat
    assert game.id in page.locator("h1 .game-id").inner_text()
    shoot(page, "creator-seated")
    assert site.mails() == []  # no invitation to herself, nobody else to invite
    context.close()


def test_another_seats_link_asks_and_stays_or_switches(site, browser, shoot):
    game_id = site.ann_and_ben()["id"]
    links = links_by_address(site.wait_for_mails(2))
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(links["ann@example.com"])
    assert page.locator(".mall-card.yours").count() == 1

    page.goto(links["ben@example.com"])
    assert page.locator("h1").inner_text() == "You are Ann here"
    shoot(page, "switch-seat-question")
    page.get_by_role("link", name="Stay as Ann").click()
    page.wait_for_url(f"**/g/{game_id}")
    assert "your turn" in page.locator("p.status").inner_text()  # still Ann, to move

    page.goto(links["ben@example.com"])
    page.get_by_role("button", name="Switch to Ben").click()
    page.wait_for_url(f"**/g/{game_id}")
    assert "Ann to move" in page.locator("p.status").inner_text()  # now Ben
    page.goto(links["ann@example.com"])
    assert page.locator("h1").inner_text() == "You are Ben here"
    context.close()
