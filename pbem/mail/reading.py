"""Reading a player's reply: its text (the plain part, or the HTML part turned into
text), cut at what the common mail programs add below or around a reply — quoted
lines, "On ... wrote:" headers, forwarded or original-message blocks, signatures,
mobile footers — and the command lines that are left."""

from __future__ import annotations

import re
from email.message import EmailMessage
from html.parser import HTMLParser

# A line at which the reply itself has ended: what follows is the quoted mail.
_REPLY_HEADERS = [
    re.compile(r"^On .{4,200}wrote:\s*$", re.I),  # Gmail, Apple Mail, Thunderbird
    re.compile(r"^Le .{4,200}a écrit\s*:\s*$", re.I),  # French clients
    re.compile(r"^Am .{4,200}schrieb .{0,100}:\s*$", re.I),  # German clients
    re.compile(r"^El .{4,200}escribió:\s*$", re.I),  # Spanish clients
    re.compile(r"^-{2,}\s*Original Message\s*-{2,}\s*$", re.I),  # Outlook, Yahoo
    re.compile(r"^-{2,}\s*Forwarded message\s*-{2,}\s*$", re.I),
    re.compile(r"^_{8,}\s*$"),  # Outlook's rule above the quoted header
    re.compile(r"^From:\s.+$"),  # Outlook: From: / Sent: / To: / Subject:
    re.compile(r"^Sent from my .+$", re.I),  # mobile footers
    re.compile(r"^Get Outlook for .+$", re.I),
]
_SIGNATURE = re.compile(r"^--\s?$")  # the "-- " signature separator
_QUOTED = re.compile(r"^\s*>")


def body_text(message: EmailMessage) -> str:
    """The reply's text: its text/plain part, else its HTML part as text (quoted
    blocks left out). Attachments are never read."""
    part = message.get_body(("plain",))
    if part is not None:
        return part.get_content()
    part = message.get_body(("html",))
    if part is not None:
        return html_text(part.get_content())
    return ""


def reply_lines(text: str) -> list[str]:
    """The lines the player wrote: up to the first reply header or signature, no
    quoted lines (wherever they are: top or bottom posting), no blank lines."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        if _SIGNATURE.match(raw.rstrip(" ")) or any(p.match(line) for p in _REPLY_HEADERS):
            if lines:
                break
            continue  # a quoted mail above the reply (bottom posting): keep looking
        if _QUOTED.match(raw):
            continue
        if line:
            lines.append(line)
    return lines


class _Text(HTMLParser):
    """HTML to text: block elements break lines; quoted blocks (blockquote, Gmail's
    and Outlook's quote wrappers), scripts and styles are left out."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "hr"})
    SKIP = frozenset({"blockquote", "script", "style", "head", "title"})
    QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "appendonsend")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip: tuple[str, int] | None = None  # the skipped element, its nesting

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip is not None:
            name, depth = self.skip
            if tag == name:
                self.skip = (name, depth + 1)
            return
        found = dict(attrs)
        classes, ident = found.get("class") or "", found.get("id") or ""
        if (
            tag in self.SKIP
            or ident == "divRplyFwdMsg"
            or any(c in classes for c in self.QUOTE_CLASSES)
        ):
            self.skip = (tag, 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skip is not None:
            name, depth = self.skip
            if tag == name:
                self.skip = None if depth == 1 else (name, depth - 1)
            return
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip is None and tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip is None:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    return "\n".join(" ".join(line.split()) for line in text.split("\n"))
