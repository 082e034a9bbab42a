"""The table around a game, as the service facade's part: a seat's person leaving a
running game (`resign`), and playing the same game again once it is over
(`rematch`)."""

from __future__ import annotations

from pbem.events import Envelope

from . import rematch, resign
from .rematch import Offer
from .unit import Context


class Table:
    """The calls the game page, the API and the mail replies make about leaving a
    game and playing it again; mixed into `Service`, whose context it shares."""

    _ctx: Context

    def resign(self, game_id: str, token: str) -> Envelope:
        """The seat of `token` leaves the running game. The game's rules decide what
        follows (`Game.on_resign`): a bot plays the seat on (it has the seat's
        hand; the person's link then only watches), or the game ends now. The
        others are told. Forbidden for any link but the seat's own."""
        return resign.resign(self._ctx, game_id, token)

    def resign_outcome(self, game_id: str, seat: int) -> str | None:
        """What resigning would do for `seat` now: "bot" (a bot plays on) or "end"
        (the game ends); None when the seat cannot resign."""
        return resign.outcome(self._ctx, game_id, seat)

    def resigned_seat(self, game_id: str, token: str | None) -> int | None:
        """The seat a link's person resigned from (that link may watch the game)."""
        return resign.resigned_seat(self._ctx, game_id, token)

    def offer_rematch(self, game_id: str, token: str) -> Envelope:
        """Once the game is over, the seat of `token` offers everyone at the table a
        new game of the same options and players with a new deal; the other people
        are asked by mail. One open offer at a time."""
        return rematch.offer(self._ctx, game_id, token)

    def answer_rematch(self, game_id: str, token: str, accept: bool) -> Offer:
        """The seat of `token` accepts (idempotently) or declines the open offer; the
        last acceptance starts the new game (its invitations carry each person's
        link). An offer closes on a decline or after `rematch.OFFER_DAYS` days."""
        return rematch.answer(self._ctx, game_id, token, accept)

    def rematch_status(self, game_id: str, seat: int | None) -> dict[str, object] | None:
        """The rematch as the finished game's page shows it to `seat` (None before
        the end)."""
        return rematch.status(self._ctx, game_id, seat)
