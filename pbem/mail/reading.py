"""Reading a player's reply: its text (the plain part, or the HTML part turned into
text), cut at what the common mail programs add below or around a reply — quoted
lines, "On ... wrote:" headers (even wrapped over two or three lines), forwarded or
original-message blocks, signatures, mobile footers — and the command lines that are
left, after any greeting. Any charset, transfer encoding or structure is read
leniently; only a structure too deep or too large to walk is Unreadable."""

from __future__ import annotations

import re
from email.message import Message
from html.parser import HTMLParser

MAX_DEPTH = 20  # multipart levels walked to find the reply's text
MAX_PARTS = 200

# A line at which the reply itself has ended: what follows is the quoted mail.
_REPLY_HEADERS = [
    re.compile(r"^On .{4,300}wrote:\s*$", re.I),  # Gmail, Apple Mail, Thunderbird
    re.compile(r"^Le .{4,300}a écrit\s*:\s*$", re.I),  # French clients
    re.compile(r"^Am .{4,300}schrieb .{0,100}:\s*$", re.I),  # German clients
    re.compile(r"^El .{4,300}escribió:\s*$", re.I),  # Spanish clients
    re.compile(r"^-{2,}\s*Original Message\s*-{2,}\s*$", re.I),  # Outlook, Yahoo
    re.compile(r"^-{2,}\s*Forwarded message\s*-{2,}\s*$", re.I),
    re.compile(r"^_{8,}\s*$"),  # Outlook's rule above the quoted header
    re.compile(r"^From:\s.+$"),  # Outlook: From: / Sent: / To: / Subject:
    re.compile(r"^Sent from my .+$", re.I),  # mobile footers
    re.compile(r"^Get Outlook for .+$", re.I),
]
_WRAPPED = 3  # a reply header may be wrapped over this many lines
_SIGNATURE = re.compile(r"^--\s?$")  # the "-- " signature separator
_QUOTED = re.compile(r"^\s*>")
# "Hi,", "Hello Ben,", "Hi there!", "Dear all," ... on a line of its own, before the
# command: never a command (no command starts with these words).
_GREETING = re.compile(
    r"^(hi|hello|hey|hiya|dear|greetings|good\s+(morning|afternoon|evening|day)|"
    r"hallo|moin|servus|bonjour|salut|hola|ciao)\b[\w\s'’-]{0,40}[,.!:;]*$",
    re.I,
)


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


def reply_lines(text: str) -> list[str]:
    """The lines the player wrote: up to the first reply header or signature, no
    quoted lines (wherever they are: top or bottom posting), no blank lines, no
    greeting before the first command."""
    raws = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines: list[str] = []
    index = 0
    while index < len(raws):
        raw = raws[index]
        line = raw.strip()
        header = _reply_header(raws, index)
        if _SIGNATURE.match(raw.rstrip(" ")) or header:
            if lines:
                break
            index += max(header, 1)  # a quoted mail above the reply (bottom posting)
            continue
        index += 1
        line = " ".join("".join(c if c.isprintable() else " " for c in line).split())
        if _QUOTED.match(raw) or not line:
            continue
        if not lines and _GREETING.match(line):
            continue
        lines.append(line)
    return lines


def _reply_header(raws: list[str], index: int) -> int:
    """How many lines from `index` make a reply header ("On ... wrote:", wrapped or
    not), or 0."""
    joined = ""
    for count in range(1, _WRAPPED + 1):
        if index + count > len(raws):
            return 0
        line = raws[index + count - 1].strip()
        if not line or (count > 1 and _QUOTED.match(raws[index + count - 1])):
            return 0
        joined = f"{joined} {line}".strip()
        if len(joined) > 400:
            return 0
        if any(p.match(joined) for p in _REPLY_HEADERS):
            return count
    return 0


class _Text(HTMLParser):
    """HTML to text: block elements break lines; quoted blocks (blockquote, Gmail's
    and Outlook's quote wrappers), scripts and styles are left out; Outlook's rule or
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
