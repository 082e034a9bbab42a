"""Generated and mutated mail through the inbound handler, on SQLite and PostgreSQL:
headers (RFC 2047 encoded words with CR, LF and NUL among them), charsets, transfer
encodings, nesting, huge headers and binary garbage. Whatever comes in: handle()
never raises, its outcome is one of the documented ones, a refusal changes nothing,
no answer goes to anyone but a seat's own address, and the next good mail is still
handled."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abuse import examples
from support import Table

OUTCOMES = {
    "accepted",
    "illegal",
    "stale",
    "unreadable",
    "status",
    "legal",
    "undo",
    "help",
    "refused",
    "ignored",
    "duplicate",
}
SEATS = {1: "ann@example.com", 2: "ben@example.com"}
FUZZ = settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
_ids = itertools.count(1)

CHARSETS = [
    "utf-8",
    "UTF-8",
    "utf8mb4",
    "latin-99",
    "",
    "x-unknown",
    "utf-7",
    "utf-16",
    "base64",
    "rot13",
    "idna",
    "iso-2022-jp",
    "cp1252",
    "\u00e9t\u00e9",
]
ENCODINGS = ["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "binary", "b@d"]
HEADERS = [
    "From",
    "To",
    "Cc",
    "Message-ID",
    "Subject",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Auto-Submitted",
    "Precedence",
    "Return-Path",
    "Authentication-Results",
    "Delivered-To",
    "MIME-Version",
]
nasty = st.text(
    alphabet=st.sampled_from(list("aZ09 <>@\"'=?;,:.()[]\\\t\r\n\x00\x7f\u00e9\u200b\ud7ff")),
    max_size=60,
)


@st.composite
def encoded_words(draw) -> str:
    """RFC 2047 encoded words, some with CR, LF or NUL inside, some broken."""
    charset = draw(st.sampled_from(["utf-8", "iso-8859-1", "utf8mb4", "", "x"]))
    coding = draw(st.sampled_from(["q", "b", "Q", "B", "z"]))
    payload = draw(
        st.sampled_from(["a=0D=0Ab", "=00", "=0D", "=0A", "YQ0KYg==", "AA==", "=ZZ", "", "=?"])
    )
    word = f"=?{charset}?{coding}?{payload}?="
    return draw(st.sampled_from([word, f'"{word}" <x@example.org>', f"{word} {word}", word * 3]))


header_values = st.one_of(
    nasty,
    encoded_words(),
    st.just("<" + "x" * 5000 + "@example.org>"),
    st.just("<<<>>>@@@"),
    st.builds(lambda n: "a" * n, st.integers(0, 200_000)),
)


@pytest.fixture
def table(database_url, make_parts, clock):
    return Table(make_parts(clock, database_url=database_url, dev=True))


def good(table: Table, move: str = "status") -> bytes:
    return table.mail("gmail_top_post.eml", move, message_id=f"<fuzz-{next(_ids)}@x.org>")


def replace_header(raw: bytes, name: str, value: bytes) -> bytes:
    head, _, body = raw.partition(b"\n\n")
    prefix = name.lower().encode()
    kept = [line for line in head.split(b"\n") if not line.lower().startswith(prefix)]
    return b"\n".join([name.encode() + b": " + value, *kept]) + b"\n\n" + body


def check(table: Table, raw: bytes) -> None:
    """The properties every mail keeps, then a good mail after it."""
    service = table.parts.service
    events = len(service.history(table.game))
    answers = len(table.answers())
    handled = table.inbound.handle(raw)
    assert handled.status in OUTCOMES, handled
    if handled.status not in ("accepted", "undo"):
        assert len(service.history(table.game)) == events, handled
    if handled.status in ("refused", "ignored", "duplicate"):
        assert len(table.answers()) <= answers + (handled.answer is not None)
    for answer in table.answers():
        assert answer.address == SEATS[answer.seat]
    table.parts.service.clock.advance(hours=2)  # the next mail is not held back by limits
    after = table.inbound.handle(good(table))
    assert after.status == "status", after
    assert table.answers()[-1].address == "ann@example.com"


@FUZZ
@given(name=st.sampled_from(HEADERS), value=header_values, encode=st.booleans())
def test_any_header_value(table, name, value, encode):
    data = value.encode("utf-8", "surrogatepass") if encode else value.encode("latin-1", "replace")
    check(table, replace_header(good(table), name, data))


@FUZZ
@given(
    charset=st.sampled_from(CHARSETS),
    encoding=st.sampled_from(ENCODINGS),
    body=st.binary(max_size=300),
    move=st.sampled_from(["status", "help", "legal", "nonsense", "undo", "agree"]),
)
def test_any_charset_encoding_and_body(table, charset, encoding, body, move):
    head = good(table, move).partition(b"\n\n")[0]
    for name in ("Content-Type", "Content-Transfer-Encoding"):
        head = b"\n".join(h for h in head.split(b"\n") if not h.startswith(name.encode()))
    part = (
        f"Content-Type: text/plain; charset={charset}\n"
        f"Content-Transfer-Encoding: {encoding}\n\n".encode("utf-8", "replace")
    )
    check(table, head + b"\n" + part + move.encode() + b"\n" + body)


@FUZZ
@given(
    depth=st.integers(0, 120),
    kinds=st.lists(
        st.sampled_from(["mixed", "alternative", "related", "digest", "x-y"]), min_size=1
    ),
    leaf=st.sampled_from(["text/plain", "text/html", "message/rfc822", "application/x"]),
)
def test_any_nesting(table, depth, kinds, leaf):
    head = good(table).partition(b"\n\n")[0]
    head = b"\n".join(h for h in head.split(b"\n") if not h.startswith(b"Content-Type"))
    body = ""
    for n in range(depth):
        kind = kinds[n % len(kinds)]
        body += f'--b{n}\nContent-Type: multipart/{kind}; boundary="b{n + 1}"\n\n'
    body += f"--b{depth}\nContent-Type: {leaf}\n\nstatus\n--b{depth}--\n"
    top = b'Content-Type: multipart/mixed; boundary="b0"\n'
    check(table, head + b"\n" + top + b"\n" + body.encode())


@FUZZ
@given(seed=st.integers(0, 2**32), flips=st.integers(1, 40), garbage=st.binary(max_size=500))
def test_mutated_and_garbage_bytes(table, seed, flips, garbage):
    raw = bytearray(good(table))
    rng = random.Random(seed)
    for _ in range(flips):
        at = rng.randrange(len(raw))
        operation = rng.randrange(3)
        if operation == 0:
            raw[at] = rng.randrange(256)
        elif operation == 1:
            raw.insert(at, rng.choice(b'\r\n\x00=?:<>"\\ \t\xff'))
        else:
            del raw[at]
    check(table, bytes(raw))
    check(table, garbage)
