"""Every page tells a known viewer how many games wait on their move: the title
("(2) Rules — …"), the header's My games link, and the favicon's mark; the game page
of the seat to move starts its title with "(your turn)". The count is one query
over the cookie's seat sessions, however many games the browser holds (on SQLite
and PostgreSQL)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event

from pbem.service import PlayerSpec

from support import SHORT

TITLE = re.compile(r"<title>([^<]*)</title>")
ICON = re.compile(r'<link rel="icon" href="([^"]+)"')


@pytest.fixture
def site(make_web):
    return make_web(dev=True)


def new_game(parts, ann="ann@example.com", ben="ben@example.com"):
    created = parts.service.create_game(
        [PlayerSpec("Ann", ann), PlayerSpec("Ben", ben)], {"hours_per_turn": 48}, SHORT
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def play(parts, game_id, tokens, seat):
    doc = parts.service.state_at(game_id)
    assert doc["turn"] == seat
    parts.service.submit_action(
        game_id, tokens[seat], parts.service.legal(game_id, seat)[0], doc["seq"]
    )


def title_and_icon(client, path: str) -> tuple[str, str]:
    page = client.get(path).get_data(as_text=True)
    return TITLE.search(page)[1], ICON.search(page)[1]


def test_a_page_that_is_no_game_counts_the_games_waiting_in_its_title_and_header(site):
    app, parts = site
    first, tokens_1 = new_game(parts)
    second, tokens_2 = new_game(parts)
    client = app.test_client()
    for game_id, tokens in ((first, tokens_1), (second, tokens_2)):
        assert client.get(f"/g/{game_id}/{tokens[1]}").status_code == 302

    title, icon = title_and_icon(client, "/rules")
    assert title == "(2) Rules — Mall by mail"
    assert icon.endswith("/static/favicon-turn.svg")
    page = client.get("/new").get_data(as_text=True)
    assert TITLE.search(page)[1] == "(2) New game — Mall by mail"
    assert '<span class="badge" aria-hidden="true">2</span>' in page
    assert '<span class="sr-only">2 games waiting for you</span>' in page

    play(parts, first, tokens_1, 1)  # Ann moved in one: one game still waits on her
    assert title_and_icon(client, "/rules")[0] == "(1) Rules — Mall by mail"
    assert title_and_icon(client, "/my-games")[0] == "(1) My games — Mall by mail"
    play(parts, second, tokens_2, 1)
    title, icon = title_and_icon(client, "/rules")
    assert title == "Rules — Mall by mail"
    assert icon.endswith("/static/favicon.svg")
    assert '<span class="waiting-count" hidden>' in client.get("/rules").get_data(as_text=True)


def test_the_seat_to_move_reads_your_turn_first_and_nobody_else_does(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    ann, ben, stranger = app.test_client(), app.test_client(), app.test_client()
    assert ann.get(f"/g/{game_id}/{tokens[1]}").status_code == 302
    assert ben.get(f"/g/{game_id}/{tokens[2]}").status_code == 302

    title, icon = title_and_icon(ann, f"/g/{game_id}")
    assert title == "(your turn) Ann vs Ben (Mall) — Mall by mail"  # one waits, this: no (1)
    assert icon.endswith("/static/favicon-turn.svg")
    title, icon = title_and_icon(ben, f"/g/{game_id}")
    assert title == "Ann vs Ben (Mall) — Mall by mail" and icon.endswith("/static/favicon.svg")
    assert title_and_icon(stranger, "/rules")[0] == "Rules — Mall by mail"
    # in German too
    ann.get(f"/language/de?next=/g/{game_id}")
    german = title_and_icon(ann, f"/g/{game_id}")[0]
    assert german.startswith("(du bist am Zug) Ann gegen Ben ("), german

    play(parts, game_id, tokens, 1)
    assert title_and_icon(ann, f"/g/{game_id}")[0].startswith("Ann gegen Ben (")
    title, icon = title_and_icon(ben, f"/g/{game_id}")
    assert title.startswith("(your turn) Ann vs Ben (") and icon.endswith("favicon-turn.svg")


def test_a_seat_handed_on_or_forgotten_counts_nothing(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{tokens[1]}").status_code == 302
    assert title_and_icon(client, "/rules")[0].startswith("(1) ")
    with client.session_transaction() as cookie:  # a forged game id, a junk session id
        cookie["seats"] = {**cookie["seats"], "no-such-game": "x" * 40, game_id + "x": 7}
    assert title_and_icon(client, "/rules")[0].startswith("(1) ")
    client.post(f"/g/{game_id}/forget", data={"csrf_token": _csrf(client, game_id)})
    assert title_and_icon(client, "/rules")[0] == "Rules — Mall by mail"


def _csrf(client, game_id: str) -> str:
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page)[1]


def test_the_count_is_one_query_however_many_games_the_browser_holds(site):
    app, parts = site
    client = app.test_client()

    def statements_for_a_page() -> int:
        seen: list[str] = []

        def count(conn, cursor, statement, *args) -> None:
            seen.append(statement)

        event.listen(parts.database.engine, "before_cursor_execute", count)
        try:
            assert client.get("/rules").status_code == 200
        finally:
            event.remove(parts.database.engine, "before_cursor_execute", count)
        return len(seen)

    game_id, tokens = new_game(parts)
    client.get(f"/g/{game_id}/{tokens[1]}")
    one = statements_for_a_page()
    for _ in range(6):
        game_id, tokens = new_game(parts)
        client.get(f"/g/{game_id}/{tokens[1]}")
    assert title_and_icon(client, "/rules")[0].startswith("(7) ")
    assert statements_for_a_page() == one
