"""My games as an archive: a finished game keeps its place with the seat's result
(place, score, winners), a link to its replay and its log file; the list is
filtered by running or finished, by game and by an opponent's name, and shown a
page at a time; a filter it does not know is refused."""

from __future__ import annotations

import json
import re

import pytest

from pbem.service import PlayerSpec

from support import SHORT

GAME_LINK = re.compile(r'<li class="my-game[^"]*" data-game="([a-z0-9]+)"')


@pytest.fixture
def site(make_web):
    return make_web()


def nim(parts, me: str, opponent: str = "Ben", *, finished: bool = False, theirs: str = "ben"):
    """A game of nim (a pile of 3) where `me` holds seat 1; played out (seat 1
    takes the last 3 and wins) if `finished`."""
    created = parts.service.create_game(
        [PlayerSpec("Ann", me), PlayerSpec(opponent, f"{theirs}@example.com")],
        None,
        {"pile": 3},
        game="nim",
    )
    tokens = {s.seat: s.token for s in created.seats}
    if finished:
        parts.service.submit_action(created.game_id, tokens[1], "take 3")
    return created.game_id, tokens


def mall(parts, me: str):
    created = parts.service.create_game(
        [PlayerSpec("Ann", me), PlayerSpec("Cy", "cy@example.com")], {"hours_per_turn": 24}, SHORT
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def shown(client, query: str = "") -> list[str]:
    page = client.get(f"/my-games{query}")
    assert page.status_code == 200
    return GAME_LINK.findall(page.get_data(as_text=True))


def test_a_finished_game_shows_its_result_replay_and_log(site):
    app, parts = site
    won, tokens = nim(parts, "ann@example.com", finished=True)
    lost, lost_tokens = nim(parts, "ann2@example.com", "Dee", finished=True)
    client = app.test_client()
    client.get(f"/g/{won}/{tokens[1]}")
    client.get(f"/g/{lost}/{lost_tokens[2]}")  # here I am Dee, who lost to Ann
    page = client.get("/my-games").get_data(as_text=True)
    assert "Place 1 of 2; won by Ann." in page
    assert "Place 2 of 2; won by Ann." in page
    assert f'href="/g/{won}/history?at=1"' in page and f'href="/g/{won}/log.json"' in page

    log = client.get(f"/g/{won}/log.json")
    assert log.status_code == 200
    assert log.headers["Content-Disposition"] == f'attachment; filename="{won}.json"'
    document = json.loads(log.data)
    assert document["setup"]["pile"] == 3 and "seed" in document["setup"]
    assert [a["action"] for a in document["actions"]] == ["take 3"]
    assert client.get(f"/g/{won}/history?at=1").status_code == 200


def test_a_finished_mall_game_tells_the_score(site):
    _app, parts = site
    created = parts.service.create_game(
        [PlayerSpec("Ann", bot="greedy"), PlayerSpec("Cy", bot="random")], None, SHORT
    )
    game_id = created.game_id
    parts.service.play_bots(game_id)
    assert parts.service.clock_of(game_id)["status"] == "finished"
    doc = parts.service.state_at(game_id, seat=1)
    for seat in (1, 2):
        result = parts.service.game_result(game_id, seat)
        mine = next(p for p in doc["players"] if p["seat"] == seat)
        assert result["score"] == mine["score"]["total"]
        assert result["place"] == (1 if seat in doc["winners"] else 2)
        assert result["winners"] == [["Ann", "Cy"][s - 1] for s in doc["winners"]]


def test_my_games_filters_running_finished_game_and_opponent(site):
    app, parts = site
    running, running_tokens = nim(parts, "ann@example.com", "Ben")
    over, over_tokens = nim(parts, "ann@example.com", "Björn", finished=True)
    board, board_tokens = mall(parts, "ann@example.com")
    client = app.test_client()
    for game_id, tokens in ((running, running_tokens), (over, over_tokens), (board, board_tokens)):
        client.get(f"/g/{game_id}/{tokens[1]}")

    assert sorted(shown(client)) == sorted([running, over, board])
    assert shown(client, "?show=finished") == [over]
    assert sorted(shown(client, "?show=running")) == sorted([running, board])
    assert sorted(shown(client, "?game=nim")) == sorted([running, over])
    assert shown(client, "?opponent=bj%C3%96") == [over]  # any case
    assert shown(client, "?opponent=cy&show=running") == [board]
    page = client.get("/my-games?opponent=nobody").get_data(as_text=True)
    assert "None of your games matches these choices." in page


def test_my_games_shows_twenty_games_a_page_keeping_the_filter(site):
    app, parts = site
    client = app.test_client()
    games = []
    for number in range(23):
        game_id, tokens = nim(parts, f"ann{number}@example.com", theirs=f"ben{number}")
        client.get(f"/g/{game_id}/{tokens[1]}")
        games.append(game_id)
    first = shown(client, "?show=running")
    page = client.get("/my-games?show=running").get_data(as_text=True)
    assert len(first) == 20 and "Page 1 of 2" in page
    assert 'href="/my-games?page=2&amp;show=running&amp;game=&amp;opponent=" rel="next"' in page
    second = shown(client, "?show=running&page=2")
    assert len(second) == 3 and sorted(first + second) == sorted(games)
    assert shown(client, "?show=running&page=9") == second  # past the end: the last page


@pytest.mark.parametrize(
    "query",
    [
        "?show=everything",
        "?game=chess",
        "?page=-1",
        "?page=x",
        "?page=1e3",
        "?opponent=" + "a" * 101,
    ],
)
def test_a_filter_it_does_not_know_is_refused(site, query):
    app, parts = site
    game_id, tokens = nim(parts, "ann@example.com")
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    assert client.get(f"/my-games{query}").status_code == 400
