"""What the server tells people, channel-neutral: the kinds of notice the service
writes to the outbox (an enumeration, checked when a row is written), which of them
go whatever a person's mail preference says, and the port a channel adapter plugs
into. How a notice becomes a message (an e-mail today) is the adapter's job, not
the service's: a new channel (a webhook, a chat) is one module implementing
`Channel`, and one line in the composition root (pbem.bootstrap)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol


class Kind(StrEnum):
    """Every kind of notice. Each channel adapter has a rendering for each (for
    e-mail: templates/mail/<kind>.txt and .html); a test fails when one lacks it."""

    INVITATION = "invitation"
    YOUR_TURN = "your_turn"
    ROUND_SCORED = "round_scored"
    REMINDER = "reminder"
    TIMED_OUT = "timed_out"
    GAME_OVER = "game_over"
    UNDO_REQUEST = "undo_request"
    UNDO_LAPSED = "undo_lapsed"
    VACATION = "vacation"
    DIGEST = "digest"
    ANSWER = "answer"
    MY_GAMES = "my_games"
    SIGN_IN = "sign_in"
    SIGN_OUT = "sign_out"  # a link that signs an address out of My games everywhere
    CHAT = "chat"  # table talk since the seat's last chat mail, a few minutes gathered
    RESIGNED = "resigned"  # another seat's person left the game
    REMATCH_OFFER = "rematch_offer"  # after the end: play again? (reply "yes" or "no")
    JOIN_CONFIRM = "join_confirm"  # a link that takes a seat at an open table


ALWAYS = frozenset({Kind.INVITATION, Kind.GAME_OVER})  # sent whatever the preference


def kind_of(value: object) -> Kind:
    """The Kind named `value`; raises ValueError for any other value, so that a
    misspelt kind fails where the row is written, not at delivery."""
    if isinstance(value, Kind):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a notice kind is a string, not {type(value).__name__}")
    try:
        return Kind(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a kind of notice") from None


class Moot(Exception):
    """A notice that no longer matters (its turn was played, its seat changed
    hands): it is skipped, not delivered."""


class DeliveryFailed(Exception):
    """An attempt to deliver a notice that did not work: `permanent` when trying
    again cannot help (the notice cannot be written, the other end refused it for
    good), else it is tried again later."""

    def __init__(self, reason: str, *, permanent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent


class Channel(Protocol):
    """A channel adapter: turns one claimed outbox row of its channel (kind, game,
    seat, address, payload) into a message and delivers it."""

    @property
    def name(self) -> str:
        """The channel's name, as the outbox rows of this channel carry it ("email")."""
        ...

    def delivery_id(self) -> str:
        """A new id for a message, stored in the row before the first attempt, so
        that a resend after a crash is the same message (for e-mail: a Message-ID)."""
        ...

    def deliver(self, row: Any) -> None:
        """Deliver one claimed row (it has its `delivery_id`). Raises Moot when the
        notice no longer matters, DeliveryFailed when the attempt failed; any other
        exception counts as a notice that cannot be written (failed for good)."""
        ...

    def close(self) -> None:
        """Let go of whatever the deliveries of this thread hold open (a connection)."""
        ...

    def warm(self) -> None:
        """Make ready, as a worker starts, what the first delivery would otherwise
        make ready (templates compiled, libraries loaded), so that the first
        notices go as fast as the rest. The worker logs what this raises and
        starts anyway."""
        ...
