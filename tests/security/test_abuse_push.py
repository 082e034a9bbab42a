"""Web Push, attacked: a device subscribed on My games is pushed for the games of
the address it signed in with and no other; a browser that is not signed in cannot
subscribe an address; and a push says nothing hidden, whatever the game holds
secret or a player said at the table: exactly a title, a line and the seat's page,
in the reader's language."""

from __future__ import annotations

import json
import re

import pytest
from push_service import Device, PushService
from sqlalchemy import select
from test_abuse_sessions import signed_in_client

from pbem.push.keys import application_server_key, subject
from pbem.service import PlayerSpec, rows
from pbem.service.delivery import deliver

import support


@pytest.fixture
def push_service():
    service = PushService()
    yield service
    service.stop()


@pytest.fixture
def site(make_web, mailbox):
    return make_web(smtp_url=mailbox.url, push_loopback_http=True)


def _post(client, url: str, body: object, page: str):
    token = support.csrf(client, page)
    headers = {"Content-Type": "application/json", "X-CSRFToken": token}
    return client.post(url, data=json.dumps(body), headers=headers)


def _push_rows(parts, game_id: str):
    out = rows.OUTBOX.c
    with parts.database.reading() as conn:
        query = select(rows.OUTBOX).where(out.game_id == game_id, out.channel == "push")
        return list(conn.execute(query.order_by(out.id)).all())


def _nim(parts, first: PlayerSpec, second: PlayerSpec):
    return parts.service.create_game([first, second], None, {"pile": 9}, game="nim")


def test_a_device_of_my_games_is_pushed_for_every_game_of_its_address_and_no_other(
    site, mailbox, push_service
):
    app, parts = site
    ann, ben, eve = (
        PlayerSpec("Ann", "ann@example.com"),
        PlayerSpec("Ben", "ben@example.com"),
        PlayerSpec("Eve", "eve@example.com"),
    )
    first, second, elsewhere = _nim(parts, ben, ann), _nim(parts, ben, ann), _nim(parts, ben, eve)
    device = Device(push_service.endpoint("ann"))

    anonymous = app.test_client()
    refused = _post(anonymous, "/my-games/push", device.subscription(), "/my-games")
    assert refused.status_code == 403
    client = signed_in_client(app, parts, mailbox, "ann@example.com")
    answer = _post(client, "/my-games/push", device.subscription(), "/my-games")
    assert answer.status_code == 201
    eve_client = signed_in_client(app, parts, mailbox, "eve@example.com")
    eves = Device(push_service.endpoint("eve"))
    assert _post(eve_client, "/my-games/push", eves.subscription(), "/my-games").status_code == 201

    for game in (first, second, elsewhere):
        parts.service.submit_action(game.game_id, game.seats[0].token, "take 1")
    pushed = {
        g.game_id: [(r.seat, r.address) for r in _push_rows(parts, g.game_id)]
        for g in (first, second, elsewhere)
    }
    ids = {d: f"push:{n}" for n, d in enumerate(("ann", "eve"), start=1)}
    assert pushed == {
        first.game_id: [(2, ids["ann"])],
        second.game_id: [(2, ids["ann"])],
        elsewhere.game_id: [(2, ids["eve"])],
    }
    for game in (first, second):
        (row,) = _push_rows(parts, game.game_id)
        assert deliver(parts.outbox, parts.channels, row.id) == "sent"
    notices = [
        device.read(push, application_server_key(parts.settings), subject(parts.settings))
        for push in push_service.pushes
    ]
    assert [n["url"] for n in notices] == [
        f"http://pbem.test/g/{first.game_id}",
        f"http://pbem.test/g/{second.game_id}",
    ]
    # off on My games ends them
    off = _post(client, "/my-games/push/off", {"endpoint": device.endpoint}, "/my-games")
    assert off.status_code == 200
    parts.service.submit_action(first.game_id, first.seats[1].token, "take 1")
    parts.service.submit_action(first.game_id, first.seats[0].token, "take 1")
    assert len(_push_rows(parts, first.game_id)) == 1


def test_a_push_of_table_talk_or_an_undo_says_nothing_hidden_and_speaks_german(
    make_web, push_service
):
    app, parts = make_web(push_loopback_http=True)
    created = parts.service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com"),
            PlayerSpec("Bernd", "bernd@example.com", language="de"),
        ],
        None,
        support.SHORT,
    )
    game_id = created.game_id
    client = app.test_client()
    client.get(f"/g/{game_id}/{created.seats[1].token}")
    device = Device(push_service.endpoint("bernd"))
    answer = _post(client, f"/g/{game_id}/push", device.subscription(), f"/g/{game_id}")
    assert answer.status_code == 201

    # Anna's own secrets: what her seat sees that Bernd's does not
    mine = json.dumps(parts.service.state_at(game_id, seat=1), sort_keys=True)
    theirs = json.dumps(parts.service.state_at(game_id, seat=2), sort_keys=True)
    secret = set(re.findall(r"[A-Za-z0-9_]{2,}", mine)) - set(
        re.findall(r"[A-Za-z0-9_]{2,}", theirs)
    )
    assert support.SHORT["secrets"]["1"] in secret  # her Founder's Statue card
    line = "my secret: " + " ".join(sorted(secret))
    parts.service.say(game_id, created.seats[0].token, line[:400])
    (row,) = _push_rows(parts, game_id)
    assert set(row.payload) == {"holder", "subscription"}  # no game state in the row
    assert deliver(parts.outbox, parts.channels, row.id) == "sent"
    notice = device.read(
        push_service.pushes[-1], application_server_key(parts.settings), subject(parts.settings)
    )
    assert notice == {
        "title": "Tischgespräch",
        "body": "Anna gegen Bernd: Neues im Tischgespräch.",
        "url": f"http://pbem.test/g/{game_id}",
        "tag": f"{game_id}:chat",
    }
    said = json.dumps(notice)
    assert not [word for word in secret if word in said]
    assert "secret" not in said

    # a second line within minutes: no second push (one per few minutes a device)
    parts.service.say(game_id, created.seats[0].token, "and another line")
    assert len(_push_rows(parts, game_id)) == 1


def test_signing_out_ends_the_pushes_of_my_games(site, mailbox, push_service):
    app, parts = site
    game = _nim(parts, PlayerSpec("Ben", "ben@example.com"), PlayerSpec("Ann", "ann@example.com"))
    client = signed_in_client(app, parts, mailbox, "ann@example.com")
    device = Device(push_service.endpoint("ann"))
    assert _post(client, "/my-games/push", device.subscription(), "/my-games").status_code == 201
    signed_out = client.post(
        "/my-games/sign-out", data={"csrf_token": support.csrf(client, "/my-games")}
    )
    assert signed_out.status_code == 302
    parts.service.submit_action(game.game_id, game.seats[0].token, "take 1")
    assert _push_rows(parts, game.game_id) == []
