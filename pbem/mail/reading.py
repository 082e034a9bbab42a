"""Reading a player's reply: its text (the plain part, or the HTML part turned into
text), cut at what the common mail programs add below or around a reply — quoted
lines, attributions ("On ... wrote:" in many languages, even wrapped), forwarded or
original-message blocks, signatures, mobile footers (see quoting) — and the command
lines that are left, after any greeting. Any charset, transfer encoding or structure is read
leniently; only a structure too deep or too large to walk is Unreadable."""

from __future__ import annotations

import re
from email.message import Message
from html.parser import HTMLParser

from . import quoting

MAX_DEPTH = 20  # multipart levels walked to find the reply's text
MAX_PARTS = 200

_WRAPPED = 3  # an attribution may be wrapped over this many lines
_GREETINGS = 3  # greeting lines passed over ("Dear all," "Hello!" ...)
MAX_LINES = 100  # lines of a reply read: the first is the command, a few more are told
_SIGNATURE = re.compile(r"^--\s?$")  # the "-- " signature separator
_QUOTED = re.compile(r"^\s*>")


class Unreadable(ValueError):
    """A mail whose structure cannot be walked (too deep, too many parts)."""


def body_text(message: Message) -> str:
    """The reply's text: its first text/plain part, else its first HTML part as text
    (quoted blocks left out). Attachments and attached mails are never read."""
    plain = html = None
    stack: list[tuple[Message, int]] = [(message, 0)]
    walked = 0
    while stack:
        part, depth = stack.pop()
        walked += 1
        if depth > MAX_DEPTH or walked > MAX_PARTS:
            raise Unreadable(
                f"the mail has more than {MAX_DEPTH} levels or {MAX_PARTS} parts; "
                "write a plain reply"
            )
        kind = part.get_content_type()
        if kind.startswith("message/") and depth > 0:
            continue  # an attached mail
        if part.is_multipart():
            children = part.get_payload()
            if isinstance(children, list):
                parts = [c for c in reversed(children) if isinstance(c, Message)]
                stack.extend((child, depth + 1) for child in parts)
            continue
        if _attachment(part):
            continue
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    if plain is not None:
        return _decoded(plain)
    if html is not None:
        return html_text(_decoded(html))
    return ""


def _attachment(part: Message) -> bool:
    disposition = str(part.get("Content-Disposition", "")).split(";")[0].strip().lower()
    return disposition == "attachment"


def _decoded(part: Message) -> str:
    """The part's text in its charset; an unknown or unfit charset is read as UTF-8,
    and bytes that do not decode become U+FFFD."""
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        return ""
    try:
        charset = part.get_content_charset() or "utf-8"
        return data.decode(charset, errors="replace")
    except (LookupError, ValueError, TypeError):
        return data.decode("utf-8", errors="replace")


def reply_lines(text: str, blanks: bool = False) -> list[str]:
    """The lines the player wrote: up to the first attribution, original-message
    block, signature or footer; no quoted lines (wherever they are: top or bottom
    posting), no blank lines (with `blanks`, one "" where blank lines part what the
    player wrote: a move of several lines ends there), no greeting before the first
    command, MAX_LINES at most. Above what the player wrote, an attribution is
    passed over only when a quote (">" lines) follows it; an unquoted original
    there ends the reading, so that nothing of it is ever taken for a command."""
    raws = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines: list[str] = []
    index = greetings = 0
    while index < len(raws) and len(lines) < MAX_LINES:
        raw = raws[index]
        if not _QUOTED.match(raw) and raw.strip():
            header = _attribution(raws, index)
            if header:
                if lines or not _quote_follows(raws, header):
                    break
                index = header
                continue
            if quoting.original(raw, _next_written(raws, index + 1)):
                break
            if _SIGNATURE.match(raw.rstrip(" ")):
                break  # what follows is the signature
            if quoting.footer(raw):
                if lines:
                    break
                index += 1  # a footer above the reply (bottom posting)
                continue
        index += 1
        line = " ".join("".join(c if c.isprintable() else " " for c in raw.strip()).split())
        if _QUOTED.match(raw):
            continue
        if not line:
            if blanks and lines and lines[-1]:
                lines.append("")  # what the player wrote goes on after a blank
            continue
        if not lines and greetings < _GREETINGS and quoting.greeting(line):
            greetings += 1
            continue
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _attribution(raws: list[str], index: int) -> int:
    """Where the attribution starting at `index` ends (the index after it), or 0.
    It may be wrapped over up to three lines, with one blank line inside or a last
    piece that the wrapping made look quoted ("<ann@example.com\\n> wrote:"); a
    line of words that ends with a colon and is followed by a quote is one in any
    language.
    A line is never taken into an attribution that the lines after it make alone,
    unless it reads as an attribution's start (the move written just above an
    unwrapped one stays the move)."""
    pieces: list[str] = []
    at, blank = index, False
    while at < len(raws) and len(pieces) < _WRAPPED:
        piece = raws[at].strip()
        at += 1
        if not piece:
            if blank or not pieces:
                break
            blank = True
            continue
        quoted = _QUOTED.match(raws[at - 1]) is not None
        if quoted and not pieces:
            break
        pieces.append(piece.lstrip("> ") if quoted else piece)
        if quoting.attribution(" ".join(pieces)):
            later = any(quoting.attribution(" ".join(pieces[k:])) for k in range(1, len(pieces)))
            return 0 if later and not quoting.opening(pieces[0]) else at
        if len(pieces) == 1 and _colon_line(piece) and _quote_follows(raws, at):
            return at
        if quoted:
            break
    return 0


def _colon_line(line: str) -> bool:
    """A line of two words or more ending with a colon: who wrote the quote under
    it, in any language ("status:" alone stays a command)."""
    return line.endswith((":", "：")) and len(line.split()) > 1


def _quote_follows(raws: list[str], index: int) -> bool:
    """Whether the next line written from `index` on is quoted."""
    return _QUOTED.match(_next_written(raws, index)) is not None


def _next_written(raws: list[str], index: int) -> str:
    while index < len(raws):
        if raws[index].strip():
            return raws[index]
        index += 1
    return ""


class _Text(HTMLParser):
    """HTML to text: block elements break lines; quoted blocks (blockquote, Gmail's
    and Outlook's quote wrappers) are left out, a line ">" standing for each, and so
    are scripts and styles; Outlook's rule or
    reply header after the reply ends it (the original follows)."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "hr"})
    SKIP = frozenset({"blockquote", "script", "style", "head", "title"})
    QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "appendonsend")
    ENDS = frozenset({"divRplyFwdMsg", "appendonsend", "x_divRplyFwdMsg"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip: tuple[str, int] | None = None  # the skipped element, its nesting
        self.ended = False

    def _written(self) -> bool:
        return any(part.strip() for part in self.parts)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.ended:
            return
        if self.skip is not None:
            name, depth = self.skip
            if tag == name:
                self.skip = (name, depth + 1)
            return
        found = dict(attrs)
        classes, ident = found.get("class") or "", found.get("id") or ""
        if (tag == "hr" or ident in self.ENDS) and self._written():
            self.ended = True
        elif (
            tag in self.SKIP or ident in self.ENDS or any(c in classes for c in self.QUOTE_CLASSES)
        ):
            if tag != "hr":
                self.skip = (tag, 1)
                if tag not in ("script", "style", "head", "title"):
                    self.parts.append("\n>\n")  # a quote was here (see reply_lines)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.ended:
            return
        if self.skip is not None:
            name, depth = self.skip
            if tag == name:
                self.skip = None if depth == 1 else (name, depth - 1)
            return
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "hr" and self._written():
            self.ended = True
        if not self.ended and self.skip is None and tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip is None and not self.ended:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    return "\n".join(" ".join(line.split()) for line in text.split("\n"))
