"""In real Chromium: Ann lists a game of nim with an open seat on the New game page,
a stranger finds it on the open tables page, asks to join, follows the mailed link,
takes the seat by its button and lands on his seat in the new game; every page on
the way has no serious or critical axe violation, at a desktop's and a phone's
size."""

from __future__ import annotations

import re

import pytest
from test_axe import grave_violations

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 812}}
JOIN = re.compile(r"http://\S+/open/join/\S+")


def join_link(site) -> str:
    """The link of the join mail, once it has arrived."""
    for count in range(1, 20):
        for mail in site.wait_for_mails(count):
            found = JOIN.search(mail.get_body(("plain",)).get_content())
            if found:
                return found[0]
    raise AssertionError("no join mail arrived")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_stranger_joins_an_open_table_by_the_mailed_link(site, browser, shoot, size):
    phone = size == "phone"
    ann = browser.new_context(viewport=SIZES[size], is_mobile=phone).new_page()
    ann.goto(f"{site.url}/new?game=nim")
    ann.fill("#name1", "Ann")
    ann.fill("#email1", "ann@example.com")
    ann.select_option("#kind2", "open")
    ann.locator("form.new-game button[type=submit]").last.click()
    ann.wait_for_url("**/manage/**")
    assert "Your table is on the list" in ann.locator("main").inner_text()
    assert grave_violations(ann) == []

    ben = browser.new_context(viewport=SIZES[size], is_mobile=phone).new_page()
    ben.goto(f"{site.url}/")
    ben.get_by_role("link", name="Find a table that waits for players").click()
    ben.wait_for_url("**/open")
    assert grave_violations(ben) == []
    shoot(ben, f"{size}-open-tables")
    ben.get_by_role("link", name="A table of Nim").click()
    assert "Seated: Ann." in ben.locator("main").inner_text()
    assert "ann@example.com" not in ben.content()
    assert grave_violations(ben) == []
    ben.fill("#join-name", "Ben")
    ben.fill("#join-email", "ben@example.com")
    ben.get_by_role("button", name="Mail me the link").click()
    assert "on its way" in ben.locator("main").inner_text()
    assert grave_violations(ben) == []

    ben.goto(join_link(site))
    assert grave_violations(ben) == []
    ben.get_by_role("button", name="Take my seat").click()
    ben.wait_for_url(re.compile(r".*/g/[a-z0-9]+$"))
    assert "This is your seat" in ben.locator("body").inner_text()
    game_id = ben.url.rsplit("/", 1)[1]
    seats = site.parts.service.seat_links(game_id)
    assert [(s.name, s.email) for s in seats] == [
        ("Ann", "ann@example.com"),
        ("Ben", "ben@example.com"),
    ]
    shoot(ben, f"{size}-open-table-joined")
