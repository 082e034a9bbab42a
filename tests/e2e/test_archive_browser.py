"""In real Chromium: My games keeps a finished game with its result; the filter
narrows the list to finished games, and the result's replay link opens the game's
history at its first event."""

from __future__ import annotations

from pbem.service import PlayerSpec

DESKTOP = {"width": 1280, "height": 900}


def test_the_archive_filters_to_finished_games_and_opens_a_replay(site, browser, shoot):
    service = site.parts.service
    games = {}
    for name, pile in (("won", 3), ("running", 9)):
        created = service.create_game(
            [PlayerSpec("Cy", "cy@example.com"), PlayerSpec("Nim bot", None, "greedy")],
            None,
            {"pile": pile},
            game="nim",
        )
        games[name] = (created.game_id, created.seats[0].token)
    service.submit_action(games["won"][0], games["won"][1], "take 3")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    for game_id, token in games.values():
        page.goto(f"{site.url}/g/{game_id}/{token}")
    page.goto(f"{site.url}/my-games")
    assert page.locator("li.my-game").count() == 2

    page.locator("#show").select_option("finished")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**/my-games?show=finished*")
    rows = page.locator("li.my-game")
    assert rows.count() == 1 and rows.get_attribute("data-game") == games["won"][0]
    assert "Place 1 of 2; won by Cy." in rows.inner_text()
    shoot(page, "my-games-archive")

    rows.get_by_role("link", name="Replay").click()
    page.wait_for_url(f"**/g/{games['won'][0]}/history?at=1")
    assert page.locator("h1").count() == 1
    context.close()
