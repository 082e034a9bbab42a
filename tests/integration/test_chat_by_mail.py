"""Table talk by mail: in a reply to a game's mail, lines starting `say ` become chat
lines (a move line in the same reply still plays; quoted lines never count), and
the other players get the lines, gathered a few minutes, in a chat mail delivered
over SMTP."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from hidden import shows

from pbem.events import ActionTaken
from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due

from support import Kept, Table, free_port


@pytest.fixture
def table(web):
    return Table(web[1])


def _talk(table) -> list[tuple[int | None, str]]:
    return [(line.seat, line.text) for line in table.parts.service.table_talk(table.game, 1)]


def test_say_lines_are_said_and_the_move_line_still_plays(table):
    body = "say hello Ben\nmoney L\nSAY   good luck <3"
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", body))
    assert handled.status == "accepted", handled.detail
    assert _talk(table) == [(1, "hello Ben"), (1, "good luck <3")]
    last = table.parts.service.history(table.game)[-1]
    assert isinstance(last.event, ActionTaken) and last.event.seat == 1
    assert last.event.action["type"] == "money"
    (answer,) = table.answers()
    assert answer.payload["ignored"] == []


def test_quoted_say_lines_are_never_taken_as_chat(table):
    body = "say mine\n> say quoted, not mine\n>> say older"
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", body))
    assert handled.status == "said"
    assert _talk(table) == [(1, "mine")]


def test_a_mail_of_say_lines_alone_gets_no_answer(table):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "say just talking"))
    assert (handled.status, handled.detail) == ("said", "1 line said at the table")
    assert table.answers() == []
    assert table.seq() == 2


def test_a_name_signed_under_say_lines_is_no_command(table):
    handled = table.inbound.handle(table.mail("outlook.eml", "say see you at the mall"))
    assert (handled.status, handled.ignored) == ("said", ["Ann"])
    assert table.answers() == []
    assert _talk(table) == [(1, "see you at the mall")]
    handled = table.inbound.handle(table.mail("outlook.eml", "say and now\nmoney L"))
    assert handled.status == "accepted", handled.detail


def test_a_refused_say_line_is_answered_with_the_reason(table):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "say " + "x" * 501))
    assert handled.status == "refused"
    (answer,) = table.answers()
    assert "at most 500 characters" in answer.payload["lines"][0]
    assert _talk(table) == []


def test_a_chat_line_does_not_make_an_older_mail_stale(table):
    address = table.address(1)  # the turn mail's reply address, before any talk
    table.parts.service.say(table.game, table.tokens[2], "take your time")
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "money L", address=address))
    assert handled.status == "accepted", handled.detail


def test_the_other_seat_gets_one_chat_mail_of_the_lines_gathered(table, clock):
    kept = Kept()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    try:
        parts = table.parts
        composer = Composer(parts.service, parts.settings)
        smtp = Smtp("127.0.0.1", server.port)
        deliver_due(parts.outbox, composer, smtp)  # the invitations and the first turn
        kept.mails.clear()
        table.inbound.handle(table.mail("gmail_top_post.eml", "say <b>hi</b> Ben, I hold O3"))
        clock.advance(minutes=1)
        parts.service.say(table.game, table.tokens[1], "second line " + "long " * 30)
        deliver_due(parts.outbox, composer, smtp)
        assert kept.mails == []  # it waits a few minutes for more lines
        clock.advance(minutes=3)
        deliver_due(parts.outbox, composer, smtp)
        (mail,) = kept.mails
        assert mail["X-Pbem-Kind"] == "chat"
        assert mail["To"].addresses[0].addr_spec == "ben@example.com"
        text = mail.get_body(("plain",)).get_content()
        # told as said: Ann names her own card, and no word of a line is blanked
        assert "Ann: <b>hi</b> Ben, I hold O3" in text and "Ann: second line" in text
        assert max(len(line) for line in text.splitlines()) <= 72  # the text part wraps
        html = mail.get_body(("html",)).get_content()
        assert "&lt;b&gt;hi&lt;/b&gt;" in html and "<b>hi</b>" not in html
        assert "I hold O3" in html and not shows(mail["Subject"], "O3")
        assert mail["Reply-To"].startswith("Mall by mail <play+")
        assert all(m["To"].addresses[0].addr_spec != "ann@example.com" for m in kept.mails)
    finally:
        server.stop()
