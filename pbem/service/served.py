"""Turns the server plays for a seat: the game's timeout move for a seat whose
time ran out, a bot seat's move; each only while the game still waits on the seat."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from pbem import metrics
from pbem.events import SeatReplaced, timestamp
from pbem.games import Rules, get, plugin

from . import policy, rows
from .errors import Accepted, BadRequest
from .moves import check_expected, move
from .rows import Record
from .unit import BOT, Context, is_bot


def time_out(
    ctx: Context, game_id: str, seat: int, expected_seq: int, actor: str = "system"
) -> Accepted:
    """The seat to move ran out of time at `expected_seq`: the game's timeout bot
    plays the turn (see `Service.time_out`)."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        rules = get(row.game)
        before = ctx.state(tx.conn, rules, row)
        waited_on(ctx, tx.conn, rules, row, before, seat, expected_seq)
        if row.turn is None and not (row.deadline_at and row.deadline_at <= timestamp(ctx.clock())):
            # several at once: the seq moves on with the others' orders, the phase's
            # deadline does not
            raise BadRequest(f"seat {seat}'s deadline has not passed")
        seats = rows.seats(tx.conn, game_id)
        bot = plugin(row.game).timeout_bot
        chosen = rules.bot(bot, f"{game_id}/{row.head_seq}")(before, seat)
        policy_name = row.options["timeout_policy"]
        accepted, after = move(
            ctx,
            tx,
            rules,
            seats,
            seat,
            chosen,
            before,
            actor=actor,
            timeout_policy=policy_name,
        )
        timed_out = seats[seat - 1]
        replaced = (
            policy_name == "replace" and timed_out.timeouts + 1 >= row.options["replace_after"]
        )
        policy.timed_out(tx, accepted.seq, timed_out, replaced)
        if replaced:
            ctx.record(tx, rules, SeatReplaced(seat, f"{BOT}{bot}"), actor, after)
    metrics.accepted(row.game, "timeout")
    return accepted


def play_bot(ctx: Context, game_id: str, seat: int, expected_seq: int) -> Accepted:
    """A bot seat's turn, as its bot chooses (the same choice for the same seq)."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        rules = get(row.game)
        before = ctx.state(tx.conn, rules, row)
        waited_on(ctx, tx.conn, rules, row, before, seat, expected_seq)
        seats = rows.seats(tx.conn, game_id)
        if not is_bot(seats[seat - 1]):
            raise BadRequest(f"seat {seat} is not a bot to move")
        controller = seats[seat - 1].controller
        chosen = rules.bot(controller.removeprefix(BOT), f"{game_id}/{row.head_seq}")(before, seat)
        accepted, _ = move(ctx, tx, rules, seats, seat, chosen, before, actor=controller)
    metrics.accepted(row.game, "bot")
    return accepted


def play_bots(ctx: Context, game_id: str) -> list[Accepted]:
    """Play bot seats' turns until a person is to move or the game has ended."""
    played: list[Accepted] = []
    while True:
        with ctx.reading() as conn:
            row = ctx.row(conn, game_id)
            seats = rows.seats(conn, game_id)
        bots = [s.seat for s in seats if s.waiting and is_bot(s)]
        if row.status != "playing" or not bots:
            return played
        played.append(play_bot(ctx, game_id, bots[0], row.head_seq))


def waited_on(
    ctx: Context,
    conn: Connection,
    rules: Rules,
    row: Record,
    state: Any,
    seat: int,
    expected: int,
) -> None:
    """A turn played for `seat` by the server (its timeout, its bot) stands only while
    the game waits on the seat. One seat at a time: the turn it was asked at (the
    game is still at `expected`). Several at once: the seat's part of the phase, which
    the other seats' orders since do not change."""
    if rules.to_move(state) is not None or rules.over(state):
        check_expected(conn, rules, row, expected)
    elif not 1 <= expected <= row.head_seq:
        check_expected(conn, rules, row, expected)  # the seq the game never had
    if seat not in rules.active(state):
        raise BadRequest(f"seat {seat} is not to move")
