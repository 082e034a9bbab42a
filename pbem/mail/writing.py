"""How this server writes its mails out: the mail policy (the standard one, with the
headers that repeat from mail to mail parsed and folded once, and the ones written
per mail set as they go on the wire, parsed only when read back) and the clean text
a header may carry (no line breaks or control characters, a bounded length)."""

from __future__ import annotations

import unicodedata
from email.header import Header
from email.policy import EmailPolicy
from email.policy import default as default_policy
from email.utils import formataddr
from functools import lru_cache
from typing import Any

from pbem.i18n import gettext as _
from pbem.service.notices import Moot

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
    charset = "us-ascii" if plain else "utf-8"
    return Written(Header(text, charset, header_name=name).encode(linesep="\n"))


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


def header_text(text: str) -> str:
    """`text` fit for a header: no line breaks, control or format characters (they
    become spaces), no runs of spaces, at most HEADER_TEXT_LIMIT characters."""
    kept = "".join(
        " " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in str(text)
    )
    return " ".join(kept.split())[:HEADER_TEXT_LIMIT]


# -- the chat mail (its line in compose.WRITERS) ---------------------------------------


def chat_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    """The table talk since the row's first line (a chat row starts at the line that
    made it and carries the lines said while it waited), as its reader may read it:
    names, "you", and what is hidden from them blanked. Moot when none is left."""
    context: dict[str, Any] = composer._game(row)
    lines = [
        line for line in composer.service.table_talk(row.game_id, row.seat) if line.seq >= row.seq
    ]
    if not any(line.seat != row.seat for line in lines):
        raise Moot("no one else has said anything since")
    context["lines"] = [
        {"who": _("You") if line.seat == row.seat else line.name, "text": line.text}
        for line in lines
    ]
    others = together(dict.fromkeys(line.name for line in lines if line.seat != row.seat))
    subject = _(
        "%(title)s %(game)s: %(names)s said something at the table",
        title=context["title"],
        game=row.game_id,
        names=others,
    )
    return subject, context
