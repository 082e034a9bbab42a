"""What a command can refuse, each with what a caller needs to answer well."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.events import Event
from pbem.i18n import gettext as _


class ServiceError(Exception):
    """A refused command; `status` is the fitting HTTP status, `detail` extra data."""

    status = 400

    def __init__(self, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class BadRequest(ServiceError):
    status = 400


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class TooMany(ServiceError):
    """Refused for now: too many of something in a while; the message says when."""

    status = 429


class Illegal(ServiceError):
    """The rules forbid the action; the message is the rule, in a player's words."""

    status = 422


@dataclass
class Happened:
    """One event told as a sentence: to a stale caller, in logs, pages and mails.
    `event` is the typed event (`pbem.events`): ask it with isinstance."""

    seq: int
    event: Event
    seat: int | None
    text: str
    round: int  # the round the event happened in
    closes_round: bool = False  # the event ended a round (standings were scored)

    @property
    def type(self) -> str:
        """The event's type as stored (the JSON API's `since[].type`)."""
        return self.event.TYPE

    def told(self) -> dict[str, Any]:
        """What a caller is told of the event (the JSON API's `since[]`): its
        sentence and where it stands, never its payload (a seat's new holder's
        address, a token's hash)."""
        return {
            "seq": self.seq,
            "type": self.type,
            "seat": self.seat,
            "text": self.text,
            "round": self.round,
            "closes_round": self.closes_round,
        }


class Stale(ServiceError):
    """The game moved on since the seq the caller saw; `since` says how."""

    status = 409

    def __init__(self, expected: int, head: int, since: list[Happened]) -> None:
        lines = "; ".join(_("seq %(seq)s: %(text)s", seq=h.seq, text=h.text) for h in since)
        super().__init__(
            _(
                "the game has moved on: you saw seq %(expected)s, it is now at seq %(head)s"
                " (%(lines)s)",
                expected=expected,
                head=head,
                lines=lines,
            ),
            {"expected_seq": expected, "head_seq": head, "since": [h.told() for h in since]},
        )
        self.since = since
        self.head = head


@dataclass
class Accepted:
    """A stored move."""

    game_id: str
    seq: int
    seat: int
    action: str  # canonical notation
    narration: str
    head_hash: str
    replayed: bool = False  # True when an idempotency key returned an earlier answer


@dataclass
class SeatLink:
    seat: int
    name: str
    token: str | None  # None for bot seats
    email: str | None
    language: str = "en"  # of the seat's mails


@dataclass
class Created:
    game_id: str
    seq: int
    seats: list[SeatLink] = field(default_factory=list)
    replayed: bool = False  # True when a creation key returned a game made earlier
