"""What the server tells people, channel-neutral: the kinds of notice the service
writes to the outbox (an enumeration, checked when a row is written) and which of
them go whatever a person's mail preference says. How a notice becomes a message
(an e-mail today) is a channel adapter's job, not the service's."""

from __future__ import annotations

from enum import StrEnum


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
