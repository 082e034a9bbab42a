"""docs/games/mall.md section 11 on every page and API answer, for every viewer, while the game
runs: no supply tile, no other player's unrevealed secret card, no seed; and all of
it once the game has ended."""

from __future__ import annotations

import re

import pytest
from hidden import shows

from pbem.service import PlayerSpec

SEED = "seed-that-must-not-leak-7f3a"
SUPPLY = [
    "Y01",
    "B01",
    "G01",
    "R13",
    "Y02",
    "B02",
    "G02",
    "R01",
    "Y03",
    "B03",
    "G03",
    "R02",
    "Y04",
    "B04",
    "G04",
    "R05",
]
SECRETS = {"1": "O3", "2": "O5"}
RANDOM_VALUES = re.compile(r'name="(csrf_token|key)" value="[^"]*"')


def pages(client, game_id: str, seat: int | None, at: int) -> dict[str, str]:
    urls = [
        f"/g/{game_id}",
        f"/g/{game_id}/watch",
        f"/g/{game_id}/history",
        f"/g/{game_id}/history?at=1",
        f"/g/{game_id}/history?at={at}",
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/legal",
        f"/api/games/{game_id}/log",
        "/",
    ]
    seen = {}
    for url in urls:
        answer = client.get(url, headers=client.bearer)
        assert answer.status_code == 200, (url, seat, answer.status_code)
        seen[url] = RANDOM_VALUES.sub("", answer.get_data(as_text=True))
    return seen


def viewers(app, parts, game_id, tokens):
    """A client per viewer: each seat through its link, and a stranger."""
    for seat in (1, 2, None):
        client = app.test_client()
        client.bearer = {}
        if seat is not None:
            client.get(f"/g/{game_id}/{tokens[seat]}")
            client.bearer = {"Authorization": f"Bearer {tokens[seat]}"}
        yield seat, client


@pytest.mark.parametrize("moves", [0, 3, 6])
def test_no_page_or_answer_shows_what_a_viewer_may_not_see(web, moves):
    app, parts = web
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True},
        {"seed": SEED, "supply": SUPPLY, "commons": ["aqua-dome"], "secrets": SECRETS},
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    for _ in range(moves):
        doc = parts.service.state_at(game_id)
        parts.service.submit_action(game_id, tokens[doc["turn"]], "money L", doc["seq"])
    doc = parts.service.state_at(game_id)
    assert doc["status"] == "playing"
    in_supply = SUPPLY[8 + moves :]  # each money action drew one tile
    for seat, client in viewers(app, parts, game_id, tokens):
        for url, text in pages(client, game_id, seat, doc["seq"]).items():
            for tile in in_supply:
                assert not shows(text, tile), (url, seat, tile)
            assert SEED not in text, (url, seat)
            for owner, card in SECRETS.items():
                if int(owner) != seat:
                    assert not shows(text, card), (url, seat, card)


def test_once_the_game_has_ended_the_seed_and_every_card_are_shown(web):
    app, parts = web
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True},
        {"seed": SEED, "supply": SUPPLY[:9], "commons": [], "secrets": SECRETS},
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    for seat in (1, 2):
        parts.service.submit_action(game_id, tokens[seat], "money L")
    client = app.test_client()
    page = client.get(f"/g/{game_id}/watch").get_data(as_text=True)
    assert "The game is over." in page and SEED in page
    state = client.get(f"/api/games/{game_id}").json
    assert [p["secret"] for p in state["players"]] == ["O3", "O5"]
    assert client.get(f"/api/games/{game_id}/log").json["setup"]["seed"] == SEED


def test_a_short_id_is_found_as_a_reader_meets_it_never_inside_a_random_value():
    for leaked in ('{"secret": "O3"}', "<td>O3</td>", 'class="tile-O3"', "cards: O3, O5"):
        assert shows(leaked, "O3"), leaked
    # a seat's token, a key, a nonce: random letters that happen to hold the id
    for random_value in ("/g/abc/x7O3kQ", "Zk-O3_pQ9", "key=AO3", "nonce-O3b", "0fO3"):
        assert not shows(random_value, "O3"), random_value
