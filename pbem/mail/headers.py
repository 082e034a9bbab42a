"""What a received mail's headers say, read so that no header can make it fail:
raw values (unfolded, not decoded), decoded text, the one sender, the recipients,
whether the mail is automatic, and whether the receiving server authenticated its
sender (Authentication-Results, RFC 8601)."""

from __future__ import annotations

import re
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import getaddresses

from pbem.service.addresses import address_key, domain_key

_ADDR_SPEC = re.compile(r"[^\s@<>()\[\],;:\"\\]{1,64}@[^\s@<>()\[\],;:\"\\]{1,253}")
_METHOD = re.compile(
    r"^\s*(?P<method>[a-z0-9_-]+)\s*=\s*(?P<result>[a-z0-9_-]+)(?P<props>.*)$", re.I | re.S
)
_PROPERTY = re.compile(r"(?P<name>[a-z0-9_-]+\.[a-z0-9_-]+)\s*=\s*\"?(?P<value>[^\s\";]+)", re.I)


def unfolded(value: str) -> str:
    return re.sub(r"[\r\n]+", "", value)


def raw(message: EmailMessage, name: str) -> list[str]:
    """The header's values as they came (unfolded, encoded words not decoded; raw
    UTF-8, as RFC 6532 allows, read as text): reading them can never fail."""
    return [unfolded(_utf8(str(v))) for k, v in message.raw_items() if k.lower() == name.lower()]


def _utf8(value: str) -> str:
    """A header value with the bytes the parser kept as they were (non-ASCII bytes
    come out of it as lone surrogates) read as UTF-8; a byte that is no UTF-8
    becomes U+FFFD."""
    if value.isascii():
        return value
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no parser of bytes makes
        return value.encode("utf-8", "replace").decode("utf-8")


def first(message: EmailMessage, name: str) -> str:
    found = raw(message, name)
    return found[0] if found else ""


def text(value: str) -> str:
    """A header's text, its encoded words decoded where they can be, with every
    control character (an encoded CR or LF, say) made a space."""
    try:
        decoded = str(make_header(decode_header(value)))
    except Exception:  # an encoded word that does not decode: keep it as written
        decoded = value
    return " ".join("".join(c if c.isprintable() else " " for c in decoded).split())


def sender(message: EmailMessage) -> str | None:
    """The one address in From, if it is a plain address (no control characters, no
    spaces), in the form a seat's address is compared in (lower case, its domain in
    ASCII: see addresses.address_key); else None."""
    found = [a for _, a in getaddresses(raw(message, "From")) if a]
    if len(found) != 1 or not _ADDR_SPEC.fullmatch(found[0]) or not found[0].isprintable():
        return None
    return address_key(found[0])


def recipients(message: EmailMessage) -> list[str]:
    """Every address the mail says it was for, the delivery headers first."""
    headers = [
        *raw(message, "Delivered-To"),
        *raw(message, "X-Original-To"),
        *raw(message, "To"),
        *raw(message, "Cc"),
    ]
    return [address for _, address in getaddresses(headers)]


def automatic(message: EmailMessage) -> str | None:
    """Why a mail must not be answered (it is automatic, a list's, or ours), or None."""
    auto = text(first(message, "Auto-Submitted") or "no").lower()
    if auto != "no":
        return f"an automatic mail (Auto-Submitted: {auto[:40]})"
    precedence = text(first(message, "Precedence")).lower()
    if precedence in ("bulk", "junk", "list"):
        return f"a {precedence} mail"
    if raw(message, "X-Pbem-Kind"):
        return "one of this server's own mails"
    senders = [a.lower() for _, a in getaddresses(raw(message, "From"))]
    if any(s.startswith(("mailer-daemon@", "postmaster@")) for s in senders) or (
        first(message, "Return-Path").strip() == "<>"
    ):
        return "a bounce"
    return None


def authenticated(message: EmailMessage, sender: str) -> bool:
    """Whether the topmost Authentication-Results header (RFC 8601: the one our own
    receiving server added; those below it came with the mail and prove nothing)
    says dkim, spf or dmarc passed for the From address's domain."""
    found = raw(message, "Authentication-Results")
    if not found:
        return False
    domain = domain_key(sender.rpartition("@")[2])
    text = re.sub(r"\([^()]*\)", " ", found[0])  # comments
    for resinfo in text.split(";")[1:]:
        match = _METHOD.match(resinfo)
        if match is None or match["result"].lower() != "pass":
            continue
        props = {p["name"].lower(): p["value"].lower() for p in _PROPERTY.finditer(match["props"])}
        method = match["method"].lower()
        if method == "dkim":
            signer = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
        elif method == "spf":
            signer = props.get("smtp.mailfrom", "").rpartition("@")[2]
        elif method == "dmarc":
            signer = props.get("header.from", "").rpartition("@")[2]
        else:
            continue
        signer = domain_key(signer) if signer else ""
        if signer and (domain == signer or domain.endswith("." + signer)):
            return True
    return False
