"""Private press in the browser: in a game whose press is private, Ann ticks Ben on
her chat form and says a line to him alone; Ben's page shows it marked as said to
him, Cy's page and the watch page never show it; the form with its ticks has no
serious accessibility violation."""

from __future__ import annotations

from test_axe import grave_violations

from pbem.service import PlayerSpec


def test_a_line_ticked_for_one_player_reaches_that_player_alone(site, browser, shoot):
    created = site.parts.service.create_game(
        [
            PlayerSpec("Ann", "ann@example.com"),
            PlayerSpec("Ben", "ben@example.com"),
            PlayerSpec("Cy", "cy@example.com"),
        ],
        {"press": "private", "public": True},
        {"pile": 9},
        game="nim",
    )
    game_id = created.game_id
    pages = {}
    for seat in (1, 2, 3):
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        pages[seat] = context.new_page()
        pages[seat].goto(f"{site.url}/g/{game_id}/{created.seats[seat - 1].token}")
    ann, ben, cy = pages[1], pages[2], pages[3]
    assert grave_violations(ann) == []

    ann.fill("#chat-text", "Ben, let us share the pile")
    ann.check("#chat-to-2")
    ann.click(".chat-say button")
    ann.wait_for_load_state()
    ann.fill("#chat-text", "Hello both")  # nothing ticked: everyone
    ann.click(".chat-say button")
    ann.wait_for_load_state()
    said = [t.split(" 20")[0] for t in ann.locator("#chat .chat-lines li").all_inner_texts()]
    assert said == ["You (privately to Ben): Ben, let us share the pile", "You: Hello both"]
    shoot(ann, "private-press", "#chat")

    ben.reload()
    said = [t.split(" 20")[0] for t in ben.locator("#chat .chat-lines li").all_inner_texts()]
    assert said == ["Ann (privately to you): Ben, let us share the pile", "Ann: Hello both"]
    cy.reload()
    spectator = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    spectator.goto(f"{site.url}/g/{game_id}/watch")
    for page in (cy, spectator):
        said = [t.split(" 20")[0] for t in page.locator("#chat .chat-lines li").all_inner_texts()]
        assert said == ["Ann: Hello both"]
        assert "share the pile" not in page.content()
