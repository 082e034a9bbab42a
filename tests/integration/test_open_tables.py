"""Open tables, end to end over the real outbox and a real SMTP server (aiosmtpd):
a creator lists a game with an open seat, a stranger finds it on /open, asks to
join, gets the one-use link by mail, takes the seat by its button, and the game is
made with every seat, each person invited with their own link."""

from __future__ import annotations

import re

import pytest
from aiosmtpd.controller import Controller

from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due

import support
from support import Kept, free_port

JOIN = re.compile(r"http://pbem\.test(/open/join/[^\s\"<]+)")
MANAGE = re.compile(r"/open/([^/]+)/manage/([^/\s\"?]+)")
SEAT = re.compile(r"http://pbem\.test(/g/[^\s\"<]+)")


@pytest.fixture
def site(make_web):
    return make_web()


@pytest.fixture
def mailbox():
    kept = Kept()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    yield kept, Smtp("127.0.0.1", server.port)
    server.stop()


def deliver(parts, smtp) -> None:
    deliver_due(parts.outbox, Composer(parts.service, parts.settings), smtp)


def body(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def to(kept: Kept, address: str) -> list:
    return [m for m, rcpt in zip(kept.mails, kept.recipients, strict=True) if address in rcpt]


def open_table(client, seats: int = 1, **extra: str) -> tuple[str, str]:
    """Ann lists a game of nim with `seats` open seats; the table's id and secret."""
    form = {
        "csrf_token": support.csrf(client, "/new"),
        "game": "nim",
        "kind1": "person",
        "name1": "Ann",
        "email1": "ann@example.com",
        "hours_per_turn": "48",
        **{f"kind{n}": "open" for n in range(2, 2 + seats)},
        **extra,
    }
    answer = client.post("/new", data=form)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    found = MANAGE.search(answer.headers["Location"])
    return found[1], found[2]


def ask(client, table_id: str, name: str, email: str):
    page = f"/open/{table_id}"
    data = {"csrf_token": support.csrf(client, "/my-games"), "name": name, "email": email}
    return client.post(f"{page}/join", data=data)


def take(client, link: str):
    return client.post(link, data={"csrf_token": support.csrf(client, link)})


def test_a_stranger_finds_a_table_joins_by_mail_and_the_game_starts(site, mailbox):
    app, parts = site
    kept, smtp = mailbox
    table_id, _secret = open_table(app.test_client())
    listed = app.test_client().get("/open").get_data(as_text=True)
    assert f"/open/{table_id}" in listed and "Ann" in listed and "1 seat left" in listed
    assert "ann@example.com" not in listed
    deliver(parts, smtp)
    assert kept.mails == []  # nobody is mailed while the table waits

    ben = app.test_client()
    answer = ask(ben, table_id, "Ben", "ben@example.com")
    assert answer.status_code == 200 and "a link to take the seat is on its way" in (
        answer.get_data(as_text=True)
    )
    deliver(parts, smtp)
    [mail] = to(kept, "ben@example.com")
    assert "Your seat at a table of Nim" in mail["Subject"]
    link = JOIN.search(body(mail))[1]
    shown = ben.get(link)
    assert shown.status_code == 200 and "Take my seat" in shown.get_data(as_text=True)
    assert parts.service.open_table_view(table_id)["left"] == 1  # opening took nothing

    taken = take(ben, link)
    assert taken.status_code == 303 and taken.headers["Location"].startswith("/g/")
    game_id = parts.service.open_table_view(table_id)["game_id"]
    assert game_id and taken.headers["Location"].startswith(f"/g/{game_id}/")
    assert "Ben" in ben.get(taken.headers["Location"], follow_redirects=True).get_data(as_text=True)
    deliver(parts, smtp)
    for address in ("ann@example.com", "ben@example.com"):
        invitation = [m for m in to(kept, address) if "invit" in body(m).lower()]
        assert len(invitation) == 1 and f"/g/{game_id}/" in body(invitation[0])
    assert table_id not in app.test_client().get("/open").get_data(as_text=True)
    page = app.test_client().get(f"/open/{table_id}").get_data(as_text=True)
    assert "the game is on" in page
    assert app.test_client().get(link).status_code == 403  # used once only
    again = app.test_client()
    assert (
        again.post(link, data={"csrf_token": support.csrf(again, "/my-games")}).status_code == 403
    )


def test_a_join_link_is_mailed_once_in_ten_minutes_whoever_asks(site, mailbox, clock):
    app, parts = site
    kept, smtp = mailbox
    table_id, _ = open_table(app.test_client(), seats=2)
    pages = []
    for who in range(3):
        answer = ask(app.test_client(), table_id, f"Cy{who}", "cy@example.com")
        pages.append(answer.get_data(as_text=True).replace(f"Cy{who}", "Cy"))
    deliver(parts, smtp)
    assert len(to(kept, "cy@example.com")) == 1
    assert pages[0] == pages[1] == pages[2]
    clock.advance(minutes=11)
    ask(app.test_client(), table_id, "Cy", "cy@example.com")
    deliver(parts, smtp)
    assert len(to(kept, "cy@example.com")) == 2


def test_the_creator_fills_the_table_with_bots_or_cancels_it(site, mailbox):
    app, parts = site
    kept, smtp = mailbox
    client = app.test_client()
    table_id, secret = open_table(client, seats=2)
    manage = f"/open/{table_id}/manage/{secret}"
    page = client.get(manage)
    assert page.status_code == 200 and "Start with bots" in page.get_data(as_text=True)
    data = {"csrf_token": support.csrf(client, manage), "bot": "greedy"}
    assert client.post(f"{manage}/bots", data=data).status_code == 303
    game_id = parts.service.open_table_view(table_id)["game_id"]
    assert game_id is not None
    deliver(parts, smtp)
    # the new game's invitation (its mails thread under the game's id)
    assert any(f"<game-{game_id}-" in m["References"] for m in to(kept, "ann@example.com"))

    other, other_secret = open_table(client)
    manage = f"/open/{other}/manage/{other_secret}"
    data = {"csrf_token": support.csrf(client, manage)}
    assert client.post(f"{manage}/cancel", data=data).status_code == 303
    assert other not in app.test_client().get("/open").get_data(as_text=True)
    assert ask(app.test_client(), other, "Dee", "dee@example.com").status_code == 409


def test_a_german_joiner_reads_the_pages_and_the_mail_in_german(site, mailbox):
    app, parts = site
    kept, smtp = mailbox
    table_id, _ = open_table(app.test_client())
    cy = app.test_client()
    cy.get("/language/de?next=/open")
    listed = cy.get("/open").get_data(as_text=True)
    assert "Offene Tische" in listed and "1 Platz frei" in listed
    page = cy.get(f"/open/{table_id}").get_data(as_text=True)
    assert "An diesen Tisch setzen" in page and "Am Tisch: Ann." in page
    sent = ask(cy, table_id, "Cy", "cy@example.com").get_data(as_text=True)
    assert "ist ein Link für den Platz unterwegs" in sent
    deliver(parts, smtp)
    [mail] = to(kept, "cy@example.com")
    assert mail["Subject"] == "Dein Platz an einem Tisch für Nim"
    assert "Jemand (hoffentlich du)" in body(mail)
    taken = take(cy, JOIN.search(body(mail))[1])
    seats = parts.service.seat_links(parts.service.open_table_view(table_id)["game_id"])
    assert taken.status_code == 303 and [s.language for s in seats] == ["en", "de"]


def test_who_joined_earlier_is_led_to_their_seat_once_the_game_is_on(site, mailbox):
    app, parts = site
    kept, smtp = mailbox
    ann = app.test_client()
    table_id, secret = open_table(ann, seats=2)
    ben, cy, stranger = app.test_client(), app.test_client(), app.test_client()
    for client, name in ((ben, "Ben"), (cy, "Cy")):
        ask(client, table_id, name, f"{name.lower()}@example.com")
    deliver(parts, smtp)
    ben_link = JOIN.search(body(to(kept, "ben@example.com")[0]))[1]
    cy_link = JOIN.search(body(to(kept, "cy@example.com")[0]))[1]
    assert take(ben, ben_link).headers["Location"] == f"/open/{table_id}"
    assert ben.get(f"/open/{table_id}").status_code == 200  # waiting for Cy
    assert take(cy, cy_link).status_code == 303
    game_id = parts.service.open_table_view(table_id)["game_id"]
    tokens = {s.name: s.token for s in parts.service.seat_links(game_id)}
    assert ben.get(f"/open/{table_id}").headers["Location"] == f"/g/{game_id}/{tokens['Ben']}"
    assert stranger.get(f"/open/{table_id}").status_code == 200
    assert tokens["Ben"] not in stranger.get(f"/open/{table_id}").get_data(as_text=True)
    manage = ann.get(f"/open/{table_id}/manage/{secret}").get_data(as_text=True)
    assert f"/g/{game_id}/{tokens['Ann']}" in manage and tokens["Ben"] not in manage
