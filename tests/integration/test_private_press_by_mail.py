"""Private press by mail and by push: `say to Ben: text`, `say to Ben, Cy: text` or
`say to seat 2: text` in a reply says a line to those seats alone (names as the
game shows them, any case); a name that is no one, a missing colon, or a game
whose press does not allow it is answered with why, and nothing is said. Web Push
tells the addressees of a private line, and no one else."""

from __future__ import annotations

import json
import re

import pytest
from push_service import Device, PushService
from sqlalchemy import select

from pbem.mail.inbound import Inbound
from pbem.push.keys import application_server_key, subject
from pbem.service import PlayerSpec, rows
from pbem.service.delivery import deliver

from support import Table, token

PLAYERS = [
    PlayerSpec("Ann", "ann@example.com"),
    PlayerSpec("Ben", "ben@example.com"),
    PlayerSpec("Cy", "cy@example.com"),
]
PANEL_CSRF = re.compile(r'data-csrf="([^"]+)"')


class Nim(Table):
    """Ann, Ben and Cy at a game of nim with these press rules, and the handler
    their replies reach (the helpers of Table: `mail`, `answers`, `seq`)."""

    def __init__(self, parts, press: str = "private") -> None:
        self.parts = parts
        options = {"press": press}
        self.created = parts.service.create_game(PLAYERS, options, {"pile": 9}, game="nim")
        self.game = self.created.game_id
        self.tokens = {s.seat: s.token for s in self.created.seats}
        self.inbound = Inbound(parts.service, parts.outbox, parts.settings, parts.service.clock)

    def said(self, seat: int) -> list[tuple[int | None, str, tuple[int, ...] | None]]:
        """The chat as `seat` reads it: who said what, to whom."""
        talk = self.parts.service.table_talk(self.game, seat)
        return [(line.seat, line.text, line.to) for line in talk]


def test_say_to_names_says_each_line_to_those_seats_alone(web):
    table = Nim(web[1])
    body = "say to Ben: psst\nsay to ben, CY: both of you\nsay to seat 3: hi Cy\nsay hello all"
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", body))
    assert (handled.status, handled.detail) == ("said", "4 lines said at the table")
    assert table.said(1) == [
        (1, "psst", (2,)),
        (1, "both of you", (2, 3)),
        (1, "hi Cy", (3,)),
        (1, "hello all", None),
    ]
    assert table.said(2) == [(1, "psst", (2,)), (1, "both of you", (2, 3)), (1, "hello all", None)]
    assert table.said(3) == [(1, "both of you", (2, 3)), (1, "hi Cy", (3,)), (1, "hello all", None)]
    assert table.said(None) == [(1, "hello all", None)]  # a spectator
    handled = table.inbound.handle(
        table.mail("gmail_top_post.eml", "say to Ann and Ben: you two", 3, sender="cy@example.com")
    )
    assert handled.status == "said"
    assert table.said(2)[-1] == (3, "you two", (1, 2))
    assert table.answers() == []


@pytest.mark.parametrize(
    ("press", "line", "why"),
    [
        (
            "private",
            "say to Bob: hi",
            "“Bob” is no one at this table: a private line may go to Ben (seat 2), Cy (seat 3)",
        ),
        ("private", "say to Ben meet me at noon", "write a colon after their names"),
        ("private", "say to Ann: me, myself", "another seat than your own"),
        ("public", "say to Ben: psst", "this game's press is public"),
        ("none", "say hello", "this game is played without table talk"),
        ("none", "say to Ben: psst", "this game is played without table talk"),
    ],
)
def test_a_refused_say_line_is_answered_with_why_and_says_nothing(web, press, line, why):
    table = Nim(web[1], press)
    head = table.seq()
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", line))
    assert handled.status == "refused"
    (answer,) = table.answers()
    assert answer.payload["lines"][0].startswith("Not said at the table: ")
    assert why in answer.payload["lines"][0]
    assert table.seq() == head and table.said(1) == []


def test_to_before_a_colon_that_names_no_one_is_text_where_talk_is_public(web):
    table = Nim(web[1], "public")
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "say to be honest: fine"))
    assert handled.status == "said"
    assert table.said(3) == [(1, "to be honest: fine", None)]


@pytest.fixture
def push_service():
    service = PushService()
    yield service
    service.stop()


def _subscribed(app, game_id: str, seat_token: str, device: Device) -> None:
    """The seat's browser opens its link and subscribes the device from its page."""
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{seat_token}").status_code == 302
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    headers = {"Content-Type": "application/json", "X-CSRFToken": PANEL_CSRF.search(page)[1]}
    body = json.dumps(device.subscription())
    assert client.post(f"/g/{game_id}/push", data=body, headers=headers).status_code == 201


def test_a_private_line_is_pushed_to_its_addressee_alone(make_web, push_service):
    app, parts = make_web(push_loopback_http=True)
    created = parts.service.create_game(PLAYERS, {"press": "private"}, {"pile": 9}, game="nim")
    game = created.game_id
    devices = {seat: Device(push_service.endpoint(f"seat{seat}")) for seat in (2, 3)}
    for seat, device in devices.items():
        _subscribed(app, game, token(created, seat), device)
    parts.service.say(game, token(created, 1), "psst, Ben", [2])
    out = rows.OUTBOX.c
    with parts.database.reading() as conn:
        query = select(rows.OUTBOX).where(out.game_id == game, out.channel == "push")
        pushed = list(conn.execute(query.order_by(out.id)).all())
    assert [(row.kind, row.seat) for row in pushed] == [("chat", 2)]
    assert deliver(parts.outbox, parts.channels, pushed[0].id) == "sent"
    (push,) = push_service.pushes
    notice = devices[2].read(push, application_server_key(parts.settings), subject(parts.settings))
    assert notice["title"] == "Table talk" and "psst" not in json.dumps(notice)
