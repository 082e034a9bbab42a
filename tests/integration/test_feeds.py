"""The Atom and iCalendar feeds of my deadlines: read back with a parser, behind a
random secret address of the browser that made it, which "New feed address", signing
out and a new secret key revoke; a seat forgotten or handed on drops out of it. (What
the address may not tell, and hostile addresses, are tests/security's.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from icalendar import Calendar
from sqlalchemy import text

from pbem.events import parse_timestamp
from pbem.service import PlayerSpec

from support import FEED, SHORT, csrf, feed_of

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def site(make_web):
    return make_web()


def new_game(parts, hours):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": hours},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def feed_address(app, held: list[tuple[str, str]]) -> tuple[object, str]:
    client = app.test_client()
    for game_id, token in held:
        client.get(f"/g/{game_id}/{token}")
    feed = feed_of(client)
    assert feed is not None
    return client, feed


def test_a_browser_has_a_feed_only_once_it_asks(site):
    """Looking at My games makes no feed (and so never writes the browser's cookie);
    the page's button makes one, and My games links it from then on."""
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    page = client.get("/my-games").get_data(as_text=True)
    assert "/feeds/new" in page and 'href="/feeds/' not in page
    with parts.database.reading() as conn:
        assert conn.execute(text("SELECT count(*) FROM feeds")).scalar() == 0
    answer = client.post("/feeds/new", data={"csrf_token": csrf(client, "/my-games")})
    assert answer.status_code == 303
    feed = FEED.search(client.get("/my-games").get_data(as_text=True))[1]
    assert client.get(f"/feeds/{feed}.atom").status_code == 200
    assert FEED.search(client.get("/my-games").get_data(as_text=True))[1] == feed


def test_the_feeds_list_each_deadline_of_my_seats_most_urgent_first(site):
    app, parts = site
    later, tokens_later = new_game(parts, hours=72)
    sooner, tokens_sooner = new_game(parts, hours=24)
    other, _ = new_game(parts, hours=12)  # not mine
    client, secret = feed_address(app, [(later, tokens_later[2]), (sooner, tokens_sooner[1])])

    atom = client.get(f"/feeds/{secret}.atom")
    ics = client.get(f"/feeds/{secret}.ics")

    assert atom.status_code == ics.status_code == 200
    assert atom.headers["Cache-Control"] == ics.headers["Cache-Control"] == "no-store"
    assert atom.mimetype == "application/atom+xml" and ics.mimetype == "text/calendar"
    entries = ET.fromstring(atom.data).findall(f"{ATOM}entry")
    titles = [e.findtext(f"{ATOM}title") for e in entries]
    deadline = {g: parts.service.clock_of(g)["deadline"] for g in (later, sooner)}
    # each game by its name (its players': none was given), the id in its address
    assert titles == [
        f"Ann vs Ben: your turn, until {deadline[sooner][:16].replace('T', ' ')} UTC",
        f"Ann vs Ben: Ann to move, until {deadline[later][:16].replace('T', ' ')} UTC",
    ]
    assert [f"/g/{sooner}#" in e.findtext(f"{ATOM}id") for e in entries] == [True, False]
    assert [f"/g/{later}#" in e.findtext(f"{ATOM}id") for e in entries] == [False, True]
    events = Calendar.from_ical(ics.data).walk("VEVENT")
    ends = {str(e["uid"]): e.decoded("dtend") for e in events}
    assert len(events) == 2 and all(not s.startswith(f"{other}-") for s in ends)
    assert {str(e["summary"]) for e in events} == {
        "Ann vs Ben: your turn",
        "Ann vs Ben: Ann to move",
    }
    for game_id in (later, sooner):
        (end,) = [when for uid, when in ends.items() if uid.startswith(f"{game_id}-")]
        assert end == parse_timestamp(deadline[game_id])
        assert end.tzinfo is not None and end.utcoffset().total_seconds() == 0


def test_a_new_feed_address_replaces_the_old_one_which_no_longer_opens(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client, old = feed_address(app, [(game_id, tokens[1])])
    before = client.get(f"/feeds/{old}.atom")
    assert before.status_code == 200

    token = csrf(client, "/my-games")
    answer = client.post("/feeds/new", data={"csrf_token": token})
    assert answer.status_code == 303 and answer.headers["Location"] == "/my-games"
    page = client.get("/my-games").get_data(as_text=True)
    new = re.search(r'href="/feeds/([^"]+)\.atom"', page)[1]

    assert new != old
    for ending in ("atom", "ics"):
        assert client.get(f"/feeds/{old}.{ending}").status_code == 404
        assert client.get(f"/feeds/{new}.{ending}").status_code == 200
    after = client.get(f"/feeds/{new}.atom")
    assert _titles(after.data) == _titles(before.data) != []  # the same deadlines


def test_the_feed_address_stays_while_the_browser_opens_more_seats(site):
    """One address per browser: a calendar subscribed to it sees later games too."""
    app, parts = site
    first, tokens = new_game(parts, hours=24)
    later, later_tokens = new_game(parts, hours=48)
    client, secret = feed_address(app, [(first, tokens[1])])
    client.get(f"/g/{later}/{later_tokens[2]}")

    page = client.get("/my-games").get_data(as_text=True)
    assert f'href="/feeds/{secret}.atom"' in page
    ids = _ids(client.get(f"/feeds/{secret}.atom").data)
    assert len(ids) == 2 and f"/g/{first}#" in ids[0] and f"/g/{later}#" in ids[1]


def test_another_browser_has_a_feed_of_its_own(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    _, mine = feed_address(app, [(game_id, tokens[1])])
    _, theirs = feed_address(app, [(game_id, tokens[2])])
    assert mine != theirs


def test_a_new_secret_key_revokes_every_feed(site, make_parts, clock, database_url):
    from pbem.web.app import create_app

    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1])])
    assert client.get(f"/feeds/{secret}.atom").status_code == 200

    rekeyed = create_app(make_parts(clock, database_url=database_url, secret_key="a new key"))
    assert rekeyed.test_client().get(f"/feeds/{secret}.atom").status_code == 404


def _titles(atom: bytes) -> list[str | None]:
    return [e.findtext(f"{ATOM}title") for e in ET.fromstring(atom).findall(f"{ATOM}entry")]


def _ids(atom: bytes) -> list[str]:
    """Each entry's id (the game's address: its title names the game, not its id)."""
    return [e.findtext(f"{ATOM}id") or "" for e in ET.fromstring(atom).findall(f"{ATOM}entry")]


def test_a_seat_handed_on_drops_out_of_its_old_holders_feed(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    kept, kept_tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1]), (kept, kept_tokens[1])])

    parts.service.replace_seat(game_id, 1, "human", name="Cara", email="cara@example.com")

    ids = _ids(client.get(f"/feeds/{secret}.atom").data)
    assert len(ids) == 1 and f"/g/{kept}#" in ids[0]
    calendar = Calendar.from_ical(client.get(f"/feeds/{secret}.ics").data)
    assert [kept in str(e["url"]) for e in calendar.walk("VEVENT")] == [True]


def test_a_finished_game_has_no_deadline_in_the_feeds(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1])])
    while (doc := parts.service.state_at(game_id))["turn"] is not None:
        seat = doc["turn"]
        parts.service.submit_action(
            game_id, tokens[seat], parts.service.legal(game_id, seat)[0], doc["seq"]
        )
    assert ET.fromstring(client.get(f"/feeds/{secret}.atom").data).findall(f"{ATOM}entry") == []
    assert Calendar.from_ical(client.get(f"/feeds/{secret}.ics").data).walk("VEVENT") == []


def test_forgetting_a_seat_or_signing_out_takes_it_out_of_the_feed(site):
    app, parts = site
    forgotten, tokens = new_game(parts, hours=24)
    kept, kept_tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(forgotten, tokens[1]), (kept, kept_tokens[1])])
    token = csrf(client, f"/g/{forgotten}")
    client.post(f"/g/{forgotten}/forget", data={"csrf_token": token})

    assert [f"/g/{kept}#" in i for i in _ids(client.get(f"/feeds/{secret}.atom").data)] == [True]
    client.post("/my-games/sign-out", data={"csrf_token": token})
    # signing out revokes the browser's feed: its next holder starts one of its own
    assert client.get(f"/feeds/{secret}.atom").status_code == 404
    assert client.get(f"/feeds/{secret}.ics").status_code == 404
