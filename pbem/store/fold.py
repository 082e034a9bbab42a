"""The one undo-aware fold: walk a game's events from a base state through its rules,
each event with the state before and after it. An UndoDone restores the state at its
`back_to`; a SeatResigned that ended the game ends it through the rules (`resign`);
every other event that is not a move leaves the state as it was."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pbem.events import (
    MOVE_TYPES,
    MOVES,
    SEAT_RESIGNED,
    UNDO_DONE,
    Envelope,
    Event,
    Resolved,
    SeatResigned,
    UndoDone,
)
from pbem.games import IllegalAction
from pbem.games import Rules as Game

# The events that change the rules state; the others are not even decoded here, so
# that history still walks past one this server cannot read (verify reports it).
_FOLDED = frozenset((*MOVES, UNDO_DONE, SEAT_RESIGNED))


@dataclass(frozen=True)
class Step:
    """One event of the walk: the rules state before it and after it, and for a move
    the action it played (as the rules' object)."""

    envelope: Envelope
    before: Any
    after: Any
    move: Any = None

    @property
    def event(self) -> Event:
        return self.envelope.event

    @property
    def seq(self) -> int:
        return self.envelope.seq


class UndoneBeforeBase(Exception):
    """An undo reaches back before the state the walk started from, and the walk was
    given no way to restore an earlier state."""

    def __init__(self, back_to: int) -> None:
        super().__init__(f"an undo goes back to seq {back_to}, before the walk's base")
        self.back_to = back_to


class MoveDoesNotFold(ValueError):
    """A stored move the rules refuse (found when the walk checks moves)."""

    def __init__(self, envelope: Envelope, seat: int | None, reason: IllegalAction) -> None:
        whose = "the game's own" if seat is None else f"seat {seat}'s"
        super().__init__(f"seq {envelope.seq}: {whose} move does not fold: {reason}")
        self.envelope, self.seat, self.reason = envelope, seat, reason


class Fold:
    """The walk in progress: the state after each move since the base is kept, so an
    undo steps back to any of them. `restore(seq)` gives the state at an earlier seq
    for an undo that reaches before the base (without it, such an undo raises
    UndoneBeforeBase). With `check`, each move is checked by the rules first (a
    refused one raises MoveDoesNotFold); otherwise moves are trusted, as they were
    checked before they were stored."""

    def __init__(
        self,
        game: Game,
        base_seq: int,
        base: Any,
        *,
        restore: Callable[[int], Any] | None = None,
        check: bool = False,
    ) -> None:
        self.game = game
        self.restore = restore
        self.check = check
        self.stack: list[tuple[int, Any]] = [(base_seq, base)]

    @property
    def base_seq(self) -> int:
        """The earliest seq whose state the walk can go back to by itself."""
        return int(self.stack[0][0])

    @property
    def state(self) -> Any:
        return self.stack[-1][1]

    def step(self, envelope: Envelope) -> Step:
        """Fold one event (the next one after the last folded)."""
        before = self.state
        if envelope.type not in _FOLDED:
            return Step(envelope, before, before)
        event = envelope.event
        if isinstance(event, MOVE_TYPES):
            move = self.game.parse(event.action)
            if self.check:
                try:
                    move = self.game.check(before, move, event.seat)
                except IllegalAction as error:
                    raise MoveDoesNotFold(envelope, event.seat, error) from None
            self.stack.append((envelope.seq, self.game.perform(before, move)))
            return Step(envelope, before, self.state, move)
        if isinstance(event, Resolved):  # the game's own action: no seat made it
            move = self.game.parse(event.action)
            if self.check:
                try:
                    move = self.game.check(before, move, None)
                except IllegalAction as error:
                    raise MoveDoesNotFold(envelope, None, error) from None
            self.stack.append((envelope.seq, self.game.perform(before, move)))
            return Step(envelope, before, self.state, move)
        if isinstance(event, UndoDone):
            self._back_to(event.back_to)
        elif isinstance(event, SeatResigned) and not event.replaced_by:
            self.stack.append((envelope.seq, self.game.resign(before, event.seat)))
        return Step(envelope, before, self.state)

    def _back_to(self, seq: int) -> None:
        if seq < self.base_seq:
            if self.restore is None:
                raise UndoneBeforeBase(seq)
            self.stack = [(seq, self.restore(seq))]
            return
        while self.stack[-1][0] > seq:
            self.stack.pop()


def fold(
    game: Game,
    events: Iterable[Envelope],
    base_seq: int,
    base: Any,
    *,
    restore: Callable[[int], Any] | None = None,
    check: bool = False,
) -> Iterator[Step]:
    """Each event of `events` (those after `base_seq`, in order) with the state before
    and after it, starting from `base`, the state at `base_seq`. See `Fold`."""
    walk = Fold(game, base_seq, base, restore=restore, check=check)
    for envelope in events:
        yield walk.step(envelope)
