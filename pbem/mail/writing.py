"""How this server writes its mails out: the mail policy (the standard one, with the
headers that repeat from mail to mail parsed and folded once) and the clean text a
header may carry (no line breaks or control characters, a bounded length)."""

from __future__ import annotations

import unicodedata
from email.policy import EmailPolicy
from email.policy import default as default_policy
from functools import lru_cache
from typing import Any

HEADER_TEXT_LIMIT = 200


class _MailPolicy(EmailPolicy):
    """The default mail policy, remembering how it parsed and wrote out the headers
    whose values repeat from mail to mail (From, the content headers ...): a
    header's parsed form and its written form depend only on its name and value,
    and parsing and folding headers is most of the cost of writing a mail."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if name.lower() in _REPEATED and type(value) is str:
            return name, parsed(name, value)
        return super().header_store_parse(name, value)

    def fold_binary(self, name: str, value: Any) -> bytes:
        if name.lower() in _REPEATED:
            return _folded(self, name, str(value))
        folded: bytes = super().fold_binary(name, value)
        return folded


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
