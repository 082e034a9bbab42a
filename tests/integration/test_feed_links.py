"""What a deadline feed's entries carry: a link that opens the seat's page in the
browser that follows it (a feed reader's too), the Atom feed's time of its last
change, and calendar events half an hour long with an alarm at each reminder."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime as Moment
from datetime import timedelta

import pytest
from icalendar import Calendar

from pbem.events import parse_timestamp
from pbem.service import PlayerSpec

from support import SHORT, feed_of

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def site(make_web):
    return make_web()


def new_game(parts, **options):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, **options},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def feed_with(app, game_id, token):
    client = app.test_client()
    client.get(f"/g/{game_id}/{token}")
    feed = feed_of(client)
    assert feed is not None
    return client, feed


def entry_links(client, feed):
    root = ET.fromstring(client.get(f"/feeds/{feed}.atom").data)
    return [e.find(f"{ATOM}link").get("href") for e in root.findall(f"{ATOM}entry")]


def test_a_feed_entry_opens_the_seat_in_a_browser_that_never_held_it(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client, feed = feed_with(app, game_id, tokens[1])
    (link,) = entry_links(client, feed)
    assert link.startswith(f"http://pbem.test/feeds/{feed}/seat/{game_id}/1/")

    reader = app.test_client()  # a feed reader's own browser: no cookie
    assert reader.get(f"/g/{game_id}").status_code == 403  # "This game is private"
    opened = reader.get(link.removeprefix("http://pbem.test"))
    assert opened.status_code == 302 and opened.headers["Location"] == f"/g/{game_id}"
    page = reader.get(f"/g/{game_id}")
    assert page.status_code == 200
    assert f'action="/g/{game_id}/play"' in page.get_data(as_text=True)  # seat 1 to move


def test_the_browser_that_made_the_feed_keeps_its_seat_in_the_feed(site):
    """Following the link in the browser that made the feed keeps its seat session,
    which the feed follows: the entry stays."""
    app, parts = site
    game_id, tokens = new_game(parts)
    client, feed = feed_with(app, game_id, tokens[1])
    (link,) = entry_links(client, feed)
    assert client.get(link.removeprefix("http://pbem.test")).status_code == 302
    assert entry_links(client, feed) == [link]


def test_the_atom_feed_is_updated_at_its_last_change_not_at_a_deadline(site, clock):
    app, parts = site
    game_id, tokens = new_game(parts)
    created = clock()
    clock.advance(hours=3)
    client, feed = feed_with(app, game_id, tokens[2])
    root = ET.fromstring(client.get(f"/feeds/{feed}.atom").data)
    assert Moment.fromisoformat(root.findtext(f"{ATOM}updated")) == created
    (entry,) = root.findall(f"{ATOM}entry")
    assert Moment.fromisoformat(entry.findtext(f"{ATOM}updated")) == created

    clock.advance(hours=1)
    moved = clock()
    parts.service.submit_action(game_id, tokens[1], parts.service.legal(game_id, 1)[0])
    root = ET.fromstring(client.get(f"/feeds/{feed}.atom").data)
    assert Moment.fromisoformat(root.findtext(f"{ATOM}updated")) == moved


def test_a_calendar_event_lasts_half_an_hour_and_alarms_at_each_reminder(site):
    app, parts = site
    game_id, tokens = new_game(parts, reminders=[24, 2])
    client, feed = feed_with(app, game_id, tokens[1])
    (event,) = Calendar.from_ical(client.get(f"/feeds/{feed}.ics").data).walk("VEVENT")
    deadline = parse_timestamp(parts.service.clock_of(game_id)["deadline"])
    assert event.decoded("dtend") == deadline
    assert event.decoded("dtstart") == deadline - timedelta(minutes=30)
    assert str(event["url"]).startswith(f"http://pbem.test/feeds/{feed}/seat/{game_id}/1/")
    alarms = event.walk("VALARM")
    assert sorted(a.decoded("trigger") for a in alarms) == [
        deadline - timedelta(hours=24),
        deadline - timedelta(hours=2),
    ]
    assert {str(a["action"]) for a in alarms} == {"DISPLAY"}
