"""Back at the game after the others moved: the page lists their moves since this
browser last looked and outlines on the board what they built, not what you built
yourself."""

from __future__ import annotations


def _build(site, game_id, token, seat) -> str:
    service = site.parts.service
    before = service.state_at(game_id, None, seat)
    option = next(o for o in service.turn_options(game_id, seat) if o["text"].startswith("build"))
    service.submit_action(game_id, token, option["text"], None)
    after = service.state_at(game_id, None, seat)
    had = {t["id"] for p in before["players"] if p["seat"] == seat for t in p["tiles"]}
    (built,) = {t["id"] for p in after["players"] if p["seat"] == seat for t in p["tiles"]} - had
    return built


def test_what_the_others_built_since_my_last_visit_is_outlined(site, browser, shoot):
    body = site.ann_and_ben({"seed": "outlined"})
    game_id, tokens = body["id"], {s["seat"]: s["token"] for s in body["seats"]}
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/g/{game_id}/{tokens[1]}")  # the first visit: nothing new
    assert page.locator("#since").is_hidden()

    anns = _build(site, game_id, tokens[1], 1)
    bens = _build(site, game_id, tokens[2], 2)
    page.reload()

    page.locator("#since-outlined").wait_for(state="visible", timeout=10_000)
    assert page.locator("#since li").count() == 1  # Ben's move; Ann's own is not news
    outlined = page.locator(".since-new")
    assert outlined.count() == 1
    assert outlined.get_attribute("data-tile") == bens != anns
    stroke = outlined.locator("rect.cell").first.evaluate(
        "r => getComputedStyle(r).strokeDasharray"
    )
    assert stroke not in ("", "none")  # the game's stylesheet draws the mark
    shoot(page, "since-outlined")
    assert errors == []
