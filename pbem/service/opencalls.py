"""The open tables' part of the service facade (`opentables`, `joining`): mixed
into `Service`, whose unit-of-work context it shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import joining, opentables
from .create import PlayerSpec
from .joining import Joined
from .opentables import Opened
from .unit import Context


class OpenTables:
    """Open tables: listed, joined by a mailed link, managed by their creator."""

    _ctx: Context

    def open_table(
        self,
        players: Sequence[PlayerSpec],
        open_seats: int,
        options: Mapping[str, Any] | None = None,
        setup: Mapping[str, Any] | None = None,
        *,
        game: str | None = None,
    ) -> Opened:
        """List a new table of `game` with `players` seated and `open_seats` open."""
        return opentables.open_table(self._ctx, players, open_seats, options, setup, game=game)

    def open_tables(self, page: int = 1) -> tuple[list[dict[str, Any]], int]:
        """A page of the tables waiting for players, and how many pages there are."""
        return opentables.listing(self._ctx, page)

    def open_table_view(self, table_id: str) -> dict[str, Any]:
        """What anyone may see of a table (never an address)."""
        return opentables.view(self._ctx, table_id)

    def managed_table(self, table_id: str, token: str) -> dict[str, Any]:
        """The table of a management link, as its creator sees it."""
        return opentables.public(opentables.managed(self._ctx, table_id, token), self._ctx)

    def table_seat(self, table_id: str, seat: int) -> tuple[str, str] | None:
        """The game and seat token of a table's seat, once its game is made."""
        return opentables.seat_of(self._ctx, table_id, seat)

    def creator_seat(self, table_id: str, token: str) -> tuple[str, str] | None:
        """The game and seat token of the creator of a managed table, once made."""
        row = opentables.managed(self._ctx, table_id, token)
        return opentables.seat_of(self._ctx, table_id, opentables.creator_seat(row))

    def cancel_table(self, table_id: str, token: str) -> None:
        opentables.cancel(self._ctx, table_id, token)

    def fill_table_with_bots(self, table_id: str, token: str, bot: str) -> str:
        """Fill the open seats with bots; the game's id."""
        return opentables.fill_with_bots(self._ctx, table_id, token, bot)

    def ask_to_join(self, table_id: str, name: Any, email: Any) -> None:
        """Mail the address a link that takes a seat (or, quietly, nothing)."""
        joining.ask(self._ctx, table_id, name, email)

    def join_pending(self, token: str) -> dict[str, Any]:
        """The table a join link is for, while the link can be used."""
        return joining.pending(self._ctx, token)

    def confirm_join(self, token: str) -> Joined:
        """Take the seat a join link is for."""
        return joining.confirm(self._ctx, token)
