"""Table talk in the browser: two seats chat on their game pages (a move typed on a
page loaded before the other's line still plays), a spectator reads the players'
chat on the watch page and talks in the spectators' chat, which the players do not
see while the game runs."""

from __future__ import annotations

from pbem.events import ActionTaken


def _game(site) -> tuple[str, dict[int, str]]:
    body = site.ann_and_ben()  # the admin's answer has the tokens
    return body["id"], {s["seat"]: s["token"] for s in body["seats"]}


def _say(page, text: str) -> None:
    page.fill("#chat-text", text)
    page.click(".chat-say button")
    page.wait_for_load_state()


def test_two_seats_chat_and_a_spectator_reads_along(site, browser, shoot):
    game_id, tokens = _game(site)
    pages = {}
    for seat in (1, 2):
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        pages[seat] = context.new_page()
        pages[seat].goto(f"{site.url}/g/{game_id}/{tokens[seat]}")
    ann, ben = pages[1], pages[2]

    _say(ann, "Good luck, <b>Ben</b>!")
    assert ann.url.endswith(f"/g/{game_id}#chat")
    ben.reload()
    lines = ben.locator("#chat .chat-lines li").all_inner_texts()
    assert len(lines) == 1 and lines[0].startswith("Ann: Good luck, <b>Ben</b>!")
    assert ben.locator("#chat b").count() == 0  # shown as text, not markup

    ann.reload()  # Ann's page now expects the head; Ben talks before she moves
    _say(ben, "Thanks, you too")
    legal = site.parts.service.legal(game_id, 1)[0]
    ann.fill("#move", legal)
    ann.click("#confirm")
    ann.wait_for_load_state()
    assert ann.locator(".error").count() == 0
    last = site.parts.service.history(game_id)[-1]
    assert isinstance(last.event, ActionTaken) and last.event.seat == 1
    ann.goto(f"{site.url}/g/{game_id}")
    assert [t.split(" 20")[0] for t in ann.locator("#chat .chat-lines li").all_inner_texts()] == [
        "You: Good luck, <b>Ben</b>!",
        "Ben: Thanks, you too",
    ]
    shoot(ann, "table-talk", "#chat")

    spectator = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    spectator.goto(f"{site.url}/g/{game_id}/watch")
    assert spectator.locator("#chat .chat-lines li").count() == 2
    assert spectator.locator("#chat-text").count() == 0  # spectators only read it
    spectator.fill("#spectator-name", "Zoe")
    spectator.fill("#spectator-text", "Ann looks strong")
    spectator.click("#spectators button")
    spectator.wait_for_load_state()
    said = spectator.locator("#spectators .chat-lines li").all_inner_texts()
    assert len(said) == 1 and said[0].startswith("Zoe (watching): Ann looks strong")
    shoot(spectator, "spectators-chat", "#spectators")

    ann.reload()
    assert "Ann looks strong" not in ann.content()
    assert ann.locator("#spectators").count() == 0


def test_a_long_unbroken_line_fits_a_phone(site, browser, shoot):
    game_id, tokens = _game(site)
    site.parts.service.say(game_id, tokens[1], "W" * 500)
    site.parts.service.spectator_says(game_id, "Zoe", "Z" * 500)
    page = browser.new_context(viewport={"width": 375, "height": 812}).new_page()
    page.goto(f"{site.url}/g/{game_id}/watch")
    for section in ("#chat", "#spectators"):
        width = page.eval_on_selector(section, "e => [e.scrollWidth, e.clientWidth]")
        assert width[0] <= width[1] <= 375, (section, width)
    shoot(page, "phone", "#chat")
