"""My games' part of the service facade: across games (a person's seats, each
game's clock and summary, the deadline feeds) and signing in and out by mail, and
the daily clean-up of what can no longer be used."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from . import archive, dashboard, feedlinks, feeds, profiles, signing
from .unit import Context


class MyGames:
    """The calls the dashboard, the feeds and the scheduler's clean-up make; mixed
    into `Service`, whose unit-of-work context it shares."""

    _ctx: Context

    def seats_of(self, address: str) -> list[dashboard.HeldSeat]:
        """Every seat a person with this address holds now, with its token."""
        return dashboard.seats_of(self._ctx, address)

    def ask_for_link(self, kind: str, email: str) -> None:
        """Queue a request for a link mailed to `email`: "sign_in" (with the links
        of its games) or "sign_out" (everywhere). The same work for any address;
        never tell the asker whether one goes (`answer_link_requests` decides)."""
        signing.ask(self._ctx, kind, email)

    def answer_link_requests(self) -> list[int]:
        """Answer the queued link requests (the scheduler's sweep): a link only to an
        address that plays here, at most once per 10 minutes of each kind; the
        outbox rows written."""
        return signing.answer_requests(self._ctx)

    def sign_in(self, token: str) -> tuple[str, str]:
        """Use a sign-in link (once, while it is fresh): its address and the id of
        the browser's new session; Forbidden otherwise."""
        return signing.sign_in(self._ctx, token)

    def signed_in(self, session_id: str) -> signing.SignedIn | None:
        """The sign-in of a browser's session (its address), or None."""
        return signing.signed_in(self._ctx, session_id)

    def sign_out(self, session_id: str) -> None:
        """End a browser's sign-in session and the seat sessions it opened."""
        signing.sign_out(self._ctx, session_id)

    def sign_out_address(self, address: str) -> int:
        """End every sign-in of an address and the seat sessions they opened."""
        return signing.sign_out_address(self._ctx, address)

    def sign_out_everywhere(self, token: str) -> str:
        """Use a mailed sign-out link (once, while fresh): every sign-in of its
        address ends; the address. Forbidden otherwise."""
        return signing.sign_out_everywhere(self._ctx, token)

    def prune(self) -> dict[str, int]:
        """Forget the seat sessions, sign-ins, links, requests and feeds that can no
        longer be used (the scheduler's daily job); how many of each went."""
        return dashboard.prune(self._ctx)

    def feed_for(
        self, feed_id: str | None, session_ids: Sequence[str], make: bool = True
    ) -> str | None:
        """The id of the deadline feed that follows a browser's seat sessions: its
        `feed_id` while that names a feed, else a new one (None when not to
        `make` one)."""
        return feeds.feed_for(self._ctx, feed_id, session_ids, make)

    def feed_seats(self, feed_id: str) -> list[tuple[str, int]] | None:
        """The seats a feed lists now; None when the id names no feed."""
        return feeds.feed_seats(self._ctx, feed_id)

    def drop_feed(self, feed_id: str) -> None:
        """Revoke a feed's address."""
        feeds.drop(self._ctx, feed_id)

    def feed_entry_links(
        self, feed_id: str, seats: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], str]:
        """The signature of the link each seat's entry in the feed carries."""
        return feedlinks.entry_links(self._ctx, feed_id, seats)

    def feed_entry_token(self, feed_id: str, game_id: str, seat: int, signature: str) -> str | None:
        """The seat token a feed entry's link opens, while the feed lists the seat."""
        return feedlinks.entry_token(self._ctx, feed_id, game_id, seat, signature)

    def changed_at(self, game_id: str, seq: int) -> datetime:
        """When the game's event at `seq` was stored."""
        return feedlinks.changed_at(self._ctx, game_id, seq)

    def clock_of(self, game_id: str, viewer: int | None = None) -> dict[str, Any]:
        """The game's head seq, status, seat to move, round and deadline, and the
        `tag` that changes when something worth showing `viewer` (a seat, None for
        a spectator) happened."""
        return dashboard.clock_of(self._ctx, game_id, viewer)

    def profile_of(self, address: str) -> dict[str, Any] | None:
        """The address's public profile (slug, name), or None while it is off."""
        return profiles.profile_of(self._ctx, address)

    def publish_profile(self, address: str, name: str) -> str:
        """Turn the address's public profile on under `name` (or rename it); its slug."""
        return profiles.publish(self._ctx, address, name)

    def withdraw_profile(self, address: str) -> None:
        """Turn the address's public profile off: its page is gone at once."""
        profiles.withdraw(self._ctx, address)

    def public_record(self, slug: str) -> dict[str, Any] | None:
        """A public profile's page (name, finished games), or None."""
        return profiles.public_record(self._ctx, slug)

    def game_result(self, game_id: str, seat: int) -> dict[str, Any] | None:
        """The seat's place, score and the winners of a finished game; None while
        it runs."""
        return archive.result(self._ctx, game_id, seat)

    def seat_summary(self, game_id: str, seat: int) -> dict[str, Any]:
        """One game as the seat's dashboard shows it."""
        return dashboard.seat_summary(self._ctx, game_id, seat)
