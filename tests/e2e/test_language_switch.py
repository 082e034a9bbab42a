"""Two languages in Chromium: a German browser reads the site in German, the footer
switch turns it English for good (the next page too), and a German game page counts
its deadline down in German words and German day names."""

from __future__ import annotations

import re

from pbem.service import PlayerSpec

GERMAN_DAYS = ("Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So.")


def mall_game(site) -> tuple[str, dict[int, str]]:
    created = site.parts.service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")],
        {"hours_per_turn": 48, "public": True},
        None,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def german_page(browser, width: int = 1280, height: int = 900):
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="de-DE", timezone_id="Europe/Berlin"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def test_a_german_browser_reads_german_until_it_switches_to_english(site, browser):
    page, errors = german_page(browser)
    page.goto(f"{site.url}/")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.get_by_role("link", name="Eine neue Partie beginnen").is_visible()
    assert page.locator("footer .languages [aria-current]").inner_text() == "Deutsch"

    page.locator("footer .languages").get_by_role("link", name="English").click()
    page.wait_for_load_state()
    assert page.url == f"{site.url}/"
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.get_by_role("link", name="Start a new game").is_visible()

    page.get_by_role("navigation", name="Site").get_by_role("link", name="New game").click()
    page.wait_for_load_state()
    assert page.url == f"{site.url}/new"
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text() == "A new game"

    page.locator("footer .languages").get_by_role("link", name="Deutsch").click()
    page.wait_for_load_state()
    assert page.url == f"{site.url}/new"  # back on the page the switch was pressed on
    assert page.locator("h1").inner_text() == "Eine neue Partie"
    assert errors == []


def test_the_countdown_of_a_german_game_page_speaks_german(site, browser, shoot):
    game_id, tokens = mall_game(site)
    for width, height in ((1280, 900), (375, 812)):
        page, errors = german_page(browser, width, height)
        page.goto(f"{site.url}/g/{game_id}/{tokens[1]}")
        assert page.locator("html").get_attribute("lang") == "de"
        assert page.locator("#turn-h").inner_text() == "Du bist am Zug"

        shown = page.locator("#turn .turn-clock time.countdown").inner_text()
        assert re.fullmatch(r"noch (1 T\. 23|2 T\. 0) Std\. — \S+ \d\d:\d\d", shown), shown
        assert shown.split(" — ")[1].split()[0].rstrip(",") in GERMAN_DAYS, shown
        assert page.locator(".status time.countdown").inner_text() == shown
        assert "left" not in page.locator(".status").inner_text()
        shoot(page, f"german-game-{width}")
        assert errors == []
        page.context.close()


def test_the_dashboard_counts_new_events_in_german(site, browser):
    game_id, tokens = mall_game(site)
    page, errors = german_page(browser)
    page.goto(f"{site.url}/g/{game_id}/{tokens[2]}")  # Bernd looks at the game once
    service = site.parts.service
    doc = service.state_at(game_id)
    service.submit_action(game_id, tokens[1], service.legal(game_id, 1)[0], doc["seq"])
    page.goto(f"{site.url}/my-games")
    news = page.locator(".my-game .news")
    news.wait_for(state="visible")
    n = service.state_at(game_id)["seq"] - doc["seq"]
    said = "1 neues Ereignis" if n == 1 else f"{n} neue Ereignisse"
    assert news.inner_text() == f"{said} seit deinem letzten Blick"
    assert errors == []
