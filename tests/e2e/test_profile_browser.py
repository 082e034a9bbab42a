"""In real Chromium: a person signs in to My games by the mailed link, turns on a
public profile in its form, and a stranger's browser reads it until it is turned
off; the signed-in page with the profile form has no serious or critical axe
violation at a desktop's and a phone's size."""

from __future__ import annotations

import re

import pytest
from test_axe import grave_violations

from pbem.service import PlayerSpec

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 812}}
SIGN_IN = re.compile(r"http://\S+/my-games/sign-in/\S+")


def sign_in_link(site) -> str:
    """The link of the sign-in mail, once it has arrived."""
    for count in range(1, 20):
        for mail in site.wait_for_mails(count):
            found = SIGN_IN.search(mail.get_body(("plain",)).get_content())
            if found:
                return found[0]
    raise AssertionError("no sign-in mail arrived")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_profile_is_turned_on_read_by_a_stranger_and_turned_off(site, browser, shoot, size):
    service = site.parts.service
    created = service.create_game(
        [PlayerSpec("Cy", "cy@example.com"), PlayerSpec("Nim bot", None, "greedy")],
        None,
        {"pile": 3},
        game="nim",
    )
    service.submit_action(created.game_id, created.seats[0].token, "take 3")
    context = browser.new_context(viewport=SIZES[size], is_mobile=size == "phone")
    page = context.new_page()
    page.goto(f"{site.url}/my-games")
    page.fill("#email", "cy@example.com")
    page.get_by_role("button", name="Mail me a sign-in link").click()
    service.answer_link_requests()  # the scheduler's sweep
    page.goto(sign_in_link(site))
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/my-games")

    page.fill("#profile-name", "Cy the Quick")
    page.get_by_role("button", name="Turn my public profile on").click()
    page.wait_for_url("**/my-games#profile")
    assert grave_violations(page) == []
    shoot(page, f"{size}-my-games-profile")
    address = page.get_by_role("link", name="your public page").get_attribute("href")

    stranger = browser.new_context(viewport=SIZES[size]).new_page()
    stranger.goto(f"{site.url}{address}")
    assert stranger.locator("h1").inner_text() == "Cy the Quick"
    assert "place 1 of 2" in stranger.locator("main").inner_text()
    assert grave_violations(stranger) == []

    page.get_by_role("button", name="Turn my public profile off").click()
    page.wait_for_url("**/my-games#profile")
    assert stranger.goto(f"{site.url}{address}").status == 404
    context.close()
