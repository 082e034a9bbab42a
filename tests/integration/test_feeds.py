"""The Atom and iCalendar feeds of my deadlines: read back with a parser, behind a
signed secret address (a wrong or tampered one is a 404), and a seat handed on
drops out of its old holder's feed."""

from __future__ import annotations

import re
import string
import xml.etree.ElementTree as ET

import pytest
from icalendar import Calendar

from pbem.service import PlayerSpec
from pbem.store.events import parse_timestamp

from support import SHORT, csrf

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
    page = client.get("/my-games").get_data(as_text=True)
    return client, re.search(r'href="/feeds/([^"]+)\.atom"', page)[1]


def test_the_feeds_list_each_deadline_of_my_seats_most_urgent_first(site):
    app, parts = site
    later, tokens_later = new_game(parts, hours=72)
    sooner, tokens_sooner = new_game(parts, hours=24)
    other, _ = new_game(parts, hours=12)  # not mine
    client, secret = feed_address(app, [(later, tokens_later[2]), (sooner, tokens_sooner[1])])

    atom = client.get(f"/feeds/{secret}.atom")
    ics = client.get(f"/feeds/{secret}.ics")

    assert atom.status_code == ics.status_code == 200
    assert atom.mimetype == "application/atom+xml" and ics.mimetype == "text/calendar"
    entries = ET.fromstring(atom.data).findall(f"{ATOM}entry")
    titles = [e.findtext(f"{ATOM}title") for e in entries]
    deadline = {g: parts.service.clock_of(g)["deadline"] for g in (later, sooner)}
    assert titles == [
        f"Mall {sooner}: your turn, until {deadline[sooner][:16].replace('T', ' ')} UTC",
        f"Mall {later}: Ann to move, until {deadline[later][:16].replace('T', ' ')} UTC",
    ]
    events = Calendar.from_ical(ics.data).walk("VEVENT")
    starts = {str(e["summary"]): e.decoded("dtstart") for e in events}
    assert len(events) == 2 and all(other not in s for s in starts)
    for game_id in (later, sooner):
        (start,) = [when for summary, when in starts.items() if game_id in summary]
        assert start == parse_timestamp(deadline[game_id])
        assert start.tzinfo is not None and start.utcoffset().total_seconds() == 0


def test_a_tampered_or_made_up_feed_address_is_a_404(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1])])
    body, _, signature = secret.rpartition(".")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")

    for wrong in (f"{body}.{flipped}", f"{body}x.{signature}", "made-up", f"{secret}x"):
        assert client.get(f"/feeds/{wrong}.atom").status_code == 404, wrong
        assert client.get(f"/feeds/{wrong}.ics").status_code == 404, wrong


def test_only_the_exact_address_opens_a_feed_not_another_spelling_of_its_signature(site):
    """Base64 leaves the last character of the signature a few spare bits: every
    other character that decodes to the same bytes is still a wrong address."""
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1])])
    body, _, signature = secret.rpartition(".")
    alphabet = string.ascii_letters + string.digits + "-_"
    others = [f"{body}.{signature[:-1]}{c}" for c in alphabet if c != signature[-1]]
    opened = [o for o in others if client.get(f"/feeds/{o}.atom").status_code != 404]
    assert opened == []
    assert client.get(f"/feeds/{secret}.atom").status_code == 200


def test_a_seat_handed_on_drops_out_of_its_old_holders_feed(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=24)
    kept, kept_tokens = new_game(parts, hours=24)
    client, secret = feed_address(app, [(game_id, tokens[1]), (kept, kept_tokens[1])])

    parts.service.replace_seat(game_id, 1, "human", name="Cara", email="cara@example.com")

    titles = [
        e.findtext(f"{ATOM}title")
        for e in ET.fromstring(client.get(f"/feeds/{secret}.atom").data).findall(f"{ATOM}entry")
    ]
    assert len(titles) == 1 and kept in titles[0]
    calendar = Calendar.from_ical(client.get(f"/feeds/{secret}.ics").data)
    assert [kept in str(e["summary"]) for e in calendar.walk("VEVENT")] == [True]


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

    entries = ET.fromstring(client.get(f"/feeds/{secret}.atom").data).findall(f"{ATOM}entry")
    assert [kept in e.findtext(f"{ATOM}title") for e in entries] == [True]
    client.post("/my-games/sign-out", data={"csrf_token": token})
    assert ET.fromstring(client.get(f"/feeds/{secret}.atom").data).findall(f"{ATOM}entry") == []
    assert Calendar.from_ical(client.get(f"/feeds/{secret}.ics").data).walk("VEVENT") == []
