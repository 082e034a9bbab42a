"""How this server writes its mails out: a draft (headers, text, HTML, picture)
written straight to the bytes an SMTP server gets, exactly as the standard mail
policy of `email` would write the same message (a test holds the two side by side),
without building and walking a message object per mail; the headers that repeat
from mail to mail folded once, the ones written per mail as they go on the wire;
and the clean text a header may carry (no line breaks or control characters, a
bounded length)."""

from __future__ import annotations

import binascii
import random
import re
import sys
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from email import base64mime, message_from_bytes, quoprimime
from email.charset import RFC2047_CHROME_LEN, Charset
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.policy import default as default_policy
from email.utils import formataddr
from functools import lru_cache
from typing import Any

from pbem.i18n import gettext as _
from pbem.service.notices import Moot
from pbem.service.options import press

from .wording import together

HEADER_TEXT_LIMIT = 200


class _MailPolicy(EmailPolicy):
    """The default mail policy, remembering how it parsed and wrote out the headers
    whose values repeat from mail to mail (From, the content headers ...): a
    header's parsed form and its written form depend only on its name and value,
    and parsing and folding headers is most of the cost of writing a mail."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if isinstance(value, Written):
            return name, value
        if name.lower() in _REPEATED and type(value) is str:
            return name, parsed(name, value)
        return super().header_store_parse(name, value)

    def fold(self, name: str, value: Any) -> str:
        if isinstance(value, Written):
            return f"{name}: {value.replace(chr(10), self.linesep)}{self.linesep}"
        folded: str = super().fold(name, value)
        return folded

    def fold_binary(self, name: str, value: Any) -> bytes:
        if isinstance(value, Written):
            return self.fold(name, value).encode("ascii")
        if name.lower() in _REPEATED:
            return _folded(self, name, str(value))
        folded: bytes = super().fold_binary(name, value)
        return folded


class Written(str):
    """A header's value as it goes on the wire (ASCII: encoded words for other
    text, folded with "\n "): set on a mail as it is, and parsed only when read
    back (most mails' headers never are)."""


def written(name: str, text: str, *, encoded: bool = False) -> Written:
    """Clean header text (see header_text) as the header `name` carries it; when
    `encoded`, text that is ASCII already (its encoded words stand)."""
    if "\r" in text or "\n" in text:
        raise ValueError(f"a {name} header is one line")
    # what only looks like an encoded word is encoded too, so that it reads back as written
    plain = text.isascii() and (encoded or "=?" not in text)
    if plain and text.isprintable() and len(name) + 2 + len(text) <= _MAX_LINE:
        return Written(text)  # as email.header writes one short line of plain ASCII
    if not plain and text.splitlines() == [text]:
        return Written(_encoded_words(name, text))
    charset = "us-ascii" if plain else UTF8
    return Written(Header(text, charset, header_name=name).encode(linesep="\n"))


def _encoded_words(name: str, text: str) -> str:
    """One line of text in UTF-8 as `Header(text, "utf-8", header_name=name)` writes
    it: its encoded words, the first after the header's name, each other on a line
    of its own (an empty first line when not even one character fits there)."""

    def room() -> Iterator[int]:
        yield _MAX_LINE - len(name) - 2
        while True:
            yield _MAX_LINE - 1

    words = UTF8.header_encode_lines(text, room())  # None first: nothing fits there
    return "\n ".join(["" if word is None else word for word in words])


class _Utf8(Charset):
    """UTF-8 in headers exactly as `email.charset` writes it, with a text cut into
    encoded words in one pass: the standard library encodes every prefix of the
    text again to measure it (a subject of 60 characters, 60 encodings), while
    both encodings' lengths grow character by character (quoted-printable's by
    each octet's length, base64's by the octets' count), so that each character's
    share is enough. A test holds the two side by side."""

    def __init__(self) -> None:
        super().__init__("utf-8")

    def header_encode_lines(self, string: str, maxlengths: Any) -> list[str | None]:
        whole = string.encode("utf-8")
        # the shorter of the two for the whole text (utf-8's header encoding, SHORTEST)
        qp = base64mime.header_length(whole) >= quoprimime.header_length(whole)
        module = quoprimime if qp else base64mime
        extra = len("utf-8") + RFC2047_CHROME_LEN
        lines: list[str | None] = []
        current: list[str] = []
        size = 0  # the current line's encoded length (qp), or its octets (base64)
        maxlen = next(maxlengths) - extra
        for character in string:
            octets = character.encode("utf-8")
            grown = size + (quoprimime.header_length(octets) if qp else len(octets))
            if (grown if qp else (grown + 2) // 3 * 4) > maxlen:
                if not lines and not current:
                    lines.append(None)  # nothing fits on the first line
                else:
                    lines.append(module.header_encode("".join(current).encode("utf-8"), "utf-8"))
                current = [character]
                size = quoprimime.header_length(octets) if qp else len(octets)
                maxlen = next(maxlengths) - extra
            else:
                current.append(character)
                size = grown
        lines.append(module.header_encode("".join(current).encode("utf-8"), "utf-8"))
        return lines


UTF8 = _Utf8()


def written_address(name: str, display_name: str, address: str) -> Written:
    """An address header: a checked address and a clean display name."""
    if not address.isascii() or any(c in address for c in "\r\n<>, "):
        raise ValueError(f"{address!r} cannot be written in a {name} header")
    if "=?" in display_name:  # it would read back as an encoded word: make it one
        display_name = Header(display_name, "utf-8").encode()
    return written(name, formataddr((display_name, address), charset="utf-8"), encoded=True)


_REPEATED = frozenset(
    {"from", "mime-version", "content-type", "content-transfer-encoding", "auto-submitted"}
    | {"x-pbem-kind"}
)
MAIL_POLICY = _MailPolicy()
SMTP_POLICY = MAIL_POLICY.clone(linesep="\r\n")


@lru_cache(maxsize=512)
def parsed(name: str, value: str) -> Any:
    """A header as the mail policy parses it, to be set on many mails unparsed again."""
    return default_policy.header_factory(name, value)


@lru_cache(maxsize=512)
def _folded(policy: EmailPolicy, name: str, value: str) -> bytes:
    folded: bytes = EmailPolicy.fold_binary(policy, name, value)
    return folded


@dataclass(frozen=True)
class Draft:
    """A mail before it is written out: its headers in order (each a Written value,
    or one of the values that repeat from mail to mail), its text and HTML, its
    picture (see pictures.Pictures.of) or None, its language (Content-Language),
    and its envelope."""

    headers: tuple[tuple[str, str], ...]
    text: str
    html: str
    picture: Mapping[str, Any] | None
    language: str
    sender: str
    recipients: tuple[str, ...]


@dataclass(frozen=True)
class Mail:
    """A mail as it goes to an SMTP server: its envelope and its bytes."""

    sender: str
    recipients: tuple[str, ...]
    data: bytes

    def message(self) -> EmailMessage:
        """The mail read back from its bytes, with plain newlines as Python writes
        text (sending never needs it)."""
        data = self.data.replace(b"\r\n", b"\n")
        message: EmailMessage = message_from_bytes(data, policy=default_policy)
        return message


_CRLF = b"\r\n"
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_MAX_LINE = 78  # the mail policy's max_line_length (a test holds them together)


def written_out(draft: Draft) -> bytes:
    """The draft's bytes as the standard policy writes them for SMTP (CRLF): the
    headers, MIME-Version, a multipart/alternative of the text and the HTML (the
    HTML and the picture in a multipart/related when there is one), and the
    Content-Language; each boundary drawn at random, as the standard writer does."""
    head = b"".join(_header(name, value) for name, value in draft.headers)
    text = _text_part("plain", draft.text)
    if draft.picture is None:
        html = _text_part("html", draft.html, b"MIME-Version: 1.0\r\n")
    else:
        related = [_text_part("html", draft.html), draft.picture["written"]]
        html = b"MIME-Version: 1.0\r\n" + _multipart("related", related)
    language = _header("Content-Language", written("Content-Language", draft.language))
    alternative = _multipart("alternative", [text, html], after=language)
    return head + b"MIME-Version: 1.0\r\n" + alternative


def _header(name: str, value: str) -> bytes:
    if isinstance(value, Written):
        return f"{name}: {value}\n".replace("\n", "\r\n").encode("ascii")
    if name.lower() not in _REPEATED:
        raise ValueError(f"the {name} header is set as Written text")
    return _folded(SMTP_POLICY, name, value)


def _multipart(subtype: str, parts: list[bytes], after: bytes = b"") -> bytes:
    """A multipart part: its Content-Type (then `after`, the headers set after it),
    and its parts between boundaries that none of them holds."""
    boundary = _boundary()
    while any(b"--" + boundary in part for part in parts):
        boundary = _boundary()
    content_type = b'Content-Type: multipart/%s;\r\n boundary="%s"\r\n' % (
        subtype.encode("ascii"),
        boundary,
    )
    between = _CRLF + b"--" + boundary + _CRLF
    body = between.join(parts)
    return content_type + after + _CRLF + b"--" + boundary + _CRLF + body + between[:-2] + b"--\r\n"


def _boundary() -> bytes:
    """A boundary as the standard writer makes one: "=" * 15, 19 random digits, "=="."""
    return b"===============%019d==" % random.randrange(sys.maxsize)


def _text_part(subtype: str, text: str, after: bytes = b"") -> bytes:
    """A text part in UTF-8 (the plain one in format=flowed, see wording.flowed),
    in the transfer encoding the standard content manager
    picks for it (email.contentmanager: 7bit or 8bit when every line fits, else
    quoted-printable or base64, whichever is shorter on the first ten lines)."""
    encoding, body = _encoded(text)
    flowed = b'; format="flowed"; delsp="no"' if subtype == "plain" else b""
    head = b'Content-Type: text/%s; charset="utf-8"%s\r\nContent-Transfer-Encoding: %s\r\n' % (
        subtype.encode("ascii"),
        flowed,
        encoding.encode("ascii"),
    )
    return head + after + _CRLF + body


def _encoded(text: str) -> tuple[str, bytes]:
    lines = text.encode("utf-8").splitlines()
    if max((len(line) for line in lines), default=0) <= _MAX_LINE:
        return ("7bit" if text.isascii() else "8bit"), _CRLF.join(lines) + _CRLF
    sniff = b"\n".join(lines[:10]) + b"\n"
    sniff_qp = quoted_printable(sniff.decode("latin-1"))
    if len(sniff_qp) > len(binascii.b2a_base64(sniff)):
        whole = b"\n".join(lines) + b"\n"
        step = _MAX_LINE // 4 * 3
        encoded = "".join(
            binascii.b2a_base64(whole[i : i + step]).decode("ascii")
            for i in range(0, len(whole), step)
        )
        return "base64", _crlf(encoded)
    if len(lines) <= 10:
        return "quoted-printable", _crlf(sniff_qp)
    whole_qp = quoted_printable((b"\n".join(lines) + b"\n").decode("latin-1"))
    return "quoted-printable", _crlf(whole_qp)


_BREAKS = re.compile(r"\r\n|\r|\n")
_REMEMBERED = 1000  # the longest line kept encoded (a layout's are a few hundred)


def quoted_printable(text: str) -> str:
    """`quoprimime.body_encode(text, _MAX_LINE)`, as the standard writer encodes a
    part (text: its bytes read as Latin-1), with each line encoded once per process:
    a line's encoding depends on that line alone, and most lines of a mail's HTML,
    its layout, are the same in every mail. A test holds the two side by side."""
    if not text:
        return text
    lines = _BREAKS.split(text)
    ended = text[-1] in "\r\n"
    if ended:
        lines.pop()  # the empty piece after the last line break (splitlines has none)
    encoded = [
        _quoted_line(line) if len(line) <= _REMEMBERED else quoprimime.body_encode(line, _MAX_LINE)
        for line in lines
    ]
    if ended:
        encoded.append("")
    return "\n".join(encoded)


@lru_cache(maxsize=4096)
def _quoted_line(line: str) -> str:
    return quoprimime.body_encode(line, _MAX_LINE)


def _crlf(text: str) -> bytes:
    return _LINE_ENDS.sub("\r\n", text).encode("ascii")


def header_text(text: str) -> str:
    """`text` fit for a header: no line breaks, control or format characters (they
    become spaces), no runs of spaces, at most HEADER_TEXT_LIMIT characters."""
    text = str(text)
    # a printable text holds none of them (most texts: no need to look at each character)
    kept = (
        text
        if text.isprintable()
        else "".join(
            " " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in text
        )
    )
    return " ".join(kept.split())[:HEADER_TEXT_LIMIT]


# -- the chat mail (its line in compose.WRITERS) ---------------------------------------


def chat_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    """The table talk since the row's first line (a chat row starts at the line that
    made it and carries the lines said while it waited), as its reader may read it:
    names, "you", and whom a private line was
    said to (no line that was not theirs to read). Moot when none is left."""
    context: dict[str, Any] = composer._game(row)
    # not the lines the reader's page has shown them already
    seen = composer.service.seen_by(row.game_id, row.seat, row.payload.get("holder"))
    talk = composer.service.table_talk(row.game_id, row.seat)
    lines = [line for line in talk if line.seq >= row.seq and line.seq > seen]
    if not any(line.seat != row.seat for line in lines):
        raise Moot("no one else has said anything since")
    context["lines"] = [
        {
            "who": _("You") if line.seat == row.seat else line.name,
            "text": line.text,
            "to": line.to_said if line.to is not None else None,  # a private line's readers
        }
        for line in lines
    ]
    context["private_press"] = press(composer.service.options(row.game_id)) == "private"
    others = together(dict.fromkeys(line.name for line in lines if line.seat != row.seat))
    if all(line.to is not None for line in lines if line.seat != row.seat):
        subject = _(
            "%(game)s: %(names)s said something to you in private",
            game=context["called"],
            names=others,
        )
        return subject, context
    subject = _(
        "%(game)s: %(names)s said something at the table", game=context["called"], names=others
    )
    return subject, context
