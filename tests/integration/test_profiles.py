"""Public profiles, opt-in: off until a signed-in person turns theirs on; then a
page at a random slug lists their finished games and results under the name they
chose, with no address and no game still in play; off again, it is a 404 at once."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.mail.compose import Composer
from pbem.service import PlayerSpec, rows

from support import csrf

SIGN_IN = re.compile(r"http://pbem\.test(/my-games/sign-in/[^\s\"<]+)")
PROFILE = re.compile(r'href="(/players/[A-Za-z0-9_-]{16})"')


@pytest.fixture
def site(make_web):
    return make_web(dev=True)


def signed_in(app, parts, address: str):
    """A browser signed in to My games as `address` (through the mailed link)."""
    client = app.test_client()
    client.post("/my-games", data={"email": address, "csrf_token": csrf(client, "/my-games")})
    parts.service.answer_link_requests()
    with parts.database.reading() as conn:
        row_id = conn.execute(
            select(rows.OUTBOX.c.id)
            .where(rows.OUTBOX.c.kind == "sign_in", rows.OUTBOX.c.address == address)
            .order_by(rows.OUTBOX.c.id.desc())
        ).scalar()
    composer = Composer(parts.service, parts.settings)
    message = composer.compose(parts.outbox.claim(row_id, composer.message_id))
    link = SIGN_IN.search(message.get_body(("plain",)).get_content())[1]
    client.post(link, data={"csrf_token": csrf(client, link)})
    return client


def nim(parts, ann: str, ben: str, *, public: bool = False, finished: bool = True) -> str:
    created = parts.service.create_game(
        [PlayerSpec("Ann", ann), PlayerSpec("Ben", ben)],
        {"public": public},
        {"pile": 3},
        game="nim",
    )
    if finished:
        parts.service.submit_action(created.game_id, created.seats[0].token, "take 3")
    return created.game_id


def turn_on(client, name: str):
    return client.post(
        "/my-games/profile", data={"name": name, "csrf_token": csrf(client, "/my-games")}
    )


def test_a_profile_is_off_until_turned_on_and_lists_finished_games_only(site):
    app, parts = site
    public = nim(parts, "ann@example.com", "ben@example.com", public=True)
    private = nim(parts, "ann@example.com", "cy@example.com")
    running = nim(parts, "ann@example.com", "dee@example.com", finished=False)
    client = signed_in(app, parts, "ann@example.com")
    page = client.get("/my-games").get_data(as_text=True)
    assert "Turn my public profile on" in page and PROFILE.search(page) is None

    assert turn_on(client, "Annie  the Great").status_code == 303
    path = PROFILE.search(client.get("/my-games").get_data(as_text=True))[1]
    stranger = app.test_client()
    record = stranger.get(path)
    assert record.status_code == 200 and record.mimetype == "text/html"
    assert record.headers["Cache-Control"] == "no-cache"
    text = record.get_data(as_text=True)
    assert "<h1>Annie the Great</h1>" in text
    assert f'href="/g/{public}/watch"' in text  # a public game is linked
    assert text.count("place 1 of 2") == 2 and "— won." in text
    assert private not in text and running not in text
    assert "@" not in text and "Dee" not in text


def test_turning_a_profile_off_makes_its_page_404_at_once(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = signed_in(app, parts, "ann@example.com")
    turn_on(client, "Ann")
    path = PROFILE.search(client.get("/my-games").get_data(as_text=True))[1]
    assert app.test_client().get(path).status_code == 200
    off = client.post("/my-games/profile/off", data={"csrf_token": csrf(client, "/my-games")})
    assert off.status_code == 303
    assert app.test_client().get(path).status_code == 404
    turn_on(client, "Ann")  # on again: a new address, the old one stays gone
    again = PROFILE.search(client.get("/my-games").get_data(as_text=True))[1]
    assert again != path and app.test_client().get(path).status_code == 404


def test_renaming_keeps_the_address(site):
    app, parts = site
    nim(parts, "ann@example.com", "ben@example.com")
    client = signed_in(app, parts, "ann@example.com")
    turn_on(client, "Ann")
    path = PROFILE.search(client.get("/my-games").get_data(as_text=True))[1]
    turn_on(client, "Ann B.")
    assert PROFILE.search(client.get("/my-games").get_data(as_text=True))[1] == path
    assert "<h1>Ann B.</h1>" in app.test_client().get(path).get_data(as_text=True)
