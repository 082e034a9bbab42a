"""The text part of real mails, sent through a real SMTP server (aiosmtpd) and
parsed with Python's email package, is format=flowed: its sentences unwrap whole,
no sentence goes on indented, the lists keep their indents, no line is longer than
78 but an unbreakable word; in English and in German."""

from __future__ import annotations

import re

import pytest
from aiosmtpd.controller import Controller

from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.mail.wording import unflowed
from pbem.service import PlayerSpec

from support import Kept, free_port

URL = re.compile(r"https?://\S+")


@pytest.fixture
def delivered(make_parts, clock):
    """The invitations and the first turn mail of a mall game (Ann's mails in
    English, Ben's in German), as an aiosmtpd server received them."""
    parts = make_parts(clock)
    kept = Kept()
    controller = Controller(kept, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        created = parts.service.create_game(
            [
                PlayerSpec("Ann Longname-Wordsworth", "ann@example.com"),
                PlayerSpec("Ben", "ben@example.com", language="de"),
            ],
            {"hours_per_turn": 52},
            {"seed": "flowed"},
        )
        game, tokens = created.game_id, {s.seat: s.token for s in created.seats}
        composer = Composer(parts.service, parts.settings)
        smtp = Smtp("127.0.0.1", controller.port)
        deliver_due(parts.outbox, composer, smtp)
        for _ in range(5):  # a few moves: "since your last turn" has items that wrap
            state = parts.service.state_at(game)
            seat = state["turn"]
            parts.service.submit_action(
                game, tokens[seat], parts.service.legal(game, seat)[-1], state["seq"]
            )
            deliver_due(parts.outbox, composer, smtp)
    finally:
        controller.stop()
    return kept.mails


def test_the_text_part_says_it_is_flowed_and_its_sentences_unwrap_whole(delivered):
    invitation = next(m for m in delivered if m["To"].addresses[0].username == "ann")
    text = invitation.get_body(("plain",))
    assert text.get_content_type() == "text/plain"
    assert text.get_param("format") == "flowed" and text.get_param("delsp") == "no"
    assert text.get_content_charset() == "utf-8"
    lines = unflowed(text.get_content())
    assert any(re.search(r"You are invited to a game of Mall, .*, as seat 1\.$", x) for x in lines)
    assert not any(re.match(r"\s+1\.", line) for line in text.get_content().splitlines())


def test_no_sentence_goes_on_indented_and_the_lists_keep_their_indents(delivered):
    assert len(delivered) >= 5
    for mail in delivered:
        raw = mail.get_body(("plain",)).get_content()
        for line in raw.splitlines():
            assert len(line) <= 78 or URL.search(line) or len(line.split()) == 1, line
        read = unflowed(raw)
        for before, line in zip(raw.splitlines(), raw.splitlines()[1:], strict=False):
            if before.endswith(" ") and before != "-- ":  # a soft break: prose goes on
                assert not line.startswith(" "), (before, line)
        assert all(not line.endswith(" ") for line in read if line != "-- ")


def test_what_happened_since_the_last_turn_is_a_list_that_hangs(delivered):
    with_since = [
        m
        for m in delivered
        if "Since your last turn" in m.get_body(("plain",)).get_content()
        or "Seit deinem letzten Zug" in m.get_body(("plain",)).get_content()
    ]
    assert with_since
    for mail in with_since:
        raw = mail.get_body(("plain",)).get_content().splitlines()
        start = next(i for i, line in enumerate(raw) if line.startswith(("Since", "Seit")))
        block = raw[start + 1 : raw.index("", start)]
        assert block and block[0].startswith("   - ")
        for line in block:  # items, or their lines under the item's text (hard breaks)
            assert line.startswith(("   - ", "     ")) and not line.endswith(" "), line
