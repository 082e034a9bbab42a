"""Forged authentication for games that take only authenticated mail, on SQLite and
PostgreSQL: text a sender controls (a quoted local part of the envelope sender, a
comment, a quoted string) that a receiving server copies into its
Authentication-Results header never adds a pass; only the topmost header counts,
and with PBEM_AUTHSERV_ID only when it names our server; the headers real servers
write (Gmail, Microsoft, Fastmail, Postfix with OpenDKIM and OpenDMARC, rspamd)
still authenticate their sender."""

from __future__ import annotations

import logging
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from sqlmodel import select

from pbem.mail import headers
from pbem.store.tables import InboundMail

from support import Table

OURS = "mx.pbem.test"
ANN = "ann@example.com"  # a seat's address; example.com is the domain to forge


def message(*results: str) -> EmailMessage:
    """A mail from Ann with these Authentication-Results headers, topmost first."""
    lines = [f"Authentication-Results: {r}" for r in results]
    raw = "\r\n".join([*lines, f"From: Ann <{ANN}>", "Subject: move", "", "money L", ""])
    return BytesParser(policy=policy.default).parsebytes(raw.encode("utf-8"))


# Each one names example.com only where the sender wrote it: in the quoted local
# part of the envelope sender, in a comment, or in a quoted string.
FORGED = {
    "quoted local part of smtp.mailfrom": (
        f'{OURS}; spf=pass smtp.mailfrom="x;dkim=pass header.d=example.com"@attacker.test'
    ),
    "quoted local part, upper case": (
        f'{OURS}; spf=pass smtp.mailfrom="X;DKIM=Pass Header.D=EXAMPLE.COM"@attacker.test'
    ),
    "quoted local part naming an address": (
        f'{OURS}; spf=pass smtp.mailfrom="x;dmarc=pass header.from=ann@example.com"@attacker.test'
    ),
    "a quoted selector with an escaped quote": (
        f"{OURS}; dkim=fail header.d=attacker.test"
        ' header.s="a\\" ; dkim=pass header.d=example.com "'
    ),
    "a quoted string as reason": (
        f'{OURS}; dkim=fail reason="bad; dkim=pass header.d=example.com"'
    ),
    "a nested comment": (
        f"{OURS}; spf=fail smtp.mailfrom=attacker.test (a (b) ; dkim=pass header.d=example.com )"
    ),
    "a comment with an escaped parenthesis": (
        f"{OURS}; spf=fail (x \\) ; dkim=pass header.d=example.com ) smtp.mailfrom=attacker.test"
    ),
    "a comment holding the envelope sender (pypolicyd-spf)": (
        f"{OURS}; spf=fail (mailfrom) smtp.mailfrom=attacker.test (client-ip=192.0.2.1; "
        'helo=h.attacker.test; envelope-from="x(y) ; dkim=pass header.d=example.com "'
        "@attacker.test; receiver=mx)"
    ),
    "a pass for the domain only in a comment": (
        f"{OURS}; dkim=pass (header.d=example.com) header.d=attacker.test"
    ),
    "a quoted header.d": f'{OURS}; dkim=pass header.d="example.com"',
    "the domain in a quoted string after the @": (
        f'{OURS}; spf=pass smtp.mailfrom=ann@"example.com"'
    ),
    "header.d given twice": f"{OURS}; dkim=pass header.d=attacker.test header.d=example.com",
    "a comment never closed": f"{OURS}; dkim=fail (x; dkim=pass header.d=example.com",
    "a quoted string never closed": (
        f'{OURS}; spf=fail smtp.mailfrom="x; dkim=pass header.d=example.com'
    ),
}


@pytest.mark.parametrize("authserv_id", [OURS, ""])
@pytest.mark.parametrize("results", FORGED.values(), ids=FORGED.keys())
def test_text_the_sender_wrote_adds_no_pass(results, authserv_id):
    assert headers.authenticated(message(results), ANN, authserv_id) is False


def test_a_header_of_another_authserv_id_on_top_counts_for_nothing():
    mail = message(
        "mx.attacker.test; dkim=pass header.d=example.com",
        f"{OURS}; dkim=pass header.d=example.com",
    )
    assert headers.authenticated(mail, ANN, OURS) is False


def test_only_the_topmost_header_counts_even_when_one_below_names_our_server():
    mail = message(
        f"{OURS}; dkim=fail header.d=example.com",
        f"{OURS}; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=ann@example.com",
    )
    assert headers.authenticated(mail, ANN, OURS) is False
    assert headers.authenticated(mail, ANN, "") is False


@pytest.mark.parametrize(
    "results",
    [
        "MX.Pbem.TEST; DKIM=PASS header.d=Example.COM",
        f"{OURS} ; dkim = pass header . d = example.com",
        f"{OURS}\r\n\t(our server) ;\r\n dkim=pass\r\n\theader.d=example.com",
        f"  {OURS} 1 ; dkim/1 = pass (good) header.d=example.com;",
        f'"{OURS}"; spf=pass smtp.mailfrom="ann"@example.com',
        f"{OURS}; dkim=pass header.i=@Example.com",
        f"{OURS}; dkim=pass header.d=example.com (signed by (a (deeply (nested))) key)",
        f'{OURS}; spf=pass smtp.mailfrom="a;b (c)"@example.com',
    ],
)
def test_case_space_folding_and_comments_of_a_real_pass_are_read(results):
    assert headers.authenticated(message(results), ANN, OURS) is True


def test_a_pass_for_a_domain_above_the_senders_counts_and_not_below():
    sub = message(f"{OURS}; dkim=pass header.d=example.com")
    assert headers.authenticated(sub, "ann@mail.example.com", OURS) is True
    assert (
        headers.authenticated(message(f"{OURS}; dkim=pass header.d=mail.example.com"), ANN, OURS)
        is False
    )
    assert (
        headers.authenticated(message(f"{OURS}; dkim=pass header.d=xample.com"), ANN, OURS) is False
    )


# What real receiving servers write, each with its authserv-id (None: it writes none).
REAL = {
    "gmail": (
        "mx.google.com",
        "mx.google.com;\r\n"
        "       dkim=pass header.i=@example.com header.s=20230601 header.b=Zx4/bN+q;\r\n"
        "       arc=pass (i=1 spf=pass spfdomain=example.com dkim=pass dkdomain=example.com"
        " dmarc=pass fromdomain=example.com);\r\n"
        "       spf=pass (google.com: domain of ann@example.com designates 209.85.220.41 as"
        " permitted sender) smtp.mailfrom=ann@example.com;\r\n"
        "       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com",
    ),
    "microsoft": (
        None,
        "spf=pass (sender IP is 209.85.220.41)\r\n smtp.mailfrom=example.com; dkim=pass"
        " (signature was verified)\r\n header.d=example.com;dmarc=pass action=none\r\n"
        " header.from=example.com;compauth=pass reason=100",
    ),
    "fastmail": (
        "mx3.messagingengine.com",
        "mx3.messagingengine.com;\r\n"
        "    dkim=pass (2048-bit rsa key sha256) header.d=example.com header.i=@example.com"
        " header.b=AbC+dE/f header.a=rsa-sha256 header.s=fm1 x-bits=2048;\r\n"
        "    dmarc=pass policy.published-domain-policy=none"
        " policy.applied-disposition=none policy.evaluated-disposition=none"
        " (p=none,d=none,d.eval=none) policy.policy-from=p header.from=example.com;\r\n"
        "    iprev=pass smtp.remote-ip=192.0.2.10 (mail.example.com);\r\n"
        "    spf=pass smtp.mailfrom=ann@example.com smtp.helo=mail.example.com;\r\n"
        "    x-aligned-from=pass (Address match);\r\n"
        "    x-me-sender=none;\r\n"
        "    x-ptr=pass smtp.helo=mail.example.com policy.ptr=mail.example.com",
    ),
    "postfix with opendmarc (on top of opendkim's)": (
        "mail.example.org",
        "mail.example.org; dmarc=pass (p=none dis=none) header.from=example.com",
    ),
    "postfix with opendkim": (
        "mail.example.org",
        "mail.example.org;\r\n\tdkim=pass (2048-bit key; unprotected) header.d=example.com"
        ' header.i=@example.com header.a=rsa-sha256 header.s=mail header.b="Ab+/cdEf";\r\n'
        "\tdkim-atps=neutral",
    ),
    "postfix with pypolicyd-spf": (
        "mail.example.org",
        "mail.example.org; spf=pass (mailfrom) smtp.mailfrom=example.com"
        " (client-ip=192.0.2.10; helo=mail.example.com; envelope-from=ann@example.com;"
        " receiver=<UNKNOWN>)",
    ),
    "rspamd": (
        "mx.example.net",
        "mx.example.net;\r\n\tdkim=pass header.d=example.com header.s=mail header.b=AbCdEf12;"
        "\r\n\tdmarc=pass (policy=reject) header.from=example.com;\r\n\tspf=pass"
        ' (mx.example.net: domain of "ann@example.com" designates 192.0.2.10 as permitted'
        " sender) smtp.mailfrom=ann@example.com",
    ),
}


@pytest.mark.parametrize(("authserv_id", "results"), REAL.values(), ids=REAL.keys())
def test_real_servers_headers_authenticate_the_sender(authserv_id, results):
    mail = message(results, "mx.attacker.test; dkim=fail header.d=example.com")
    assert headers.authenticated(mail, ANN, authserv_id or "") is True
    if authserv_id:
        assert headers.authenticated(mail, ANN, "other.example.org") is False
    # the same header for another sender's domain is no pass
    assert headers.authenticated(mail, "eve@attacker.test", authserv_id or "") is False


@pytest.mark.parametrize(("authserv_id", "results"), REAL.values(), ids=REAL.keys())
def test_a_real_servers_fail_is_no_pass(authserv_id, results):
    failed = results.replace("=pass", "=fail")
    assert headers.authenticated(message(failed), ANN, authserv_id or "") is False


def test_without_the_setting_the_process_says_once_that_it_is_missing(caplog, monkeypatch):
    monkeypatch.setattr(headers, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="pbem.mail.headers"):
        headers.authenticated(message(f"{OURS}; none"), ANN, "")
        headers.authenticated(message(f"{OURS}; none"), ANN, "")
        headers.authenticated(message(f"{OURS}; none"), ANN, OURS)
    said = [r.getMessage() for r in caplog.records if "PBEM_AUTHSERV_ID" in r.getMessage()]
    assert len(said) == 1


# -- end to end: through the inbound handler and `pbem inbound` ----------------------


@pytest.fixture
def parts(database_url, make_parts, clock):
    """The server's parts on a database of each kind, our server's authserv-id set."""
    return make_parts(clock, database_url=database_url, dev=True, authserv_id=OURS)


def with_results(raw: bytes, *results: str) -> bytes:
    return b"".join(f"Authentication-Results: {r}\n".encode() for r in results) + raw


def ledger(parts) -> list[tuple[str, str | None]]:
    with parts.database.read() as s:
        return [(r.status, r.outcome) for r in s.exec(select(InboundMail)).all()]


@pytest.mark.parametrize(
    "results",
    [
        FORGED["quoted local part of smtp.mailfrom"],
        FORGED["a nested comment"],
        "mx.attacker.test; dkim=pass header.d=example.com",
    ],
    ids=["quoted local part", "nested comment", "another authserv-id"],
)
def test_a_forged_pass_plays_nothing_and_is_recorded_as_refused(parts, results):
    table = Table(parts, authenticated_mail=True)
    forged = with_results(table.mail("gmail_top_post.eml", "money L"), results)
    handled = table.inbound.handle(forged)
    assert handled.status == "refused", handled.detail
    assert "authenticated" in handled.detail
    assert table.seq() == 1 and table.answers() == []
    assert len(parts.service.history(table.game)) == 1
    assert ledger(parts) == [("handled", "refused")]
    # the seat's genuine mail, authenticated by our server, still plays
    genuine = with_results(
        table.mail("gmail_top_post.eml", "money L"), f"{OURS}; dkim=pass header.d=example.com"
    )
    assert table.inbound.handle(genuine).status == "accepted"
    assert table.seq() == 2


def test_pbem_inbound_refuses_the_quoted_local_part_forgery(make_parts, clock, tmp_path):
    parts = make_parts(clock, dev=True, authserv_id=OURS)
    table = Table(parts, authenticated_mail=True)
    settings = parts.settings
    env = {
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
        "PBEM_BASE_URL": "http://pbem.test",
        "PBEM_AUTHSERV_ID": OURS.upper(),
        "PATH": "",
    }
    run = [sys.executable, "-m", "pbem.cli", "inbound"]
    forged = with_results(
        table.mail("outlook.eml", "money L"), FORGED["quoted local part of smtp.mailfrom"]
    )
    refused = subprocess.run(run, input=forged, env=env, capture_output=True, check=False)
    assert refused.returncode == 0, refused.stderr
    assert refused.stdout.decode().startswith("refused: the game takes only mail")
    assert table.seq() == 1
    genuine = with_results(
        table.mail("outlook.eml", "money L"), f"{OURS}; spf=pass smtp.mailfrom=ann@example.com"
    )
    played = subprocess.run(run, input=genuine, env=env, capture_output=True, check=False)
    assert played.stdout.decode().startswith("accepted:"), played.stdout
    assert table.seq() == 2
