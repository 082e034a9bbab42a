"""Mail out: outbox rows delivered by SMTP to a real aiosmtpd server in the test,
with headers built by email.message (names cannot inject headers), the personal link
that works, threading per game and seat, and the dev page listing what was caught."""

from __future__ import annotations

import socket
from email import policy
from email.parser import BytesParser

import pytest
from sqlmodel import select

from pbem.mail import catcher
from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import PlayerSpec
from pbem.store.tables import Outbox


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp(tmp_path):
    """A running catcher: (its Smtp address, its Maildir folder, where the dev mode
    of the `web` fixture looks for it)."""
    folder = tmp_path / "instance" / "mail"
    port = free_port()
    controller = catcher.start(folder, port=port)
    yield Smtp("127.0.0.1", port), folder
    controller.stop()


def caught(folder) -> list:
    parser = BytesParser(policy=policy.default)
    return [parser.parsebytes(m.as_bytes()) for m in catcher.received(folder)]


def test_invitations_reach_the_smtp_server_with_a_working_link(web, smtp):
    app, parts = web
    address, folder = smtp
    created = parts.service.create_game(
        [PlayerSpec("Zoë Ångström", "zoe@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"seed": "mail"},
    )
    # Zoë moves first: her invitation is her first turn mail too
    assert deliver_due(parts.outbox, Composer(parts.service, parts.settings), address) == 2
    first, second = caught(folder)
    assert first["Subject"] == (
        "Zoë Ångström vs Ben: you are invited to a game of Mall, and it is your turn"
    )
    assert second["Subject"] == "Zoë Ångström vs Ben: you are invited to a game of Mall"
    assert first["To"].addresses[0].display_name == "Zoë Ångström"
    assert first["To"].addresses[0].addr_spec == "zoe@example.com"
    assert first["From"].addresses[0].addr_spec == "noreply@pbem.localhost"
    assert first["Auto-Submitted"] == "auto-generated"
    assert first["In-Reply-To"] == f"<game-{created.game_id}-seat-1@pbem.localhost>"
    assert second["To"].addresses[0].addr_spec == "ben@example.com"
    text = first.get_body(("plain",)).get_content()
    link = f"http://pbem.test/g/{created.game_id}/{created.seats[0].token}"
    assert link in text and created.seats[1].token not in text
    assert "the log's head is" in text
    assert "Answer by Wed 4 Nov 12:00 UTC" in text
    # the link to open the game, and the turn's link to play on the page
    assert first.get_body(("html",)).get_content().count(f'href="{link}"') == 2
    with parts.database.read() as s:
        rows = s.exec(select(Outbox).order_by(Outbox.id)).all()
    assert [r.status for r in rows] == ["sent", "sent"]
    assert [r.delivery_id for r in rows] == [m["Message-ID"] for m in (first, second)]
    entered = app.test_client().get(link.removeprefix("http://pbem.test"))
    assert entered.status_code == 302


def test_a_name_with_a_newline_cannot_add_a_header(web, smtp):
    _, parts = web
    address, folder = smtp
    parts.service.create_game(
        [
            PlayerSpec("Eve\nBcc: victim@example.com", "eve@example.com"),
            PlayerSpec("Ben", "b@x.org"),
        ],
        None,
        {"seed": "inject"},
    )
    deliver_due(parts.outbox, Composer(parts.service, parts.settings), address)
    first = caught(folder)[0]
    assert first["Bcc"] is None
    assert first["To"].addresses[0].display_name == "Eve Bcc: victim@example.com"


def test_a_refused_delivery_waits_and_is_tried_again(web, smtp, clock):
    _, parts = web
    address, folder = smtp
    robo = PlayerSpec("Robo", bot="greedy")  # moves first: Ann's turn mail is one of its own
    created = parts.service.create_game(
        [robo, PlayerSpec("Ann", "a@x.org"), PlayerSpec("Ben", "b@x.org")]
    )
    parts.service.play_bots(created.game_id)
    composer = Composer(parts.service, parts.settings)
    assert deliver_due(parts.outbox, composer, Smtp("127.0.0.1", free_port())) == 0
    with parts.database.read() as s:
        rows = s.exec(select(Outbox).order_by(Outbox.id)).all()
    assert {r.status for r in rows} == {"pending"}
    # Ann's turn mail waits behind her invitation, so that it cannot arrive first
    assert [(r.kind, r.attempts) for r in rows] == [
        ("invitation", 1),
        ("invitation", 1),
        ("your_turn", 0),
    ]
    assert all("ConnectionRefusedError" in r.last_error for r in rows[:2])
    assert rows[2].next_attempt_at == rows[0].next_attempt_at
    assert deliver_due(parts.outbox, composer, address) == 0  # not due for a minute
    clock.advance(minutes=1, seconds=1)
    assert deliver_due(parts.outbox, composer, address) == 3
    assert len(caught(folder)) == 3


def test_the_dev_page_shows_the_mails_the_catcher_received(web, smtp):
    app, parts = web
    address, _ = smtp
    parts.service.create_game([PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben")])
    deliver_due(parts.outbox, Composer(parts.service, parts.settings), address)
    client = app.test_client()
    listing = client.get("/dev/mail").get_data(as_text=True)
    assert (
        "ann@example.com" in listing and "Ann vs Ben: you are invited to a game of Mall" in listing
    )
    oldest = client.get("/dev/mail/1")  # the oldest is 1
    # the invitation, which is the first turn's mail too
    assert "Your personal link" in oldest.get_data(as_text=True)
    assert "Your legal actions" in oldest.get_data(as_text=True)


def test_lines_that_begin_with_a_period_arrive_as_they_were_written():
    """A line of a mail that begins with a period (or is one) is doubled on the way
    (RFC 5321's transparency) and arrives as written: a lone period never ends the
    mail early."""
    from aiosmtpd.controller import Controller

    from pbem.mail.deliver import Sender
    from pbem.mail.writing import Mail

    received: list[bytes] = []

    class Keep:
        async def handle_DATA(self, server, session, envelope) -> str:
            received.append(envelope.original_content)
            return "250 OK"

    port = free_port()
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    written = [
        b".first\r\n..second\r\n.\r\nmid.dle\r\n.\r\n\r\n. \r\n.last\r\n",
        b"Subject: x\r\n\r\nno period first\r\n",
        b"ends without a line end.",
    ]
    try:
        with Sender(Smtp("127.0.0.1", port)) as sender:
            for data in written:
                sender.send(Mail("a@example.com", ("b@example.com",), data))
    finally:
        controller.stop()
    assert received == [*written[:2], written[2] + b"\r\n"]


def test_the_envelope_is_said_as_smtplib_says_it():
    """The sender and recipients (and SIZE) reach the server as smtplib's own client
    sends them, mail after mail."""
    import smtplib

    from aiosmtpd.controller import Controller

    from pbem.mail.deliver import Sender
    from pbem.mail.writing import Mail

    seen: list[tuple] = []

    class Keep:
        async def handle_DATA(self, server, session, envelope) -> str:
            seen.append(
                (envelope.mail_from, envelope.rcpt_tos, envelope.mail_options, envelope.content)
            )
            return "250 OK"

    port = free_port()
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    mails = [
        Mail("noreply@pbem.localhost", ("ann@example.com",), b"Subject: 1\r\n\r\none\r\n"),
        Mail("noreply@pbem.localhost", ("a.b+c@x-y.example.org",), b"Subject: 2\r\n\r\n.two\r\n"),
        Mail("noreply@pbem.localhost", ("ann@example.com",), b"Subject: 3\r\n\r\nthree\r\n"),
    ]
    try:
        with Sender(Smtp("127.0.0.1", port)) as sender:
            for mail in mails:
                sender.send(mail)
        ours = list(seen)
        seen.clear()
        with smtplib.SMTP("127.0.0.1", port) as plain:
            for mail in mails:
                plain.sendmail(mail.sender, list(mail.recipients), mail.data)
    finally:
        controller.stop()
    assert len(ours) == 3 and ours == seen
    assert ours[1][:2] == ("noreply@pbem.localhost", ["a.b+c@x-y.example.org"])
    assert any(option.upper().startswith("SIZE=") for option in ours[0][2])
