"""The archive of My games, its filter and pages, and a public profile speak
German to a German browser."""

from __future__ import annotations

import pytest
from test_pages_german import FRAME, GERMAN, english_in, get

from pbem.service import PlayerSpec


@pytest.fixture
def site(make_web):
    return make_web()


def won_nim(parts, ann: str, ben: str) -> tuple[str, str]:
    created = parts.service.create_game(
        [PlayerSpec("Anna", ann), PlayerSpec("Bernd", ben)],
        {"public": True},
        {"pile": 3},
        game="nim",
    )
    parts.service.submit_action(created.game_id, created.seats[0].token, "take 3")
    return created.game_id, created.seats[0].token


def test_the_archive_its_filter_and_pages_speak_german(site):
    app, parts = site
    client = app.test_client()
    for number in range(21):
        game_id, token = won_nim(parts, f"anna{number}@example.com", f"bernd{number}@example.com")
        client.get(f"/g/{game_id}/{token}", headers=GERMAN)
    page = get(client, "/my-games?show=finished")
    assert "Platz 1 von 2; gewonnen hat Anna." in page and "Seite 1 von 2" in page
    assert "Nachspielen" in page and "Spielprotokoll" in page and "Nächste Seite" in page
    # (the latest event's words hold the move, "take 3", in the notation, as in English)
    shown = [*FRAME, "//h1", "//h2", "//form", "//span[@class='result']", "//nav", "//li/a"]
    assert english_in(page, shown) == []
    assert "Keine deiner Partien passt" in get(client, "/my-games?opponent=zora")
    refused = get(client, "/my-games?show=everything", status=400)
    assert "Wähle alle Partien, die laufenden oder die beendeten" in refused
    assert english_in(refused) == []


def test_a_public_profile_speaks_german(site):
    app, parts = site
    won_nim(parts, "anna@example.com", "bernd@example.com")
    slug = parts.service.publish_profile("anna@example.com", "Anna")
    page = get(app.test_client(), f"/players/{slug}")
    assert "Beendete Partien" in page and "Platz 1 von 2 — gewonnen." in page
    assert english_in(page) == []
