"""A German reader's mails about a game against bots call the bots by their German
names ("Gieriger Bot", "Zufallsbot") in the subject, the text and the HTML, and say
none of the games' English words."""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from german import english_left, game_english_left, visible_text

from pbem.games import GAMES
from pbem.service import PlayerSpec
from pbem.service.notices import Kind

from support import MailWriter

TYPED = frozenset({"money", "build", "at", "for", "attraction", "mirror", "dock", "pass"})
TYPED |= {"take", "status", "legal", "undo", "help", "say", "agree", "refuse", "Anna"}


def parts_of(message: EmailMessage) -> dict[str, str]:
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    assert plain is not None and html is not None
    return {
        "subject": str(message["Subject"]),
        "text": plain.get_content(),
        "html": visible_text(html.get_content()),
    }


# the games whose bots include a greedy and a random one (their German names below)
@pytest.mark.parametrize(
    "game", [n for n, p in sorted(GAMES.items()) if {"greedy", "random"} <= set(p.bots)]
)
def test_mails_about_bots_name_them_in_german(make_parts, clock, game):
    parts = make_parts(clock)
    service = parts.service
    created = service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com", language="de"),
            PlayerSpec("Greedy bot", bot="greedy"),
            PlayerSpec("Random bot", bot="random"),
        ],
        {"public": True, "hours_per_turn": 48},
        {"pile": 9} if game == "nim" else None,
        game=game,
    )
    game_id, token = created.game_id, next(s.token for s in created.seats if s.seat == 1)
    writer = MailWriter(parts, clock, game_id)
    written = {
        Kind.INVITATION: writer.compose(Kind.INVITATION, 1, "anna@example.com", {}, language="de")
    }
    doc = service.state_at(game_id)
    service.submit_action(game_id, token, service.legal(game_id, 1)[0], doc["seq"])
    service.play_bots(game_id)
    if service.state_at(game_id)["turn"] == 1:
        written[Kind.YOUR_TURN] = writer.compose(
            Kind.YOUR_TURN, 1, "anna@example.com", {}, language="de"
        )
    while (doc := service.state_at(game_id))["turn"] is not None:
        if doc["turn"] == 1:
            service.submit_action(game_id, token, service.legal(game_id, 1)[0], doc["seq"])
        service.play_bots(game_id)
    written[Kind.GAME_OVER] = writer.compose(
        Kind.GAME_OVER, 1, "anna@example.com", {}, language="de"
    )
    for kind, message in written.items():
        said = parts_of(message)
        body = said["text"] + said["html"]
        assert "Gieriger Bot" in body and "Zufallsbot" in body, kind
        for part, text in said.items():
            assert english_left(text, allowed=TYPED) == [], (kind, part)
            assert game_english_left(text) == [], (kind, part)
