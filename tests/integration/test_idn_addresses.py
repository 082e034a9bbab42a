"""A player whose mail domain is internationalised ("anna@müller.de"): the address is
kept in its ASCII form (IDNA 2008 A-labels), so her mails go to a server that speaks
no SMTPUTF8; her replies act for her seat however her mail program spells the
domain; signing in with the domain as she types it finds her games; and someone at
another address of the same domain is still a stranger."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import PlayerSpec, rows

from support import Kept, Table, csrf, free_port

ANNA = "anna@xn--mller-kva.de"  # anna@müller.de


@pytest.fixture
def table(web):
    players = [PlayerSpec("Anna", " Anna@MÜLLER.de "), PlayerSpec("Ben", "ben@example.com")]
    return Table(web[1], players)


def test_the_address_is_kept_and_mailed_in_its_ascii_form(table):
    (anna,) = [s for s in table.parts.service.seat_links(table.game) if s.seat == 1]
    assert anna.email == "Anna@xn--mller-kva.de"
    kept = Kept()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    try:
        parts = table.parts
        deliver_due(
            parts.outbox, Composer(parts.service, parts.settings), Smtp("127.0.0.1", server.port)
        )
    finally:
        server.stop()
    to_anna = [
        (r, mail)
        for r, mail in zip(kept.recipients, kept.mails, strict=True)
        if "Anna" in str(mail["To"])
    ]
    assert to_anna, "no mail reached Anna"
    for rcpt, mail in to_anna:
        assert rcpt == ["Anna@xn--mller-kva.de"]  # an SMTP server without SMTPUTF8 takes it
        assert mail["To"].addresses[0].addr_spec == "Anna@xn--mller-kva.de"


@pytest.mark.parametrize(
    "sender",
    [
        "anna@müller.de",  # a mail program that writes the domain as it reads (SMTPUTF8)
        "ANNA@MÜLLER.DE",
        "anna@xn--mller-kva.de",  # one that writes its ASCII form
        "Anna@XN--MLLER-KVA.DE",
    ],
)
def test_her_reply_plays_however_her_mail_program_spells_the_domain(table, sender):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "money L", sender=sender))
    assert handled.status == "accepted", handled.detail
    assert table.seq() == 2
    (answer,) = table.answers()
    assert answer.address == "Anna@xn--mller-kva.de"


@pytest.mark.parametrize("sender", ["eve@müller.de", "eve@xn--mller-kva.de", "anna@muller.de"])
def test_another_address_of_the_domain_is_still_a_stranger(table, sender):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "money L", sender=sender))
    assert handled.status == "refused"
    assert table.seq() == 1 and table.answers() == []


def test_a_pass_for_the_domain_in_either_spelling_authenticates_her(web):
    players = [PlayerSpec("Anna", "anna@müller.de"), PlayerSpec("Ben", "ben@example.com")]
    table = Table(web[1], players, authenticated_mail=True)
    for results, status in [
        ("pbem.localhost; dkim=pass header.d=müller.de", "accepted"),
        ("pbem.localhost; spf=pass smtp.mailfrom=anna@xn--mller-kva.de", "accepted"),
        ("pbem.localhost; dkim=pass header.d=muller.de", "refused"),
    ]:
        mail = table.mail("gmail_top_post.eml", "status", sender="anna@müller.de")
        mail = f"Authentication-Results: {results}\n".encode() + mail
        handled = table.inbound.handle(mail)
        assert handled.status == ("status" if status == "accepted" else status), results


def test_signing_in_with_the_domain_as_typed_mails_her_links(web, table):
    app, parts = web
    client = app.test_client()
    page = client.post(
        "/my-games",
        data={"csrf_token": csrf(client, "/my-games"), "email": "anna@Müller.DE"},
    )
    assert page.status_code == 200
    parts.service.answer_link_requests()  # the scheduler's sweep
    with parts.database.reading() as conn:
        mailed = conn.execute(
            select(rows.OUTBOX.c.address).where(rows.OUTBOX.c.kind == "sign_in")
        ).all()
    assert [r.address for r in mailed] == [ANNA]


def test_a_from_in_another_charset_is_read_without_failing_and_is_a_stranger(table):
    mail = table.mail("gmail_top_post.eml", "money L", sender="anna@müller.de")
    latin1 = mail.replace("anna@müller.de".encode(), "anna@müller.de".encode("latin-1"))
    assert latin1 != mail
    handled = table.inbound.handle(latin1)
    assert handled.status == "refused"
    assert table.seq() == 1
