"""Leaving a running game: the seat's person resigns, and the game's rules say what
follows (`Game.on_resign`): a bot plays the seat on, or the game ends there. The
others are told; the person's link then only watches."""

from __future__ import annotations

from typing import Any

from pbem.events import Envelope, SeatResigned
from pbem.games import Rules as Game
from pbem.games import get, plugin
from pbem.games.base import RESIGN_CHOICES
from pbem.i18n import gettext as _
from pbem.store import log

from . import policy, rows
from .errors import BadRequest
from .notices import Kind
from .tokens import token_hash
from .unit import BOT, Context, Tx, is_bot


def resign(ctx: Context, game_id: str, token: str) -> Envelope:
    """The seat of `token` leaves the game (see `Service.resign`)."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token)  # a bot's seat or a stranger: Forbidden
        if row.status != "playing":
            raise BadRequest(_("the game is over"))
        rules = get(row.game)
        before = ctx.state(tx.conn, rules, row)
        people = sum(1 for s in seats if s.seat != seat.seat and not is_bot(s))
        choice = rules.on_resign(before, seat.seat, people)
        if choice not in RESIGN_CHOICES:
            raise ValueError(f"{row.game}: on_resign answered {choice!r}")
        bot = plugin(row.game).bots[0] if choice == "bot" else None
        event, after = record(ctx, tx, rules, seat.seat, before, bot, f"seat:{seat.seat}")
        now = rows.seats(tx.conn, game_id)
        ended = bot is None
        for other in now:
            if other.seat != seat.seat:
                payload = {"who": seat.seat, "ended": ended}
                policy.to_seat(tx, event.seq, Kind.RESIGNED, other, payload)
        if ended:
            policy.moved(tx, rules, now, event.seq, before, after)  # the game-over mails
        elif seat.waiting:
            tx.bot_turn = (seat.seat, event.seq)
        return event


def record(
    ctx: Context, tx: Tx, rules: Game, seat: int, before: Any, bot: str | None, actor: str
) -> tuple[Envelope, Any]:
    """Store `seat`'s resignation in the game of `tx`, whose state is `before`: the
    bot `bot` plays the seat from now on, or (None) the game ends through the rules
    (`Game.resign`). Returns the event and the state after it. The live resignation
    and a log file's import both come here."""
    if bot is not None:
        replaced_by, after = f"{BOT}{bot}", before
    else:
        replaced_by, after = "", rules.resign(before, seat)
    return ctx.record(tx, rules, SeatResigned(seat, replaced_by), actor, after), after


def outcome(ctx: Context, game_id: str, seat: int) -> str | None:
    """What resigning would do for `seat` now ("bot" or "end"), for the question
    that asks whether to; None when it cannot resign (the game is over, or a bot
    plays the seat)."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
        if row.status != "playing" or not 1 <= seat <= len(seats) or is_bot(seats[seat - 1]):
            return None
        rules = get(row.game)
        state = ctx.state(conn, rules, row)
    people = sum(1 for s in seats if s.seat != seat and not is_bot(s))
    return str(rules.on_resign(state, seat, people))


def resigned_seat(ctx: Context, game_id: str, token: str | None) -> int | None:
    """The seat whose person resigned with this link (it may still watch the
    game); None for any other link."""
    if not token:
        return None
    digest = token_hash(token)
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        seats = {s.seat: s for s in rows.seats(conn, game_id)}
        for event in log.of_kinds(conn, game_id, (SeatResigned,)):
            typed = event.event
            assert isinstance(typed, SeatResigned)
            held = seats.get(typed.seat)
            if held is not None and held.token_sha256 == digest and is_bot(held):
                return typed.seat
    return None
