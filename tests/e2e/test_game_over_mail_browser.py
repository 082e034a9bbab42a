"""The game-over mail on a 375 px phone, in real Chromium, in English and German:
its HTML part (shown as the dev mail viewer frames it, so that its cid: picture
loads) fits without scrolling sideways, breaks no word (only unbreakable tokens,
such as the seed's hash, may be), names the attractions in the reader's language
and shows the final malls as a picture."""

from __future__ import annotations

import time

import pytest

from pbem.games.mall.explain import attraction_name
from pbem.i18n import speaking
from pbem.service import PlayerSpec

BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent;
    for (const found of text.matchAll(/[^\\s\\-\\u2014\\u00b7,.:;()]+/g)) {
      if (found[0].length > 24) continue;  // an unbreakable token (a hash, a link)
      const range = document.createRange();
      range.setStart(node, found.index);
      range.setEnd(node, found.index + found[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(found[0]);
    }
  }
  return broken;
}"""


def _finished(site) -> tuple[str, list[str]]:
    """A game of Ann (English) and Ben (German) played to its end, an attraction
    built whenever one can be; the attraction ids built."""
    service = site.parts.service
    created = service.create_game(
        [
            PlayerSpec("Ann Longname-Wordsworth", "ann@example.com"),
            PlayerSpec("Ben", "ben@example.com", language="de"),
        ],
        None,
        {"seed": "game over"},
    )
    tokens = {s.seat: s.token for s in created.seats}
    while (state := service.state_at(created.game_id))["turn"] is not None:
        seat = state["turn"]
        legal = service.legal(created.game_id, seat)
        action = next((a for a in legal if a.startswith("attraction")), None)
        action = action or next((a for a in legal if a.startswith("build")), legal[0])
        service.submit_action(created.game_id, tokens[seat], action, state["seq"])
    final = service.state_at(created.game_id)
    built = [t["id"] for p in final["players"] for t in p["tiles"] if t["kind"] == "attraction"]
    return created.game_id, built


def _game_over_mails(site, game_id: str) -> dict[str, int]:
    """The numbers (in the dev viewer) of the game-over mails, by reader's address."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = {
            m["To"].addresses[0].addr_spec: n
            for n, m in enumerate(site.mails(), 1)
            # a game's mails thread under its id (the subject names it by its players)
            if m["X-Pbem-Kind"] == "game_over" and f"<game-{game_id}-" in m["References"]
        }
        if len(found) == 2:
            return found
        time.sleep(0.2)
    pytest.fail("the game-over mails did not arrive")


def test_the_game_over_mail_fits_a_phone_with_names_and_the_final_malls(site, browser, shoot):
    game_id, built = _finished(site)
    assert built, "the game built no attraction to name"
    numbers = _game_over_mails(site, game_id)
    page = browser.new_page(viewport={"width": 375, "height": 812})
    for address, language in (("ann@example.com", "en"), ("ben@example.com", "de")):
        page.goto(f"{site.url}/dev/mail/{numbers[address]}/html")
        page.wait_for_load_state("load")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, language
        assert page.evaluate(BROKEN_WORDS) == [], language
        said = page.evaluate("document.body.innerText")
        with speaking(language):
            names = {attraction_name(a) for a in built}
        assert all(name in said for name in names), (language, names)
        assert not any(a in said for a in built if a != attraction_name(a)), language
        picture = page.locator("img").first
        assert picture.evaluate("(img) => img.complete && img.naturalWidth") > 300
        assert picture.evaluate("(img) => img.getBoundingClientRect().right") <= 375
        shoot(page, f"game-over-{language}")
