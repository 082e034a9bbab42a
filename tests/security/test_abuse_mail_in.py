"""Abuse of the way in by mail, on SQLite and PostgreSQL: a stranger must not get a
seat's link or view, make the server mail someone who did not ask, act for a seat,
or stop other mails; every mail that answers passes the ledger and its limits first;
a mail that cannot be read is refused for good and recorded, never "try again"."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import select
from test_imap import imap, mailbox  # noqa: F401  (the Dovecot fixture)

from pbem.mail import replyto
from pbem.service.inbox import ANSWERS_PER_HOUR, PER_SENDER_PER_HOUR
from pbem.store.tables import InboundMail
from pbem.web.app import create_app

from support import Table

POISON_FROM = '"=?utf-8?q?a=0D=0Ab?=" <x@example.org>'


@pytest.fixture
def parts(database_url, make_parts, clock):
    """The server's parts on a database of each kind (SQLite, PostgreSQL)."""
    return make_parts(clock, database_url=database_url, inbound_secret="hook-secret", dev=True)


@pytest.fixture
def table(parts):
    return Table(parts)


def ledger(parts) -> dict[str, tuple[str, str | None]]:
    """Every inbox row: its key, its status and outcome."""
    with parts.database.read() as s:
        return {r.message_id: (r.status, r.outcome) for r in s.exec(select(InboundMail)).all()}


def events(table: Table) -> int:
    return len(table.parts.service.history(table.game))


def assert_nothing_leaked(table: Table) -> None:
    """Every answer went to a seat's own address, and no seat's token left in a mail
    to anyone else."""
    seats = {1: "ann@example.com", 2: "ben@example.com"}
    for answer in table.answers():
        assert answer.address == seats[answer.seat]


def with_header(raw: bytes, name: str, value: str) -> bytes:
    """The mail with its header `name` replaced by (or given) `value`."""
    head, _, body = raw.partition(b"\n\n")
    lines = [
        line for line in head.split(b"\n") if not line.lower().startswith(name.lower().encode())
    ]
    lines.insert(0, f"{name}: {value}".encode())
    return b"\n".join(lines) + b"\n\n" + body


# -- 1. a stranger gets nothing; a reply address belongs to the seat's holder ----------


@pytest.mark.parametrize("command", ["status", "legal", "help", "money L", "nonsense"])
def test_a_stranger_gets_no_answer_and_nothing_of_the_seat(table, command):
    before = events(table)
    raw = table.mail("gmail_top_post.eml", command, sender="mallory@example.org")
    handled = table.inbound.handle(raw)
    assert handled.status == "refused" and handled.answer is None
    assert table.answers() == []
    assert events(table) == before
    assert list(ledger(table.parts).values()) == [("handled", "refused")]


def test_with_any_sender_a_stranger_may_act_but_the_answer_goes_to_the_seat(parts):
    table = Table(parts, any_sender=True)
    raw = table.mail("gmail_top_post.eml", "status", sender="mallory@example.org")
    handled = table.inbound.handle(raw)
    assert handled.status == "status"
    (answer,) = table.answers()
    assert answer.address == "ann@example.com"
    assert table.tokens[1] not in handled.detail


def test_replacing_a_seat_kills_every_older_reply_address(table):
    old = table.address(1)
    link = table.parts.service.replace_seat(
        table.game, 1, "human", name="Cy", email="cy@example.com"
    )
    before = events(table)
    for sender in ("ann@example.com", "cy@example.com"):
        handled = table.inbound.handle(
            table.mail("gmail_top_post.eml", "status", sender=sender, address=old)
        )
        assert handled.status == "refused"
    assert table.answers() == [] and events(table) == before
    fresh = replyto.reply_address(
        table.parts.settings.signing_key(),
        table.parts.settings.mail_domain,
        table.game,
        1,
        table.seq(),
        link.token,
    )
    handled = table.inbound.handle(
        table.mail("gmail_top_post.eml", "status", sender="cy@example.com", address=fresh)
    )
    assert handled.status == "status"
    assert [a.address for a in table.answers()] == ["cy@example.com"]


def test_a_reply_address_signature_is_long_enough_not_to_be_guessed(table):
    signature = table.address(1).split("@")[0].split(".")[-1]
    assert len(signature) * 5 >= 80  # base32: five bits a character


# -- 2. the ledger and its limits come before any answer -----------------------------


def test_a_stranger_flooding_or_replaying_gets_nothing(table):
    raw = table.mail("gmail_top_post.eml", "status", sender="mallory@example.org")
    for _ in range(5):
        table.inbound.handle(raw)
    for _ in range(40):
        table.inbound.handle(table.mail("gmail_top_post.eml", "help", sender="mallory@x.org"))
    assert table.answers() == []


def test_no_address_gets_more_answers_than_the_limit_from_many_senders(parts):
    table = Table(parts, any_sender=True)
    for n in range(ANSWERS_PER_HOUR + 10):
        table.inbound.handle(
            table.mail("gmail_top_post.eml", "help", sender=f"sender{n}@example.org")
        )
    answers = table.answers()
    assert {a.address for a in answers} == {"ann@example.com"}
    assert len(answers) <= ANSWERS_PER_HOUR + 1  # the answers and one note of the limit
    assert [a.payload["status"] for a in answers].count("too many") == 1


def test_mails_at_once_from_many_senders_get_no_more_answers_than_the_limit(parts):
    table = Table(parts, any_sender=True)
    mails = [
        table.mail("gmail_top_post.eml", "help", sender=f"s{n}@example.org")
        for n in range(ANSWERS_PER_HOUR + 10)
    ]
    mails += mails[:5]  # and some delivered twice
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(table.inbound.handle, mails))
    assert {o.status for o in outcomes} <= {"help", "ignored", "duplicate", "in hand"}
    statuses = [a.payload["status"] for a in table.answers()]
    assert statuses.count("help") == ANSWERS_PER_HOUR
    assert statuses.count("too many") <= 1
    assert {a.address for a in table.answers()} == {"ann@example.com"}


def test_the_seat_is_told_once_when_it_writes_too_often(table):
    outcomes = [
        table.inbound.handle(table.mail("gmail_top_post.eml", "help")).status
        for _ in range(PER_SENDER_PER_HOUR + 5)
    ]
    assert outcomes.count("help") == PER_SENDER_PER_HOUR
    statuses = [a.payload["status"] for a in table.answers()]
    assert statuses.count("help") == PER_SENDER_PER_HOUR
    assert statuses.count("too many") == 1
    (note,) = [a for a in table.answers() if a.payload["status"] == "too many"]
    assert note.address == "ann@example.com"
    assert "too many" in note.payload["lines"][0]


# -- 3. a mail that cannot be read is refused, recorded and skipped -------------------


def test_an_encoded_newline_in_from_is_refused_recorded_and_the_next_mail_plays(table):
    poison = with_header(
        table.mail("gmail_top_post.eml", "money L", message_id="<poison@x.org>"),
        "From",
        POISON_FROM,
    )
    handled = table.inbound.handle(poison)
    assert handled.status == "refused"
    assert ledger(table.parts)["<poison@x.org>"] == ("handled", "refused")
    assert table.answers() == [] and table.seq() == 1
    assert table.inbound.handle(table.mail("gmail_top_post.eml", "money L")).status == "accepted"


def _cli(parts, raw: bytes) -> subprocess.CompletedProcess:
    settings = parts.settings
    env = {
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
        "PBEM_BASE_URL": "http://pbem.test",
        "PATH": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", "inbound"],
        input=raw,
        env=env,
        capture_output=True,
        check=False,
    )


def poison_mails(table: Table) -> dict[str, bytes]:
    good = table.mail("gmail_top_post.eml", "status")
    nested = b"".join(
        f'--b{n}\nContent-Type: multipart/mixed; boundary="b{n + 1}"\n\n'.encode()
        for n in range(1500)
    )
    return {
        "encoded CR/LF in From": with_header(good, "From", POISON_FROM),
        "utf8mb4": table.mail("gmail_top_post.eml", "status").replace(
            b'charset="UTF-8"', b"charset=utf8mb4"
        ),
        "latin-99": table.mail("gmail_top_post.eml", "status").replace(
            b'charset="UTF-8"', b"charset=latin-99"
        ),
        "empty charset": table.mail("gmail_top_post.eml", "status").replace(
            b'charset="UTF-8"', b"charset="
        ),
        "odd Message-ID": table.mail("gmail_top_post.eml", "status", message_id="<<<>>>@@@"),
        "long Message-ID": table.mail(
            "gmail_top_post.eml", "status", message_id="<" + "x" * 5000 + "@example.org>"
        ),
        "1,500 nested multiparts": with_header(
            good.partition(b"\n\n")[0] + b"\n\n" + nested + b"--b1500\n\nstatus\n",
            "Content-Type",
            'multipart/mixed; boundary="b0"',
        ),
    }


def test_pbem_inbound_never_says_try_again_for_a_mail_it_cannot_read(table):
    mails = poison_mails(table)
    for name, raw in mails.items():
        done = _cli(table.parts, raw)
        assert done.returncode in (0, 67), (name, done.returncode, done.stderr)
        assert done.stdout.decode().split(":")[0] in ("refused", "status"), name
        assert "received" not in {s for s, _ in ledger(table.parts).values()}, name
    answers = len(table.answers())
    again = _cli(table.parts, mails["long Message-ID"])  # a retry: nothing more happens
    assert again.returncode == 0 and again.stdout.decode().startswith("duplicate")
    assert len(table.answers()) == answers
    assert_nothing_leaked(table)
    assert table.seq() == 1


def test_the_webhook_never_fails_on_a_mail_it_cannot_read(parts):
    app = create_app(parts)
    app.testing = True
    table = Table(parts)
    client = app.test_client()
    odd = {"Authorization": "Bearer h\u00e9-secret\u00ff"}
    assert client.post("/inbound/email", data=b"x", headers=odd).status_code in (400, 403)
    for name, raw in poison_mails(table).items():
        answer = client.post(
            "/inbound/email", data=raw, headers={"Authorization": "Bearer hook-secret"}
        )
        assert answer.status_code < 500, name
        assert answer.json["status"] in ("refused", "status"), name
    assert_nothing_leaked(table)


def test_the_imap_poller_skips_a_poison_mail_and_plays_the_next(parts, imap):  # noqa: F811
    port, user, password = imap
    table = Table(parts)
    poison = with_header(table.mail("gmail_top_post.eml", "money R"), "From", POISON_FROM)
    with mailbox(port, user, password) as box:
        box.append(poison, "INBOX")
        box.append(poison_mails(table)["1,500 nested multiparts"], "INBOX")
        box.append(table.mail("gmail_top_post.eml", "money L"), "INBOX")
    from pbem.mail.imap import poll

    assert poll(table.inbound, "127.0.0.1", port, user, password, ssl=False) == 3
    assert table.parts.service.history(table.game)[-1].text.startswith(
        "Ann played Burger Bar (Y01) from L1 as money"
    )
    with mailbox(port, user, password) as box:
        assert len(box.uids("ALL")) == 3
        assert box.uids("UNSEEN") == []


# -- 4. a failure that is really temporary leaves the ledger so the retry is handled ---


def test_the_imap_poller_leaves_a_mail_unseen_while_the_database_is_away(
    parts,
    imap,  # noqa: F811
    monkeypatch,
):
    port, user, password = imap
    table = Table(parts)
    with mailbox(port, user, password) as box:
        box.append(table.mail("gmail_top_post.eml", "money L"), "INBOX")
    service = table.parts.service
    real = service.submit_action

    def down(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is away"))

    from pbem.mail.imap import poll

    monkeypatch.setattr(service, "submit_action", down)
    with pytest.raises(OperationalError):
        poll(table.inbound, "127.0.0.1", port, user, password, ssl=False)
    with mailbox(port, user, password) as box:
        assert len(box.uids("UNSEEN")) == 1
    monkeypatch.setattr(service, "submit_action", real)
    assert poll(table.inbound, "127.0.0.1", port, user, password, ssl=False) == 1
    assert table.seq() == 2


def test_a_database_failure_leaves_the_mail_to_be_handled_on_the_retry(table, monkeypatch):
    raw = table.mail("gmail_top_post.eml", "money L", message_id="<retry@x.org>")
    service = table.parts.service
    real = service.submit_action

    def down(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is away"))

    monkeypatch.setattr(service, "submit_action", down)
    with pytest.raises(OperationalError):
        table.inbound.handle(raw)
    assert "<retry@x.org>" not in ledger(table.parts)
    monkeypatch.setattr(service, "submit_action", real)
    assert table.inbound.handle(raw).status == "accepted"
    assert table.seq() == 2


def test_pbem_inbound_says_try_again_only_when_the_database_is_away(table, tmp_path):
    env = {
        "PBEM_DATABASE_URL": "postgresql://pbem:pbem@127.0.0.1:9/nowhere",
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "away"),
        "PATH": "",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "inbound"],
        input=table.mail("gmail_top_post.eml", "money L"),
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 75, done.stderr
    assert done.stderr.decode().startswith("not handled now")


def test_a_mail_in_hand_elsewhere_is_tried_again_not_dropped(table):
    raw = table.mail("gmail_top_post.eml", "money L", message_id="<in-hand@x.org>")
    table.inbound.inbox.receive("<in-hand@x.org>", "ann@example.com", table.game)
    handled = table.inbound.handle(raw)
    assert handled.retry and table.seq() == 1


# -- 5. replies as people write them ---------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        "build L1 at 0,2.",
        "Hi,\n\nbuild L1 at 0,2",
        "Hello Mall,\nbuild L1 at 0,2",
        "Hi there!\n\nbuild L1 at 0,2.",
    ],
)
def test_a_greeting_and_a_full_stop_are_read(table, move):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", move))
    assert handled.status == "accepted", handled.detail
    assert table.parts.service.history(table.game)[-1].text.startswith(
        "Ann played Burger Bar (Y01) from L1 at 0,2"
    )


def test_a_bottom_post_under_a_wrapped_gmail_attribution_is_read(table):
    handled = table.inbound.handle(table.mail("gmail_bottom_post_wrapped.eml", "money L"))
    assert handled.status == "accepted", handled.detail


def test_an_outlook_html_reply_does_not_echo_the_quoted_mail(table):
    handled = table.inbound.handle(table.mail("outlook_html.eml", "money L"))
    assert handled.status == "accepted", handled.detail
    assert handled.ignored == []
    many = "money L\n" + "\n".join(f"line {n}" for n in range(40))
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", many, seat=2))
    assert len(table.answers()[-1].payload["ignored"]) <= 6


@pytest.mark.parametrize(("word", "done"), [("agree", "UndoDone"), ("refuse", "UndoAnswered")])
def test_an_undo_request_is_answered_by_mail(table, word, done):
    service = table.parts.service
    service.submit_action(table.game, table.tokens[1], "money L", 1)
    service.submit_action(table.game, table.tokens[2], "money R", 2)
    service.undo(table.game, table.tokens[1])
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", word, seat=2))
    assert handled.status == "undo", handled.detail
    assert service.history(table.game)[-1].type == done


# -- 6. mail authenticated by our own receiving server --------------------------------


def test_authenticated_mail_requires_a_pass_in_the_topmost_authentication_results(parts):
    table = Table(parts, authenticated_mail=True)
    plain = table.mail("gmail_top_post.eml", "money L")
    assert table.inbound.handle(plain).status == "refused"
    forged_below = with_header(
        table.mail("gmail_top_post.eml", "money L"),
        "Authentication-Results",
        "mx.example.org; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=example.com",
    )
    head, _, body = forged_below.partition(b"\n\n")
    topmost = b"Authentication-Results: pbem.localhost; dkim=fail header.d=example.com\n"
    assert table.inbound.handle(topmost + head + b"\n\n" + body).status == "refused"
    other_domain = with_header(
        table.mail("gmail_top_post.eml", "money L"),
        "Authentication-Results",
        "pbem.localhost; dkim=pass header.d=evil.example; spf=fail smtp.mailfrom=example.com",
    )
    assert table.inbound.handle(other_domain).status == "refused"
    assert table.answers() == [] and table.seq() == 1
    passed = with_header(
        table.mail("gmail_top_post.eml", "money L"),
        "Authentication-Results",
        "pbem.localhost; dkim=pass (good signature) header.d=example.com header.s=s1",
    )
    assert table.inbound.handle(passed).status == "accepted"
    assert re.match(
        r"Ann played Burger Bar \(Y01\) from L1 as money",
        table.parts.service.history(table.game)[-1].text,
    )
