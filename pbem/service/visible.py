"""What a reader sees of a name or a chat line: characters that draw nothing (Unicode's
default-ignorable code points, blanks, a combining mark with nothing to sit on) and
names that look like another (UTS #39 skeletons). Every way a name or a line comes
in (page, API, mail, log import, a seat handed over) is checked here.

The character data is ICU's (PyICU), Unicode's own implementation of these
properties and of UTS #39, so the default-ignorable set, the emoji properties and the
confusables table are one Unicode version, the one the installed ICU carries."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import icu
import idna

from pbem import i18n
from pbem.games.names import said_name
from pbem.i18n import gettext as _

from .errors import BadRequest


def _property(name: str) -> frozenset[str]:
    return frozenset(icu.UnicodeSet(f"[:{name}:]"))


# Drawn as nothing: the zero-width and direction marks, U+034F, the Hangul fillers
# (U+115F, U+1160, U+3164, U+FFA0), the variation selectors, the tag characters...
IGNORABLE = _property("Default_Ignorable_Code_Point")
_PICTOGRAPHIC = _property("Extended_Pictographic")
_EMOJI = _property("Emoji")
_SKIN_TONES = _property("Emoji_Modifier")
# Drawn as an empty cell though Unicode gives it no White_Space: the braille blank.
_BLANK_GLYPHS = frozenset("\u2800")
_ZWJ, _ZWNJ = "\u200d", "\u200c"
_PRESENTATION = frozenset("\ufe0e\ufe0f")  # text and emoji presentation selectors
_PLACED = _PRESENTATION | {_ZWJ, _ZWNJ}  # kept where they belong
# The subdivision flags (England, Scotland, Wales): a black flag, the region's id in
# tag characters, a cancel tag. Only Unicode's recommended ones: any other tag run
# draws nothing and could carry hidden text.
_FLAGS = frozenset(icu.UnicodeSet("[:RGI_Emoji_Tag_Sequence:]").strings())
_TAG_RUN = re.compile("\U0001f3f4([\U000e0020-\U000e007e]+\U000e007f)")
_C = icu.UCharCategory
_OTHER = frozenset(
    (_C.CONTROL_CHAR, _C.FORMAT_CHAR, _C.SURROGATE, _C.PRIVATE_USE_CHAR, _C.UNASSIGNED)
)
_MARKS = frozenset((_C.NON_SPACING_MARK, _C.COMBINING_SPACING_MARK, _C.ENCLOSING_MARK))
_SPOOF = icu.SpoofChecker()
_NFKC = icu.Normalizer2.getNFKCInstance()
_NFKC_CASEFOLD = icu.Normalizer2.getNFKCCasefoldInstance()


def code(c: str) -> str:
    """A character as a refusal names it: U+3164."""
    return "U+" + format(ord(c), "04X")


def blank(c: str) -> bool:
    """A space of any width, a line break, or a glyph drawn empty."""
    return icu.Char.hasBinaryProperty(c, icu.UProperty.WHITE_SPACE) or c in _BLANK_GLYPHS


def _draws_nothing(c: str) -> bool:
    return c in IGNORABLE or blank(c) or icu.Char.charType(c) in _OTHER


def check_line(line: str) -> None:
    """Refuse a chat line (BadRequest naming the character) that holds a control,
    format, private-use, unassigned or default-ignorable character outside an emoji
    sequence, a combining mark with nothing to sit on, or only blanks. Kept: the
    joiner between emoji, one presentation selector after an emoji, the tags of the
    three subdivision flags, and the joiners IDNA 2008 allows in words (after a
    virama, and the Persian non-joiner between joining letters)."""
    drawn = _drawn_ignorables(line)
    for at, c in enumerate(line):
        if at not in drawn and (c in IGNORABLE or icu.Char.charType(c) in _OTHER):
            raise BadRequest(
                _(
                    "a chat line cannot hold the character %(character)s"
                    " (control, invisible or direction-changing characters are refused)",
                    character=code(c),
                )
            )
        if icu.Char.charType(c) in _MARKS and not _has_base(line, at, drawn):
            raise BadRequest(
                _(
                    "a chat line cannot start a word with the combining mark %(character)s:"
                    " it has no letter to sit on",
                    character=code(c),
                )
            )
    if line and all(_draws_nothing(c) for c in line):
        raise BadRequest(
            _("a chat line needs some text: %(character)s draws nothing", character=code(line[0]))
        )


def _drawn_ignorables(line: str) -> set[int]:
    """Where in `line` a default-ignorable character is part of something drawn."""
    drawn: set[int] = set()
    for run in _TAG_RUN.finditer(line):
        if run.group() in _FLAGS:
            drawn.update(range(run.start(1), run.end(1)))
    for at, c in enumerate(line):
        if c in _PLACED and _kept(line, at, drawn):
            drawn.add(at)
    return drawn


def _kept(line: str, at: int, drawn: set[int]) -> bool:
    """Whether the selector or joiner at `at` belongs where it is (`drawn` holds the
    kept ones before it)."""
    c = line[at]
    before = line[at - 1] if at else ""
    after = line[at + 1] if at + 1 < len(line) else ""
    if c in _PRESENTATION:
        return before in _EMOJI
    if c == _ZWJ and after in _PICTOGRAPHIC and _ends_emoji(before, at - 1, drawn):
        return True
    try:
        return idna.valid_contextj(line, at)
    except ValueError:  # a character before it that Unicode has no name for
        return False


def _ends_emoji(c: str, at: int, drawn: set[int]) -> bool:
    """Whether `c` at `at` closes an emoji a joiner may follow: a pictograph, a skin
    tone, or its presentation selector or flag tag."""
    return c in _PICTOGRAPHIC or c in _SKIN_TONES or (at in drawn and c not in (_ZWJ, _ZWNJ))


def _has_base(text: str, at: int, drawn: set[int]) -> bool:
    """Whether the mark at `at` sits on a letter (or digit, symbol...): the first
    character before it that is no mark, nor a selector or joiner kept in `drawn`."""
    back = at - 1
    while back >= 0 and (icu.Char.charType(text[back]) in _MARKS or back in drawn):
        back -= 1
    return back >= 0 and not _draws_nothing(text[back])


def shown_name(given: str) -> str:
    """A name as it is kept and shown: NFC; default-ignorable, control and format
    characters removed (they draw nothing, or change how the rest reads); every blank
    one space; none at the ends. Refused (BadRequest naming the character) when a
    combining mark is left with nothing to sit on, or nothing visible is left of a
    name that held something. An empty name comes back empty: the caller says how
    long a name is."""
    spaced = "".join(" " if blank(c) else c for c in unicodedata.normalize("NFC", given))
    kept = "".join(c for c in spaced if c not in IGNORABLE and icu.Char.charType(c) not in _OTHER)
    name = " ".join(kept.split())
    for at, c in enumerate(name):
        if icu.Char.charType(c) in _MARKS and not _has_base(name, at, set()):
            raise BadRequest(
                _(
                    "a name cannot start a word with the combining mark %(character)s:"
                    " it has no letter to sit on",
                    character=code(c),
                )
            )
    hidden = [c for c in given if not c.isspace()]
    if not name and hidden:
        raise BadRequest(
            _(
                "a name needs a character one can see: %(character)s draws nothing",
                character=code(hidden[0]),
            )
        )
    return name


def likeness(name: str) -> tuple[str, str]:
    """The UTS #39 skeletons of `name` as written and case-folded (after NFKC, and
    NFKC_Casefold): two names that share either look alike. Both, since the
    confusables table is case-sensitive ("B0B" looks like "BOB", "b0b" not like
    "bob") while a name's case does not tell two players apart ("ann", "Ann")."""
    return (
        _SPOOF.getSkeleton(0, _NFKC.normalize(name)),
        _SPOOF.getSkeleton(0, _NFKC_CASEFOLD.normalize(name)),
    )


def _shown(language: str, *names: str) -> tuple[str, ...]:
    """The names as a reader of `language` sees them."""
    with i18n.speaking(language):
        return tuple(said_name(name) for name in names)


def look_alike(one: str, other: str) -> bool:
    """Whether a reader could take one name for the other."""
    return any(a == b for a, b in zip(likeness(one), likeness(other), strict=True))


def unlike(name: str, seats: Mapping[int, str]) -> None:
    """Refuse `name` (BadRequest naming the seat) when it looks like the name of one
    of `seats` (seat -> name) as a reader of any language sees the two (a bot's name
    is translated): nobody may pass for another player."""
    for seat, other in sorted(seats.items()):
        if any(look_alike(*_shown(language, name, other)) for language in i18n.LANGUAGES):
            raise BadRequest(
                _(
                    "the name “%(name)s” looks like “%(other)s”, the name of seat %(seat)s:"
                    " every name in a game must be one nobody can take for another",
                    name=name,
                    other=other,
                    seat=seat,
                )
            )
