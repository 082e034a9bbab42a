"""What became of an incoming mail (`Inbound.handle`'s answer), and why a mail that
bounces does: the mail server's status codes tell the reasons apart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

# Why a mail bounces (Handled.reason)
NO_ADDRESS: Final = "no address"  # no reply address of a game among its recipients
FORGED: Final = "forged"  # a reply address this server did not sign, or an old holder's
TOO_LARGE: Final = "too large"  # over MAX_BYTES
MALFORMED: Final = "malformed"  # no readable From, or no Message-ID
UNREADABLE: Final = "unreadable"  # the mail could not be read at all


@dataclass
class Handled:
    """What became of an incoming mail. `bounce` is true when the mail server should
    refuse it (a reply address this server did not sign, a mail too large or that
    cannot be read), and `reason` then says which; `retry` when it should try again
    later (another handler has it in hand). `game` is the game the mail was about,
    once its reply address was read."""

    status: str
    detail: str = ""
    bounce: bool = False
    answer: int | None = None  # the outbox row of the answer, if any
    ignored: list[str] = field(default_factory=list)
    retry: bool = False
    reason: str = ""
    game: str | None = None
