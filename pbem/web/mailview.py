"""Dev mode only: a caught mail shown as a mail program shows it. Its text part
reflowed when it is format=flowed and its web addresses made links (as text: every
piece is escaped by the template); its HTML part a page of its own, framed in a
sandbox without scripts, its links opening in a new tab and its `cid:` pictures
served from the mail. The mail is hostile content: nothing in it runs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import quote

from pbem.mail.wording import unflowed

_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}'\""  # what ends a sentence after an address, not the address
_CID = re.compile(r"""(["'])cid:([^"'\s>]+)\1""", re.IGNORECASE)
_HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)
PICTURES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})  # never SVG


@dataclass(frozen=True)
class Piece:
    """A stretch of the text part: plain text, or a web address (`url`) to link."""

    text: str
    url: str | None = None


def text_of(message: EmailMessage) -> str:
    """The text part as a mail program shows it: format=flowed reflowed (each
    paragraph one line, wrapped by the page), anything else as it is."""
    part = message.get_body(("plain",))
    if part is None:
        return ""
    text = str(part.get_content())
    if str(part.get_param("format", "")).lower() == "flowed":
        return "\n".join(unflowed(text)) + "\n"
    return text


def linked(text: str) -> list[Piece]:
    """The text cut into plain pieces and web addresses (http and https only; a
    period or bracket after an address ends the sentence, not the address)."""
    pieces: list[Piece] = []
    at = 0
    for found in _URL.finditer(text):
        url = found.group(0).rstrip(_TRAILING)
        if found.start() > at:
            pieces.append(Piece(text[at : found.start()]))
        pieces.append(Piece(url, url))
        at = found.start() + len(url)
    if at < len(text):
        pieces.append(Piece(text[at:]))
    return pieces


def framed_html(html: str, picture_url: str) -> str:
    """The HTML part as the frame shows it: links open in a new tab (a `<base
    target>` first in its head) and each `cid:` source points at `picture_url`
    with the Content-ID's quoted value in place of `{cid}`."""

    def rewritten(found: re.Match[str]) -> str:
        url = picture_url.replace("{cid}", quote(found.group(2), safe=""))
        return f"{found.group(1)}{url}{found.group(1)}"

    html = _CID.sub(rewritten, html)
    base = '<base target="_blank">'
    head = _HEAD.search(html)
    if head is None:
        return base + html
    return html[: head.end()] + base + html[head.end() :]


def picture(message: EmailMessage, cid: str) -> tuple[bytes, str] | None:
    """The bytes and type of the mail's raster picture of Content-ID `cid`, or None."""
    for part in message.walk():
        if part.get("Content-ID", "").strip().strip("<>") != cid:
            continue
        if part.get_content_type() not in PICTURES:
            return None
        data = part.get_content()
        return (data, part.get_content_type()) if isinstance(data, bytes) else None
    return None


def frame_policy(origin: str) -> str:
    """The HTML part's own policy: no script, no plugin, no form, no base address;
    inline styles; pictures only from this site (the mail's own, served here);
    framed only by the viewer, in a sandbox that lets a link open a new tab."""
    return "; ".join(
        [
            "default-src 'none'",
            f"img-src {origin} data:",
            "style-src 'unsafe-inline'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'self'",
            "sandbox allow-popups allow-popups-to-escape-sandbox",
        ]
    )
