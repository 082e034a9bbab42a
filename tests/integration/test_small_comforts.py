"""Small comforts: the page after creating an all-bot game links to watching it, blank
person seats are asked for a name rather than refused by the player count, and the
caught mails of dev mode keep their numbers as new ones arrive."""

from __future__ import annotations

import re
import socket

import pytest

from pbem.mail import catcher
from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import PlayerSpec

from support import SHORT, csrf


def create(client, **seats):
    form = {"csrf_token": csrf(client, "/new"), "game": "mall", "hours_per_turn": "48"}
    for seat in range(1, 5):
        form[f"kind{seat}"] = "nobody"
    form.update(seats)
    return client.post("/new", data=form)


def error_of(answer) -> str:
    found = re.search(r'class="error"[^>]*>(.*?)</p>', answer.get_data(as_text=True), re.S)
    return " ".join(found[1].split()) if found else ""


@pytest.mark.parametrize("public", [True, False])
def test_the_page_after_creating_an_all_bot_game_says_how_to_watch_it(web, public):
    app, _ = web
    client = app.test_client()
    extra = {"public": "yes"} if public else {}
    made = create(client, kind1="random", kind2="greedy", **extra)
    assert made.status_code == 303
    page = client.get(made.headers["Location"]).get_data(as_text=True)
    game_id = re.search(r"is on <span class=\"game-id\">game ([a-z0-9]+)</span>", page)[1]

    assert "open yours from your mail" not in page and "Invitations" not in page
    if public:
        assert f'<a href="/g/{game_id}/watch">Watch the game</a>' in page
        assert client.get(f"/g/{game_id}/watch").status_code == 200
    else:
        assert "/watch" not in page and "This game is private, so nobody can watch it" in page


def test_a_public_game_with_people_links_to_watching_it_and_keeps_the_invitations(web):
    app, _ = web
    client = app.test_client()
    made = create(
        client, kind1="person", name1="Ann", email1="ann@example.com", kind2="random", public="yes"
    )
    page = client.get(made.headers["Location"]).get_data(as_text=True)
    assert "Invitations with each player's personal link are on their way" in page
    assert "Watch the game</a> (anyone may)" in page


@pytest.mark.parametrize(
    ("seats", "named"),
    [
        ({"kind1": "person", "kind2": "person"}, "seat 1 and seat 2"),
        ({"kind1": "person", "kind2": "person", "kind3": "person"}, "seat 1 and seat 2"),
        ({"kind1": "random", "kind3": "person"}, "seat 3"),
        ({"kind2": "person", "name2": " ", "kind4": "person", "email4": "  "}, "seat 2 and seat 4"),
    ],
)
def test_blank_person_seats_are_asked_for_a_name_not_refused_by_the_count(web, seats, named):
    app, parts = web
    client = app.test_client()
    answer = create(client, **seats)
    assert answer.status_code == 400
    assert error_of(answer) == (
        f"{named[:1].upper()}{named[1:]}: a person needs a name and an email address for"
        " their link (or choose a bot for the seat)."
    )
    assert "players" not in error_of(answer)
    assert parts.service.games() == []


def test_one_seat_taken_and_no_blank_seat_is_still_the_player_count(web):
    app, _ = web
    answer = create(app.test_client(), kind1="random")
    assert answer.status_code == 400
    assert error_of(answer).startswith("A game needs 2 to 4 players, and only 1 seat taken")


def test_the_api_asks_a_blank_player_for_a_name(web):
    app, _ = web
    blank = {"name": "", "email": ""}
    answer = app.test_client().post("/api/games", json={"players": [blank, blank]})
    assert answer.status_code == 400 and "needs a name" in answer.json["error"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_caught_mail_keeps_its_number_as_new_ones_arrive(web, tmp_path):
    app, parts = web
    folder = tmp_path / "instance" / "mail"
    port = _free_port()
    controller = catcher.start(folder, port=port)
    composer, smtp = Composer(parts.service, parts.settings), Smtp("127.0.0.1", port)
    client = app.test_client()
    try:
        parts.service.create_game(
            # two invitations (Ann's tells her first turn too)
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
            None,
            SHORT,
        )
        deliver_due(parts.outbox, composer, smtp)
        first = {n: client.get(f"/dev/mail/{n}").get_data(as_text=True) for n in (1, 2)}
        parts.service.create_game(
            [PlayerSpec("Cara", "cara@example.com"), PlayerSpec("Dan", "dan@example.com")],
            None,
            SHORT,
        )
        deliver_due(parts.outbox, composer, smtp)
    finally:
        controller.stop()

    assert "ann@example.com" in first[1] and "Your personal link" in first[1]
    for n in (1, 2):
        assert client.get(f"/dev/mail/{n}").get_data(as_text=True) == first[n]
    assert "cara@example.com" in client.get("/dev/mail/3").get_data(as_text=True)
    assert client.get("/dev/mail/0").status_code == 404
    assert client.get("/dev/mail/5").status_code == 404
    listing = client.get("/dev/mail").get_data(as_text=True)
    numbers = [int(n) for n in re.findall(r'href="/dev/mail/(\d+)"', listing)]
    assert numbers == [4, 3, 2, 1]  # newest first, each with its own number


def test_an_answer_that_changes_nothing_never_sets_the_session_cookie(web):
    """Pages poll while a player opens another seat's link: an answer that carried
    the session cookie as it was would, arriving late, take that seat out of the
    browser again."""
    app, parts = web
    first = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True},
        SHORT,
    )
    second = parts.service.create_game(
        [PlayerSpec("Cy", "cy@example.com"), PlayerSpec("Di", "di@example.com")], None, SHORT
    )
    client = app.test_client()
    opened = client.get(f"/g/{first.game_id}/{first.seats[0].token}")
    assert "session=" in opened.headers.get("Set-Cookie", "")  # the link changes it
    # the first page with a form keeps its CSRF token in the session: a change
    assert "session=" in client.get(f"/g/{first.game_id}").headers.get("Set-Cookie", "")
    for url in (
        f"/g/{first.game_id}",
        f"/g/{first.game_id}/live",
        f"/g/{first.game_id}/live?since=1",
        f"/g/{first.game_id}/watch",
        f"/g/{first.game_id}/history",
        f"/g/{second.game_id}/watch",
        "/my-games",
        "/my-games/live",
        "/",
        f"/rules/{parts.service.state_at(first.game_id)['game']}",
    ):
        answer = client.get(url)
        assert answer.status_code in (200, 403, 404), (url, answer.status_code)
        assert "Set-Cookie" not in answer.headers, url
    assert "Your seat" in client.get(f"/g/{first.game_id}").get_data(as_text=True)
