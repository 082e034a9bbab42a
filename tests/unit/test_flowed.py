"""The text part's format=flowed (RFC 3676): prose wrapped with soft breaks and no
indented line, so that unwrapping it gives back the paragraphs; list items keep
their hanging indent; no line longer than 78 but an unbreakable word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pbem.mail.wording import WIDTH, flowed, unflowed

WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzäöüß.,:;()>-1234567890"), min_size=1)
LONG = st.text(st.sampled_from("abc/:.?=&"), min_size=80, max_size=120)  # a URL
WORDS = st.lists(st.one_of(WORD, WORD, WORD, LONG), min_size=1, max_size=40)
SPACE = st.sampled_from([" ", " ", "  "])


@st.composite
def sentence(draw) -> str:
    words = draw(WORDS)
    spaces = [draw(SPACE) for _ in words[1:]]
    return words[0] + "".join(s + w for s, w in zip(spaces, words[1:], strict=True))


@st.composite
def item(draw) -> str:
    marker = draw(st.sampled_from(["  - ", "  1. ", "    ", "  "]))
    return marker + draw(sentence())


BLOCKS = st.lists(st.one_of(sentence(), item(), st.just("")), min_size=1, max_size=12)


def _words(line: str) -> list[str]:
    return line.split()


@given(BLOCKS)
def test_unwrapping_the_flowed_text_gives_back_every_paragraph(lines):
    text = flowed("\n".join(lines) + "\n")
    read = unflowed(text)
    prose = [line.rstrip() for line in lines if not line.startswith(" ")]
    assert [line for line in read if not line.startswith(" ")] == prose
    # the list items' words, in order, on lines that keep the item's indent
    items = [line for line in lines if line.startswith(" ")]
    assert [w for line in read if line.startswith(" ") for w in _words(line)] == [
        w for line in items for w in _words(line)
    ]


@given(BLOCKS)
def test_no_line_is_longer_than_78_but_an_unbreakable_word(lines):
    for line in flowed("\n".join(lines) + "\n").splitlines():
        if len(line) > 78:
            assert len(line.split()) == 1 or len(max(line.split(), key=len)) > WIDTH - 6, line


@given(st.lists(sentence(), min_size=1, max_size=6))
def test_no_continuation_of_prose_is_indented(lines):
    text = flowed("\n".join(lines) + "\n")
    for line in text.splitlines():
        shown = line[1:] if line.startswith((" >", " From ")) else line  # stuffed
        assert not shown.startswith(" "), line
    soft = [line for line in text.splitlines() if line.endswith(" ")]
    assert all(len(line) <= WIDTH + 1 for line in soft if len(line.split()) > 1)


@given(st.lists(item(), min_size=1, max_size=6))
def test_a_list_item_keeps_its_hanging_indent_under_its_text(lines):
    text = flowed("\n".join(lines) + "\n")
    for line in text.splitlines():
        assert line.startswith("   ")  # its own indent, stuffed with one space
        assert not line.endswith(" ")  # a hard break: the item stays a list item


def test_a_sentence_is_wrapped_as_prose_and_a_list_item_hangs():
    sentence_ = "You are invited to a game of Mall, the tile game for busy people, as seat 1."
    item_ = "  - Ben played Burger Bar (Y01) from L1 at 0,2; a customer wanting food moves on."
    text = flowed(f"{sentence_}\n\n{item_}\nFrom here on.\n-- \n")
    assert text.splitlines() == [
        "You are invited to a game of Mall, the tile game for busy people, as ",
        "seat 1.",
        "",
        "   - Ben played Burger Bar (Y01) from L1 at 0,2; a customer wanting food",
        "     moves on.",
        " From here on.",
        "-- ",
    ]
    assert unflowed(text)[0] == sentence_
