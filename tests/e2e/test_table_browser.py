"""Resigning and the rematch in Chromium: the resign button asks "Are you sure?" on a
page of its own before anything happens; after the end one click offers a rematch,
the other player accepts it on their page, and both open their seats in the new
game from the old one. axe finds no serious or critical violation on the question,
on the offer nor on the answer, at a desktop's and a phone's size."""

from __future__ import annotations

from test_axe import grave_violations
from tour import DESKTOP, PHONE

from pbem.service import PlayerSpec


def axe_at_both_sizes(page) -> dict[str, list[str]]:
    found = {}
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        violations = grave_violations(page)
        if violations:
            found[name] = violations
    page.set_viewport_size(DESKTOP)
    return found


def test_resign_is_confirmed_and_a_rematch_is_clicked_through(site, browser, shoot):
    service = site.parts.service
    made = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"pile": 9},
        game="nim",
    )
    game = made.game_id
    ann = browser.new_context(viewport=DESKTOP).new_page()
    ben = browser.new_context(viewport=DESKTOP).new_page()
    ann.goto(f"{site.url}/g/{game}/{made.seats[0].token}")
    ben.goto(f"{site.url}/g/{game}/{made.seats[1].token}")

    ann.get_by_role("button", name="Resign…").click()
    assert ann.get_by_role("heading", name="Are you sure?").is_visible()
    assert service.state_at(game)["status"] == "playing"  # asked, not done
    assert axe_at_both_sizes(ann) == {}
    shoot(ann, "resign-question")
    ann.get_by_role("button", name="Yes, resign").click()
    assert ann.get_by_text("You resigned, and the game is over.").is_visible()
    assert service.state_at(game)["winners"] == [2]

    ann.get_by_role("button", name="Offer a rematch").click()
    assert ann.get_by_text("You offered a rematch; the others have been asked.").is_visible()
    assert axe_at_both_sizes(ann) == {}
    ben.reload()
    assert ben.locator(".rematch").get_by_text("Ann offered a rematch").is_visible()
    assert axe_at_both_sizes(ben) == {}
    shoot(ben, "rematch-offered")
    ben.get_by_role("button", name="Accept the rematch").click()
    assert ben.get_by_text("Everyone accepted: the rematch has begun.").is_visible()

    new = service.rematch_status(game, 2)["offer"].new_game_id
    assert axe_at_both_sizes(ben) == {}
    ben.get_by_role("link", name="Open your seat in the rematch").click()
    assert ben.url.endswith(f"/g/{new}")
    assert ben.get_by_role("button", name="Resign…").is_visible()
    ann.reload()
    ann.get_by_role("link", name="Open your seat in the rematch").click()
    assert (
        ann.url.endswith(f"/g/{new}") and ann.get_by_role("heading", name="Your turn").is_visible()
    )
