"""A game at one moment (its head), read in one transaction, for the mails written
at it: the game's row, seats and head state, and what each viewer is shown of them
(their view, position, actions, what happened), each worked out once per viewer and
language and kept with the moment. Every answer is keyed by its viewer: a mail to
one seat never gets another seat's view. Nothing here writes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pbem import i18n
from pbem.games import Rules, get

from . import queries, rows
from .errors import Happened, SeatLink
from .rows import Record
from .unit import Context


class Moment:
    """The game `row` at its head (seq and hash), with its `seats` and rules `state`
    as one transaction read them. Safe to share between threads."""

    def __init__(
        self, ctx: Context, row: Record, seats: list[Record], rules: Rules, state: Any
    ) -> None:
        self._ctx = ctx
        self.row = row
        self.seats = seats
        self.rules = rules
        self._state = state
        self._made: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()

    @property
    def game_id(self) -> str:
        game_id: str = self.row.id
        return game_id

    @property
    def head(self) -> tuple[int, str]:
        """The head this moment is the game at: its seq and hash."""
        return self.row.head_seq, self.row.head_hash

    def _once(self, what: str, viewer: int | None, make: Callable[[], Any]) -> Any:
        """`make()` the first time `what` is asked for `viewer` in the language of the
        moment (two threads may both make it: the same answer), kept after."""
        key = (what, viewer, i18n.language())
        with self._lock:
            if key in self._made:
                return self._made[key]
        made = make()
        with self._lock:
            return self._made.setdefault(key, made)

    def links(self) -> list[SeatLink]:
        """Every seat with its current token (see queries.seat_links)."""
        links: list[SeatLink] = self._once(
            "links", None, lambda: queries.links_of(self._ctx, self.game_id, self.seats)
        )
        return links

    def options(self) -> dict[str, Any]:
        return dict(self.row.options)

    def deadline(self, seat: int) -> str | None:
        """When the seat's turn ends, if the game waits on the seat and has one."""
        waited = any(s.seat == seat and s.waiting for s in self.seats)
        deadline: str | None = self.row.deadline_at if waited else None
        return deadline

    def view(self, seat: int | None) -> dict[str, Any]:
        """The state document at the head as `seat` may see it (queries.state_at)."""

        def make() -> dict[str, Any]:
            seq, digest = self.head
            return queries.document(self.rules, self._state, seat, self.game_id, seq, digest)

        view: dict[str, Any] = self._once("view", seat, make)
        return view

    def describe(self, seat: int | None) -> str:
        """The position at the head as text, as `seat` may see it (queries.describe)."""
        text: str = self._once(
            "describe",
            seat,
            lambda: queries.described(self.rules, self.row, self.head[0], self._state, seat),
        )
        return text

    def turn_options(self, seat: int | None) -> list[dict[str, Any]]:
        """The seat's legal actions with their previews (queries.turn_options)."""
        if seat is None:
            return []
        options: list[dict[str, Any]] = self._once(
            "turn_options", seat, lambda: queries.turn_options_in(self.rules, self._state, seat)
        )
        return options

    def history(self, viewer: int | None) -> list[Happened]:
        """Every event up to the head `viewer` may be told of, as a sentence
        (queries.history_of): the events of the log up to the head never change, so
        they are read in a transaction of their own when first asked for."""

        def make() -> list[Happened]:
            with self._ctx.reading() as conn:
                return queries.happened(
                    conn, self.rules, self.game_id, 0, self.head[0], viewer, self.seats
                )

        told: list[Happened] = self._once("history", viewer, make)
        return told


def moment(ctx: Context, game_id: str, kept: Moment | None = None) -> Moment:
    """The game now, in one read transaction: `kept` itself while the game's head is
    still the one it was read at (everything a moment holds follows from the head:
    seats and the game's row change only by events), else read again. NotFound when
    there is no such game."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        now = (row.id, (row.head_seq, row.head_hash))
        if kept is not None and (kept.game_id, kept.head) == now:
            return kept
        rules = get(row.game)
        return Moment(ctx, row, rows.seats(conn, game_id), rules, ctx.state(conn, rules, row))


class Moments:
    """The game now, one read per call: the moment a game was last found at, kept
    while the game is still at that head (its mails at one moment share the state
    and each viewer's answers), else read anew; the last `size` games' are kept.
    Safe to share between threads."""

    def __init__(self, ctx: Context, size: int) -> None:
        self._ctx = ctx
        self._size = size
        self._kept: OrderedDict[str, Moment] = OrderedDict()
        self._lock = threading.Lock()

    def now(self, game_id: str) -> Moment:
        with self._lock:
            kept = self._kept.get(game_id)
        found = moment(self._ctx, game_id, kept)
        if found is not kept:
            with self._lock:
                self._kept[game_id] = found
                self._kept.move_to_end(game_id)
                while len(self._kept) > self._size:
                    self._kept.popitem(last=False)
        return found
