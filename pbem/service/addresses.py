"""Email addresses a mail can be built for: checked once, when a player's address is
given, with the same rules the composer applies when it writes the mail (ASCII only:
the server does not speak SMTPUTF8)."""

from __future__ import annotations

import re
from email.errors import MessageError
from email.headerregistry import Address

from .errors import BadRequest

MAX_LENGTH = 254  # RFC 5321's limit on a path, less its angle brackets
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.IGNORECASE)


class NotAnAddress(BadRequest):
    """Text no mail can be addressed to."""


def checked_address(text: str) -> str:
    """`text` as an address a mail can be built for (surrounding spaces removed);
    NotAnAddress, saying why, when it is not one."""
    address = text.strip() if isinstance(text, str) else ""
    why = _problem(address)
    if why:
        shown = address if len(address) <= 80 else address[:77] + "..."
        raise NotAnAddress(f"{shown!r} is not an email address: {why}")
    return address


def _problem(address: str) -> str | None:
    if not address:
        return "it is empty"
    if len(address) > MAX_LENGTH:
        return f"it is longer than {MAX_LENGTH} characters"
    if not address.isascii():
        return "only plain ASCII addresses are supported (no accents, no IDN domains)"
    if not address.isprintable() or any(c.isspace() for c in address):
        return "it contains spaces or control characters"
    try:
        parsed = Address(addr_spec=address)
    except (ValueError, IndexError, MessageError) as error:
        return f"it cannot be read as name@domain ({error})"
    if parsed.addr_spec != address or address.startswith('"'):
        return "only a plain local part and a domain are supported"
    local, _, domain = address.rpartition("@")
    if not local or len(local) > 64:
        return "the part before the @ has 1 to 64 characters"
    if not all(_LABEL.fullmatch(label) for label in domain.split(".")):
        return f"{domain!r} is not a domain name"
    return None
