"""Email addresses a mail can be built for: checked once, when a player's address is
given, with the same rules the composer applies when it writes the mail. The server
does not speak SMTPUTF8, so the part before the @ is ASCII; an internationalised
domain is kept in its ASCII form (IDNA 2008 A-labels), which every mail server takes."""

from __future__ import annotations

import functools
import re
from email.errors import MessageError
from email.headerregistry import Address

import idna

from pbem.i18n import gettext as _

from .errors import BadRequest

MAX_LENGTH = 254  # RFC 5321's limit on a path, less its angle brackets
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.IGNORECASE)


class NotAnAddress(BadRequest):
    """Text no mail can be addressed to."""


def checked_address(text: str) -> str:
    """`text` as an address a mail can be built for (surrounding spaces removed, an
    internationalised domain in its ASCII form); NotAnAddress, saying why, when it
    is not one."""
    address = ascii_domain(text.strip()) if isinstance(text, str) else ""
    if len(address) <= MAX_LENGTH and _fine(address):  # (the remembered are short)
        return address
    why = _problem(address)
    if why:
        shown = address if len(address) <= 80 else address[:77] + "..."
        raise NotAnAddress(
            _("%(address)s is not an email address: %(why)s", address=repr(shown), why=why)
        )
    return address


def address_key(text: str) -> str:
    """The form in which two spellings of one address compare equal: lower case,
    its domain in ASCII ("Ann@Müller.DE" and "ann@xn--mller-kva.de" are one)."""
    return ascii_domain(text.strip()).lower()


def domain_key(domain: str) -> str:
    """A domain name as compared: lower case, in ASCII (see ascii_domain)."""
    return (domain if domain.isascii() else _a_labels(domain) or domain).lower()


def ascii_domain(address: str) -> str:
    """The address with an internationalised domain written in ASCII: its A-labels
    (IDNA 2008 with the UTS 46 mapping, so "Müller.de" is "xn--mller-kva.de" and
    "straße.de" stays apart from "strasse.de"). The address unchanged when its
    domain is ASCII already or is no domain name (the checks then say why)."""
    local, at, domain = address.rpartition("@")
    if not at or domain.isascii():
        return address
    labels = _a_labels(domain)
    return address if labels is None else f"{local}@{labels}"


def _a_labels(domain: str) -> str | None:
    """The domain's A-labels; None when it is no internationalised domain name."""
    # only what could be a domain is remembered: hostile text cannot fill the memory
    return _encoded(domain) if len(domain) <= MAX_LENGTH else None


@functools.lru_cache(maxsize=1024)
def _encoded(domain: str) -> str | None:
    try:
        return idna.encode(domain, uts46=True).decode("ascii")
    except UnicodeError:  # idna.IDNAError among them
        return None


def _a_label(label: str) -> bool:
    """Whether an "xn--" label is the ASCII form of an internationalised one."""
    try:
        idna.decode(label)
    except UnicodeError:
        return False
    return True


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
        local, at, domain = address.rpartition("@")
        if not at:
            return _("it has no @ between a name and a domain")
        if not local.isascii():
            return _("the part before the @ must be plain ASCII (no accents)")
        return _("%(domain)s is not a domain name", domain=repr(domain))
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
    labels = domain.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels) or not all(
        _a_label(label) for label in labels if label[:4].lower() == "xn--"
    ):
        return _("%(domain)s is not a domain name", domain=repr(domain))
    return None
