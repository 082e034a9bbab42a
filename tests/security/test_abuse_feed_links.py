"""Hostile use of a feed entry's link (which opens a seat): it is scoped to its
feed and to the seat's holder, so it opens nothing once the feed's address is
renewed or revoked, under another feed's address, for another seat, with a
signature altered or made up, or after the seat was handed on."""

from __future__ import annotations

import re
import secrets
import xml.etree.ElementTree as ET

import pytest

from pbem.service import PlayerSpec

from support import SHORT, csrf, feed_of

ATOM = "{http://www.w3.org/2005/Atom}"
LINK = re.compile(r"^http://pbem\.test(/feeds/([^/]+)/seat/([^/]+)/(\d)/([^/]+))$")


@pytest.fixture
def site(make_web):
    return make_web()


def new_game(parts):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 24},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def holding(app, game_id, token):
    """A browser holding the seat, its feed, and the path of the seat's entry link."""
    client = app.test_client()
    client.get(f"/g/{game_id}/{token}")
    feed = feed_of(client)
    root = ET.fromstring(client.get(f"/feeds/{feed}.atom").data)
    (entry,) = root.findall(f"{ATOM}entry")
    return client, feed, LINK.match(entry.find(f"{ATOM}link").get("href"))[1]


def opens(app, path) -> bool:
    """Whether `path` opens a seat in a browser that holds none."""
    reader = app.test_client()
    answer = reader.get(path)
    if answer.status_code != 302:
        assert answer.status_code == 404
        return False
    return reader.get(answer.headers["Location"]).status_code == 200


def test_a_renewed_feed_address_kills_its_entry_links(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client, _feed, path = holding(app, game_id, tokens[1])
    assert opens(app, path)
    client.post("/feeds/new", data={"csrf_token": csrf(client, "/my-games")})
    assert not opens(app, path)


def test_signing_out_kills_the_feeds_entry_links(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client, _feed, path = holding(app, game_id, tokens[1])
    client.post("/my-games/sign-out", data={"csrf_token": csrf(client, "/my-games")})
    assert not opens(app, path)


def test_a_link_is_good_only_under_its_own_feed_and_for_its_own_seat(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    _, mine, path = holding(app, game_id, tokens[1])
    _, theirs, their_path = holding(app, game_id, tokens[2])
    signature = path.rsplit("/", 1)[1]
    their_signature = their_path.rsplit("/", 1)[1]
    assert not opens(app, f"/feeds/{theirs}/seat/{game_id}/1/{signature}")  # another feed
    assert not opens(app, f"/feeds/{mine}/seat/{game_id}/2/{signature}")  # another seat
    assert not opens(app, f"/feeds/{mine}/seat/{game_id}/2/{their_signature}")  # not in mine
    other, _ = new_game(parts)
    assert not opens(app, f"/feeds/{mine}/seat/{other}/1/{signature}")  # another game


@pytest.mark.parametrize(
    "forged",
    [
        lambda s: s[:-1] + ("A" if s[-1] != "A" else "B"),
        lambda s: secrets.token_urlsafe(18),
        lambda s: s + "A",
        lambda s: s[:-1],
        lambda s: "",
        lambda s: "%00" + s,
        lambda s: "x" * 5000,
    ],
)
def test_an_altered_or_made_up_signature_opens_nothing(site, forged):
    app, parts = site
    game_id, tokens = new_game(parts)
    _, feed, path = holding(app, game_id, tokens[1])
    signature = path.rsplit("/", 1)[1]
    assert not opens(app, f"/feeds/{feed}/seat/{game_id}/1/{forged(signature)}")
    assert not opens(app, f"/feeds/{secrets.token_urlsafe(24)}/seat/{game_id}/1/{signature}")
    assert opens(app, path)


def test_a_seat_handed_on_is_no_longer_opened_by_its_old_holders_feed(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    _, _feed, path = holding(app, game_id, tokens[1])
    parts.service.replace_seat(game_id, 1, "human", name="Cy", email="cy@example.com")
    assert not opens(app, path)
