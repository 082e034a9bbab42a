"""What a player's open page has shown them is not mailed, in Chromium: Ben's page,
open while Ann speaks at the table, follows the game by itself, and the server
learns how far it showed the game; the chat mail that would tell him the line is
then moot."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from pbem.service import PlayerSpec
from pbem.service.tokens import token_hash
from pbem.store.tables import Outbox

pytestmark = pytest.mark.live_pages
WITHIN = 10.0  # s: polls run every 3 s


def test_a_line_said_while_the_page_is_open_is_seen_and_its_mail_moot(site, browser):
    service = site.parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"pile": 9},
        game="nim",
    )
    game = created.game_id
    ann, ben = created.seats[0].token, created.seats[1].token
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/g/{game}/{ben}")
    said = service.say(game, ann, "Your move soon, Ben?")
    page.get_by_text("Your move soon, Ben?").first.wait_for(timeout=WITHIN * 1000)
    waited = 0.0
    while service.seen_by(game, 2, token_hash(ben)) < said.seq and waited < WITHIN:
        time.sleep(0.2)
        waited += 0.2
    assert service.seen_by(game, 2, token_hash(ben)) >= said.seq
    assert service.seen_by(game, 1, token_hash(ann)) == 0  # Ann's page was never open
    with site.parts.database.read() as session:
        (chat,) = session.execute(select(Outbox).where(Outbox.kind == "chat")).scalars()
    assert site.parts.outbox.moot(chat) is not None  # when it is due, it is skipped
    assert errors == []
