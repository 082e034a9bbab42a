"""In real Chromium on a 375 px phone: a finished four-player game opens on its final
results, above the malls; its "Details" fold, opened, holds the seq, the head hash and
the seed, and its long codes wrap instead of widening the page."""

from __future__ import annotations

from pbem.service import PlayerSpec

PHONE = {"width": 375, "height": 812}


def test_a_finished_game_on_a_phone_shows_results_first_and_its_details_wrap(site, browser, shoot):
    service = site.parts.service
    bots = [PlayerSpec(f"Bot {n}", None, "greedy") for n in range(1, 5)]
    game_id = service.create_game(bots, {"public": True}, {"seed": "names-phone"}).game_id
    service.play_bots(game_id)
    doc = service.state_at(game_id)
    assert doc["status"] == "finished"
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{site.url}/g/{game_id}/watch")

    results, malls = page.locator("section.results"), page.locator("section.malls")
    assert results.bounding_box()["y"] < malls.bounding_box()["y"]
    assert "winner" in results.inner_text()
    assert not page.locator("details.details code.hash").is_visible()  # folded away

    page.locator("details.details summary").click()
    fold = page.locator("details.details")
    assert doc["head_hash"] in fold.inner_text() and "names-phone" in fold.inner_text()
    assert f"seq {doc['seq']}" in fold.inner_text()
    for code in fold.locator("code").all():
        box = code.bounding_box()
        assert box["x"] + box["width"] <= PHONE["width"], code.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, "phone-finished-details")
    context.close()
