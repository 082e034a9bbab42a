"""The games' own words on German pages: a game of a person against two bots,
looked at in German at several points from its start to its end — the seat's game
page, the watch page, the history at its steps, the live answer's news, My games —
says no English word anywhere a reader looks (its drawings' words, titles, tooltips and
screen-reader names included), neither the site's nor the game's (shop, bay and
attraction names, categories, "costs", the bots' "Greedy bot" and "Random bot").
The JSON API stays the contract it was: ids stay ids and names stay as stored."""

from __future__ import annotations

import re

from german import english_left, game_english_left, visible_text

from pbem.games import GAMES
from pbem.service import PlayerSpec

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
ENGLISH = {"Accept-Language": "en"}
BOTS = ("Gieriger Bot", "Zufallsbot")
# The move notation (the turn panel's examples and choices) reads the same in every
# language; "Anna" is a name.
NOTATION = frozenset({"money", "build", "at", "for", "attraction", "mirror", "dock", "pass"})


def game_of_anna_and_two_bots(parts) -> tuple[str, str]:
    created = parts.service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com", language="de"),
            PlayerSpec("Greedy bot", bot="greedy"),
            PlayerSpec("Random bot", bot="random"),
        ],
        {"public": True, "hours_per_turn": 48},
        None,
    )
    token = next(s.token for s in created.seats if s.seat == 1)
    return created.game_id, token


def play(parts, game_id: str, token: str, moves: int) -> None:
    """Anna's first legal move, then the bots', `moves` times (or to the end)."""
    for _n in range(moves):
        doc = parts.service.state_at(game_id)
        if doc["turn"] is None:
            return
        if doc["turn"] == 1:
            action = parts.service.legal(game_id, 1)[0]
            parts.service.submit_action(game_id, token, action, doc["seq"])
        parts.service.play_bots(game_id)


def english_on(page: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    said = visible_text(page)
    return english_left(said, allowed=allowed | {"Anna"}) + game_english_left(said)


def get(client, url: str, headers: dict[str, str] = GERMAN) -> str:
    answer = client.get(url, headers=headers)
    assert answer.status_code == 200, (url, answer.status_code)
    return answer.get_data(as_text=True)


def test_a_game_against_bots_speaks_german_from_start_to_end(web):
    app, parts = web
    game_id, token = game_of_anna_and_two_bots(parts)
    anna = app.test_client()
    assert anna.get(f"/g/{game_id}/{token}", headers=GERMAN).status_code == 302
    looked = 0
    for moves in (0, 2, 10, 30, 400):
        play(parts, game_id, token, moves)
        doc = parts.service.state_at(game_id)
        seq, to_move = doc["seq"], doc["turn"]
        mine = get(anna, f"/g/{game_id}")
        # Anna's own turn shows the notation's words with each choice
        assert english_on(mine, NOTATION if to_move == 1 else frozenset()) == [], moves
        watched = get(app.test_client(), f"/g/{game_id}/watch")
        assert english_on(watched) == [], moves
        for at in sorted({1, 2, max(seq // 2, 1), seq}):
            history = get(anna, f"/g/{game_id}/history?at={at}")
            assert english_on(history) == [], (moves, at)
        news = anna.get(f"/g/{game_id}/live?since=1", headers=GERMAN).get_json()
        for said in news["since"]:
            assert english_on(said["text"]) == [], said
        board = get(anna, "/my-games")  # the opponents, the latest event
        assert english_on(board) == [], moves
        for page in (mine, watched, board):
            assert all(bot in page for bot in BOTS), moves
        assert "kostet" in mine or doc["status"] == "finished"
        looked += 1
    assert parts.service.state_at(game_id)["status"] == "finished"
    assert looked == 5


def test_the_check_would_see_english_on_the_english_pages(web):
    app, parts = web
    game_id, token = game_of_anna_and_two_bots(parts)
    play(parts, game_id, token, 6)
    page = visible_text(get(app.test_client(), f"/g/{game_id}/watch", headers=ENGLISH))
    found = set(game_english_left(page))
    assert {"Greedy", "Random", "bot", "costs"} <= found, found


def test_the_new_game_page_offers_the_bots_by_their_german_names(web):
    app, _parts = web
    page = get(app.test_client(), "/new")
    assert "Gieriger Bot" in page and "Zufallsbot" in page
    assert english_on(page) == []
    # the form's values are the bots' ids, as the API takes them
    assert re.search(r'<option value="greedy"\s*>Gieriger Bot</option>', page)
    english = get(app.test_client(), "/new", headers=ENGLISH)
    assert re.search(r'<option value="greedy"\s*>Greedy bot</option>', english)


def test_the_api_keeps_ids_and_stored_names_for_a_german_browser(web):
    app, parts = web
    game_id, token = game_of_anna_and_two_bots(parts)
    play(parts, game_id, token, 12)
    client = app.test_client()
    german = client.get(f"/api/games/{game_id}", headers=GERMAN).get_json()
    english = client.get(f"/api/games/{game_id}", headers=ENGLISH).get_json()
    assert german == english
    state = german
    players = state["players"]
    assert [p["name"] for p in players] == ["Anna", "Greedy bot", "Random bot"]
    wants = {c["want"] for p in players for c in p["customers"]}
    assert wants <= {"food", "hobby", "fashion"} and wants
    assert all(re.fullmatch(r"[a-z-]+", c["id"]) for c in state["commons"])
    tiles = [t for column in state["dispenser"].values() for t in column if t]
    assert tiles and all(re.fullmatch(r"[YBGR]\d\d", t) for t in tiles)


def test_a_nim_game_against_bots_names_them_in_german(web):
    app, parts = web
    created = parts.service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com"),
            PlayerSpec("Greedy bot", bot="greedy"),
            PlayerSpec("Random bot", bot="random"),
        ],
        {"public": True},
        {"pile": 12},
        game="nim",
    )
    game_id, token = created.game_id, next(s.token for s in created.seats if s.seat == 1)
    anna = app.test_client()
    assert anna.get(f"/g/{game_id}/{token}", headers=GERMAN).status_code == 302
    for moves in (1, 400):
        play(parts, game_id, token, moves)
        seq = parts.service.state_at(game_id)["seq"]
        for page in (
            get(anna, f"/g/{game_id}"),
            get(app.test_client(), f"/g/{game_id}/watch"),
            get(anna, f"/g/{game_id}/history?at={seq}"),
        ):
            assert all(bot in page for bot in BOTS), moves
            assert english_on(page, frozenset({"take"})) == [], moves


def test_the_rules_pages_say_the_games_words_in_german(web):
    app, _parts = web
    for game in sorted(GAMES):
        page = get(app.test_client(), f"/rules/{game}")
        assert english_on(page, NOTATION | {"take"}) == [], game
