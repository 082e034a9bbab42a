"""Email addresses a mail can be built for: checked once, when a player's address is
given, with the same rules the composer applies when it writes the mail (ASCII only:
the server does not speak SMTPUTF8)."""

from __future__ import annotations

import functools
import re
from email.errors import MessageError
from email.headerregistry import Address

from pbem.i18n import gettext as _

from .errors import BadRequest

MAX_LENGTH = 254  # RFC 5321's limit on a path, less its angle brackets
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.IGNORECASE)


class NotAnAddress(BadRequest):
    """Text no mail can be addressed to."""


def checked_address(text: str) -> str:
    """`text` as an address a mail can be built for (surrounding spaces removed);
    NotAnAddress, saying why, when it is not one."""
    address = text.strip() if isinstance(text, str) else ""
    if len(address) <= MAX_LENGTH and _fine(address):  # (the remembered are short)
        return address
    why = _problem(address)
    if why:
        shown = address if len(address) <= 80 else address[:77] + "..."
        raise NotAnAddress(
            _("%(address)s is not an email address: %(why)s", address=repr(shown), why=why)
        )
    return address


@functools.lru_cache(maxsize=4096)
def _fine(address: str) -> bool:
    """Whether the address passed (each player's is checked again for every mail
    written to them: the mail parser's reading of it is most of what a mail's
    headers cost)."""
    return _problem(address) is None


def _problem(address: str) -> str | None:
    if not address:
        return _("it is empty")
    if len(address) > MAX_LENGTH:
        return _("it is longer than %(most)s characters", most=MAX_LENGTH)
    if not address.isascii():
        return _("only plain ASCII addresses are supported (no accents, no IDN domains)")
    if not address.isprintable() or any(c.isspace() for c in address):
        return _("it contains spaces or control characters")
    try:
        parsed = Address(addr_spec=address)
    except (ValueError, IndexError, MessageError) as error:
        return _("it cannot be read as name@domain (%(error)s)", error=error)
    if parsed.addr_spec != address or address.startswith('"'):
        return _("only a plain local part and a domain are supported")
    local, _at, domain = address.rpartition("@")
    if not local or len(local) > 64:
        return _("the part before the @ has 1 to 64 characters")
    if not all(_LABEL.fullmatch(label) for label in domain.split(".")):
        return _("%(domain)s is not a domain name", domain=repr(domain))
    return None
