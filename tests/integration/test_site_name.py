"""The site's name is a setting (PBEM_SITE_NAME): the pages' titles and brand, the
mails' sender, Reply-To and footer, and the deadline feeds carry it in every
language, written safely whatever its characters; the default name then appears
nowhere."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from email import message_from_bytes
from email.policy import default

import pytest
from icalendar import Calendar
from markupsafe import escape

from pbem.mail.writing import SMTP_POLICY
from pbem.service import PlayerSpec
from pbem.service.notices import Kind

from support import SHORT, MailWriter, feed_of

DEFAULT = "Mall by mail"
NAMES = [
    "Brettspiel-Café per Post",  # non-ASCII: an encoded word in the headers
    'Ann\'s "Games", <b>Inc.</b>',  # quotes, a comma and markup: quoted, escaped
    "=?utf-8?q?Fake?= Games",  # looks like an encoded word: must not decode as one
]


def _new_game(parts):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com", language="de")],
        {"hours_per_turn": 24},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


@pytest.mark.parametrize("name", NAMES)
def test_the_pages_and_feeds_carry_the_site_name(make_web, name):
    app, parts = make_web(site_name=name)
    game_id, tokens = _new_game(parts)
    client = app.test_client()
    escaped = str(escape(name))  # as Jinja escapes it: &#34; &#39; &lt; &gt; &amp;
    for path in ("/", "/new", f"/g/{game_id}/{tokens[1]}", "/my-games"):
        page = client.get(path, follow_redirects=True).get_data(as_text=True)
        title = re.search(r"<title>([^<]*)</title>", page)[1]
        assert title == escaped or title.endswith(f" — {escaped}"), (path, title)
        assert f'class="brand" href="/">{escaped}</a>' in page, path
        assert DEFAULT not in page and "<b>Inc." not in page, path

    feed = feed_of(client)
    atom = client.get(f"/feeds/{feed}.atom").get_data(as_text=True)
    title = ET.fromstring(atom.encode()).find("{http://www.w3.org/2005/Atom}title")
    assert title is not None and title.text == f"My deadlines — {name}"
    calendar = Calendar.from_ical(client.get(f"/feeds/{feed}.ics").get_data())
    assert str(calendar["x-wr-calname"]) == f"My deadlines — {name}"
    assert DEFAULT not in atom and "Mall by mail" not in calendar.to_ical().decode()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_mails_are_signed_with_the_site_name(make_parts, clock, name, language):
    parts = make_parts(clock, site_name=name)
    game_id, _ = _new_game(parts)
    writer = MailWriter(parts, clock, game_id)
    for kind, seat, to, payload in [
        (Kind.YOUR_TURN, 1, "ann@example.com", {}),
        (Kind.MY_GAMES, None, "ann@example.com", {"seats": [[game_id, 1]]}),
    ]:
        game = seat is not None
        mail = writer.compose(kind, seat, to, payload, game=game, language=language)
        # as it goes over the wire, and as a mail program reads it back
        read = message_from_bytes(mail.as_bytes(policy=SMTP_POLICY), policy=default)
        (sender,) = read["From"].addresses
        assert (sender.display_name, sender.addr_spec) == (name, "noreply@pbem.localhost")
        if game:
            (reply_to,) = read["Reply-To"].addresses
            assert reply_to.display_name == name and reply_to.username.startswith("play+")
        text = read.get_body(("plain",)).get_content()
        html = read.get_body(("html",)).get_content()
        assert f"{name}." in text, kind
        assert f"{escape(name)}." in html, kind
        assert "<b>Inc." not in html
        assert DEFAULT not in text + html + str(read["From"]), kind
