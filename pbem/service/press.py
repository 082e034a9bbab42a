"""A game's press rules for its table talk (the option `press`, options.PRESS):
whether a seat may talk at all, and who a line goes to — everyone, or in a game of
private press some seats only; and the seats a mail's `say to NAMES:` names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pbem.games.names import said_name
from pbem.i18n import gettext as _

from .errors import BadRequest, Forbidden

_AND = re.compile(r"\s+(?:and|und)\s+|\s*&\s*", re.IGNORECASE)
_SEAT = re.compile(r"seat\s*#?\s*(\d{1,2})", re.IGNORECASE)


def addressees(
    press: str, playing: bool, given: object, sayer: int, seats: Sequence[Any]
) -> tuple[int, ...] | None:
    """The seats a line of `sayer` goes to besides its sayer (None: everyone), as
    `given` (None, or a list of seat numbers) under the game's `press` rules.
    Refused, saying why: no talk while a game without press runs, and no private
    line in a game whose press is not private (Forbidden); a seat the game does not
    have, or none but the sayer (BadRequest). `seats`: the game's seat rows."""
    if press == "none" and playing:
        raise Forbidden(
            _(
                "this game is played without table talk (its press is none): nothing can"
                " be said at the table while it runs"
            )
        )
    if given is None:
        return None
    if press != "private":
        raise Forbidden(
            _(
                "this game's press is public: a line goes to everyone at the table,"
                " never to some seats only"
            )
        )
    numbers = {s.seat for s in seats}
    if not isinstance(given, list | tuple) or not given:
        raise BadRequest(
            _(
                "a private line goes to a list of seats, e.g. [2]; it may go to %(seats)s",
                seats=others(seats, sayer),
            )
        )
    for seat in given:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in numbers:
            raise BadRequest(
                _(
                    "there is no seat %(seat)s at this table: a private line may go to %(seats)s",
                    seat=str(seat)[:20],
                    seats=others(seats, sayer),
                )
            )
    to = tuple(sorted(set(given) - {sayer}))
    if not to:
        raise BadRequest(
            _(
                "a private line goes to another seat than your own: it may go to %(seats)s",
                seats=others(seats, sayer),
            )
        )
    return to


def others(seats: Iterable[Any], sayer: int) -> str:
    """The seats a line of `sayer` may go to, as a mail or a form names them:
    "Ben (seat 2), Cy (seat 3)"."""
    return ", ".join(
        _("%(name)s (seat %(seat)s)", name=said_name(s.name), seat=s.seat)
        for s in seats
        if s.seat != sayer
    )


def named(seats: Sequence[Any], sayer: int, names: str) -> tuple[int, ...]:
    """The seats `names` (what a mail wrote between `say to` and the colon) names:
    names as the game shows them, case-insensitive (a bot's in English or in the
    reader's language), or "seat N", apart by commas or "and". BadRequest naming
    who can be addressed when one names no seat (or more than one)."""
    found: list[int] = []
    for piece in (p for p in names.split(",") if p.strip()):
        seat = _one(seats, piece)
        parts = [seat] if seat is not None else [_one(seats, p) for p in _AND.split(piece)]
        for number in parts:
            if number is None:
                raise BadRequest(
                    _(
                        "“%(name)s” is no one at this table: a private line may go to %(seats)s",
                        name=" ".join(piece.split())[:60],
                        seats=others(seats, sayer),
                    )
                )
            found.append(number)
    if not found:
        raise BadRequest(
            _("say to whom? A private line may go to %(seats)s", seats=others(seats, sayer))
        )
    return tuple(found)


def _one(seats: Sequence[Any], piece: str) -> int | None:
    """The one seat a name (or "seat N", in English or in the reader's words) is."""
    said = _folded(piece)
    number = _SEAT.fullmatch(said)
    matches = {
        s.seat
        for s in seats
        if said in (_folded(s.name), _folded(said_name(s.name)), _folded(_seat(s.seat)))
        or (number is not None and int(number[1]) == s.seat)
    }
    return matches.pop() if len(matches) == 1 else None


def _seat(seat: int) -> str:
    return _("seat %(seat)s", seat=seat)


def _folded(text: str) -> str:
    return " ".join(str(text).split()).casefold()
