"""The mall's turn script speaks the page's language: on a German game page in
Chromium its buttons, lit cells and preview are German, and the move notation it
chooses stays as it is; the drawings' words and the bot's name are German too."""

from __future__ import annotations

import sys
from pathlib import Path

from pbem.service import PlayerSpec

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))
from german import english_left, game_english_left

NOTATION = frozenset({"money", "build", "at", "for", "pass", "Anna", "Bernd"})


def test_the_turn_script_speaks_german_on_a_german_page(site, browser, shoot):
    created = site.parts.service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com"),
            PlayerSpec("Bernd", "bernd@example.com"),
            PlayerSpec("Greedy bot", bot="greedy"),
        ],
        {"hours_per_turn": 48},
        None,
    )
    token = next(s.token for s in created.seats if s.seat == 1)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/g/{created.game_id}/{token}")
    assert page.locator("html").get_attribute("lang") == "de"
    # what the drawings show and tell a screen reader, as Chromium has them
    drawn = " ".join(page.locator("main svg :is(text, title, desc)").all_text_contents())
    named = page.locator("main svg [aria-label]").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('aria-label')).join(' ')"
    )
    assert "kostet 3" in drawn and "Gieriger Bot" in drawn, drawn
    assert game_english_left(drawn) == [] and game_english_left(named) == []
    assert "Gieriger Bot" in page.locator("main").inner_text()

    picker = page.locator("#picker")
    assert picker.get_by_role("group", name="Andere Aktionen").is_visible()
    assert picker.get_by_role("button", name="Geld aus L nehmen").is_visible()
    slot = page.locator(".dispenser g.slot[role=button]").first
    assert (slot.get_attribute("aria-label") or "").endswith("bauen")
    slot.click()
    preview = page.locator("#preview").inner_text()
    assert preview.startswith("Wähle jetzt ein hervorgehobenes Feld deiner Mall"), preview
    lit = page.locator(".mall-card.yours rect.target.legal").first
    assert (lit.get_attribute("aria-label") or "").endswith("bauen")
    lit.click()
    chosen = page.locator("#preview").inner_text()
    assert chosen.startswith("build "), chosen  # the notation, then German words
    assert english_left(chosen, allowed=NOTATION) == [], chosen
    page.locator("#move").fill("money L")
    assert page.locator("#preview").inner_text() == "Du hast getippt: money L"
    shoot(page, "german-turn-script")
    assert errors == []
    context.close()
