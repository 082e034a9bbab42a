"""A header's text in UTF-8 is cut into encoded words exactly where email.header
cuts it, in quoted-printable and in base64, at any length and for any header
name, and a header's clean text is the same whether or not it needed cleaning."""

from __future__ import annotations

import unicodedata
from email.header import Header

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.mail.writing import UTF8, header_text, written

NAMES = st.sampled_from(["Subject", "To", "X", "In-Reply-To", "X-A-Header-Named-At-Great-Length"])
TEXTS = st.text(
    st.one_of(
        st.characters(codec="utf-8"),  # anything, astral planes too
        st.sampled_from("aé—ü€😀字 =?_\t"),  # qp's costly octets, spaces, a word's marks
    ),
    max_size=400,
)


def _standard(text: str, name: str, maxlinelen: int | None) -> str:
    return Header(text, "utf-8", header_name=name, maxlinelen=maxlinelen).encode(linesep="\n")


def _ours(text: str, name: str, maxlinelen: int | None) -> str:
    return Header(text, UTF8, header_name=name, maxlinelen=maxlinelen).encode(linesep="\n")


@settings(max_examples=600)
@given(TEXTS, NAMES, st.sampled_from([None, 20, 40, 78, 200]))
@example(
    "Your turn in Mall abcdefghijklmnop (round 1) — answer by Fri 4 Dec 06:36 UTC", "Subject", None
)
@example("ü" * 300, "Subject", None)  # quoted-printable: 6 octets a character
@example("字" * 300, "Subject", None)  # base64 is shorter
@example("😀" * 50, "X-A-Header-Named-At-Great-Length", 20)  # nothing fits on the first line
@example("", "Subject", None)
def test_encoded_words_are_cut_where_email_header_cuts_them(text, name, maxlinelen):
    try:
        expected = _standard(text, name, maxlinelen)
    except Exception as error:  # a lone surrogate: refused alike
        with pytest.raises(type(error)):
            _ours(text, name, maxlinelen)
        return
    assert _ours(text, name, maxlinelen) == expected


@settings(max_examples=600)
@given(TEXTS, NAMES)
@example("Your turn in Mall abcdefghijklmnop (round 1) — answer by Fri 4 Dec 06:36 UTC", "Subject")
@example("😀" * 3, "X-A-Header-Named-At-Great-Length-" + "x" * 40)  # nothing fits after the name
@example("é\x0bü", "Subject")  # lines of their own: email.header writes them
@example("é\u2028ü", "Subject")
@example("=?utf-8?q?x?= é", "To")
def test_a_header_is_written_as_email_header_writes_it(text, name):
    if "\r" in text or "\n" in text:
        return  # refused: a header is one line (tests/integration/test_mail_writer.py)
    plain = text.isascii() and "=?" not in text
    try:
        expected = Header(text, "us-ascii" if plain else "utf-8", header_name=name).encode(
            linesep="\n"
        )
    except Exception as error:  # a lone surrogate: refused alike
        with pytest.raises(type(error)):
            written(name, text)
        return
    assert written(name, text) == expected


@pytest.mark.parametrize("name", ["Subject", "To", "X-A-Header-Named-At-Great-Length"])
def test_words_fill_each_line_to_the_last_character_that_fits(name):
    """Texts around every length at which a line is full, in both encodings."""
    for filler in ("a", "字"):  # mostly one octet (quoted-printable), three (base64)
        for count in range(1, 200):
            text = "é" + filler * count
            wanted = Header(text, "utf-8", header_name=name).encode(linesep="\n")
            assert written(name, text) == wanted, (name, text)


def _cleaned_one_by_one(text: str) -> str:
    """header_text as it was first written: every character looked at."""
    kept = "".join(
        " " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in text
    )
    return " ".join(kept.split())[:200]


@given(st.text(st.characters(), max_size=300))
@example("Ann\u00a0Lee\u200b\u2028x\x00")
def test_clean_header_text_is_the_same_for_printable_text(text):
    assert header_text(text) == _cleaned_one_by_one(text)


@given(st.binary().map(lambda b: b.translate(bytes.maketrans(b"\x00\x01\x02", b".\r\n"))))
@example(b".")
@example(b"\n.")
@example(b"\r\n.\r\n..\r\n")
def test_periods_are_doubled_where_smtplib_doubles_them(data):
    import smtplib

    from pbem.mail.deliver import stuffed

    assert stuffed(data) == smtplib._quote_periods(data)


LATIN_1 = st.lists(
    st.one_of(
        st.characters(max_codepoint=255),
        st.sampled_from(["\r", "\n", "\r\n", " ", "\t", "=", "a" * 30, "\xc3", "\xa9"]),
    ),
    max_size=200,
).map("".join)


@given(LATIN_1)
@example("")
@example("\n")
@example("a\r")
@example("a\n\n")
@example("x" * 77 + " \n" + "y" * 76 + "\t")  # a line ending in a space, at every room
@example("x" * 76 + "=" + "\r\n" + "é" * 40)
@example("é" * 1500 + "\n" + "a" * 1001 + "\r\n" + "b " * 600)  # lines too long to keep
def test_a_body_is_quoted_printable_as_the_standard_writer_encodes_it(text):
    from email import quoprimime

    from pbem.mail.writing import quoted_printable

    assert quoted_printable(text) == quoprimime.body_encode(text, 78)
