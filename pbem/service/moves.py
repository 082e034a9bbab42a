"""Moves: a seat's move (checked by the rules, idempotent per seat and key), a turn
played for a seat that ran out of time, a bot seat's turn; and what every move does
after it is stored (the notices it calls for, a bot to move next)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from pbem import metrics
from pbem.events import ActionTaken, Event, Resolved, SeatReplaced, TurnTimedOut, timestamp
from pbem.events.kinds import TALK
from pbem.games import IllegalAction, NotationError, Rules, get, plugin
from pbem.i18n import gettext as _
from pbem.store import log, states

from . import history, policy, rows, undo
from .errors import Accepted, BadRequest, Forbidden, Illegal, NotFound, ServiceError, Stale
from .queries import happened
from .rows import Record
from .unit import BOT, Context, Tx, is_bot, sha256

GAME_ACTOR = "game"  # the actor of the game's own events (Resolved)
# what may come after the seq a move was chosen at without making it stale
UNSEEN = (*TALK, *(kind.TYPE for kind in history.PRIVATE))


@dataclass
class _Seen:
    """What a submitted move was found to be, for the metrics: its game's name,
    and why the rules refused it when that is not the rule's own business."""

    game: str | None = None
    reason: str | None = None


def submit_action(
    ctx: Context,
    game_id: str,
    token: str,
    action: str | Mapping[str, Any],
    expected_seq: int | None = None,
    idempotency_key: str | None = None,
) -> Accepted:
    """Store the seat's move (see `Service.submit_action`), counted as accepted or
    refused by reason."""
    seen = _Seen()
    try:
        accepted = _submit_action(ctx, seen, game_id, token, action, expected_seq, idempotency_key)
    except ServiceError as error:
        metrics.refused(seen.game, seen.reason or refusal_reason(error))
        raise
    if not accepted.replayed:
        metrics.accepted(seen.game, "seat")
    return accepted


def refusal_reason(error: ServiceError) -> str:
    """The metrics' reason for a refused move (see pbem.metrics.REFUSALS)."""
    if isinstance(error, Stale):
        return "stale"
    if isinstance(error, Illegal):
        unreadable = isinstance(error.detail, dict) and error.detail.get("unreadable")
        return "unreadable" if unreadable else "illegal"
    if isinstance(error, Forbidden):
        return "forbidden"
    if isinstance(error, NotFound):
        return "no_game"
    return "bad_request"


def _submit_action(
    ctx: Context,
    seen: _Seen,
    game_id: str,
    token: str,
    action: str | Mapping[str, Any],
    expected_seq: int | None,
    idempotency_key: str | None,
) -> Accepted:
    idempotency_key = checked_key(idempotency_key)
    try:
        with ctx.transaction() as tx:
            row = ctx.open(tx, game_id)
            seen.game = row.game
            seats = rows.seats(tx.conn, game_id)
            seat = ctx.seat_for(tx.conn, seats, token).seat
            key = None if idempotency_key is None else seat_key(seat, idempotency_key)
            if key is not None:
                earlier = _earlier_answer(ctx, tx.conn, game_id, key)
                if earlier is not None:
                    return earlier
            rules = get(row.game)
            check_expected(tx.conn, rules, row, expected_seq)
            before = ctx.state(tx.conn, rules, row)
            try:
                checked = rules.check(before, rules.parse(action), seat)
            except NotationError as error:
                raise Illegal(str(error), {"rule": error.rule, "unreadable": True}) from None
            except IllegalAction as error:
                if rules.over(before):
                    seen.reason = "game_over"
                elif not rules.legal_actions(before, seat):
                    seen.reason = "not_your_turn"
                raise Illegal(str(error), {"rule": error.rule}) from None
            accepted, _ = move(
                ctx,
                tx,
                rules,
                seats,
                seat,
                checked,
                before,
                actor=f"seat:{seat}",
                key=key,
            )
            return accepted
    except IntegrityError:
        return _after_race(ctx, game_id, token, expected_seq, idempotency_key)


def _after_race(
    ctx: Context, game_id: str, token: str, expected_seq: int | None, idempotency_key: str | None
) -> Accepted:
    """A race the row lock cannot prevent (the first event of a key on two
    connections): the winner's answer, or Stale with what happened since."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if idempotency_key is not None:
            seat = ctx.seat_for(conn, rows.seats(conn, game_id), token).seat
            earlier = _earlier_answer(ctx, conn, game_id, seat_key(seat, idempotency_key))
            if earlier is not None:
                return earlier
        seen = expected_seq if expected_seq is not None else row.head_seq - 1
        raise stale(conn, get(row.game), row, seen) from None


def move(
    ctx: Context,
    tx: Tx,
    rules: Rules,
    seats: list[Record],
    seat: int,
    checked: Any,
    before: Any,
    *,
    actor: str,
    key: str | None = None,
    timeout_policy: str | None = None,
) -> tuple[Accepted, Any]:
    """Store a checked move and the notices it calls for; returns the answer and
    the state after it. A move closes a waiting undo request first (it lapses:
    the game moved on). With `timeout_policy` the move is the one a timeout
    played (TurnTimedOut), else the seat's own (ActionTaken)."""
    if tx.before.undo_request_seq is not None:
        undo.lapse(ctx, tx, rules, seats, before, history.MOVED_ON)  # stored in English
    after = rules.perform(before, checked)
    action = rules.to_json(checked)
    played: Event = (
        ActionTaken(seat, action)
        if timeout_policy is None
        else TurnTimedOut(seat, action, timeout_policy)
    )
    if seats:  # read in this transaction, after nothing that changes a seat
        tx.before.vacations = {s.seat: (s.vacation_from, s.vacation_until) for s in seats}
    event = ctx.record(tx, rules, played, actor, after, key)
    narration = rules.narrate(before, checked, after, seat)
    accepted = Accepted(tx.game_id, event.seq, seat, rules.format(checked), narration, event.hash)
    resolved = event
    while (due := rules.resolution(after)) is not None:  # the game's moment has come
        due = rules.check(after, due, None)
        after = rules.perform(after, due)
        resolved = ctx.record(tx, rules, Resolved(rules.to_json(due)), GAME_ACTOR, after)
    policy.moved(tx, rules, seats, resolved.seq, before, after, resolved is not event)
    tx.bot_turn = next_bot(rules, seats, after, resolved.seq) or tx.bot_turn
    return accepted, after


def next_bot(rules: Rules, seats: list[Record], state: Any, seq: int) -> tuple[int, int] | None:
    """The bot seat the game waits on next, with the seq it plays at, if any (of
    several at once, the first: its move hands the turn on to the next one)."""
    bots = sorted(s for s in rules.active(state) if seats and is_bot(seats[s - 1]))
    return (bots[0], seq) if bots else None


def earlier_answer(
    ctx: Context, game_id: str, key: str, token: str | None = None
) -> Accepted | None:
    """The answer a seat got for a move it submitted with this idempotency key, if
    any (see `Service.earlier_answer`)."""
    try:
        checked = checked_key(key)
    except BadRequest:
        return None  # no move was ever stored with it
    if checked is None:
        return None
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
        if token is not None:
            seats = [ctx.seat_for(conn, seats, token)]
        for seat in seats:
            earlier = _earlier_answer(ctx, conn, game_id, seat_key(seat.seat, checked))
            if earlier is not None:
                return earlier
        return None


def _earlier_answer(ctx: Context, conn: Connection, game_id: str, key: str) -> Accepted | None:
    """The answer to the move stored under `key` (as stored: scoped to a seat)."""
    event = log.by_idempotency_key(conn, game_id, key)
    if event is None:
        return None
    rules = get(ctx.row(conn, game_id).game)
    before = states.state_at(conn, rules, game_id, event.seq - 1)
    after = states.state_at(conn, rules, game_id, event.seq)
    action = rules.parse(event.payload["action"])
    return Accepted(
        game_id,
        event.seq,
        event.payload["seat"],
        rules.format(action),
        rules.narrate(before, action, after, event.payload["seat"]),
        event.hash,
        replayed=True,
    )


def checked_key(key: object) -> str | None:
    """An idempotency key is 1 to 200 printable characters (no NUL, no control
    characters, no line breaks), or None."""
    if key is None:
        return None
    if not isinstance(key, str) or not 1 <= len(key) <= 200 or not key.isprintable():
        raise BadRequest(
            _("an idempotency key is 1 to 200 printable characters (no control characters)")
        )
    return key


def seat_key(seat: int, key: str) -> str:
    """The key as stored: scoped to the seat (the same key from another seat is
    another key), hashed so that any printable key fits the column."""
    return f"seat{seat}:{sha256(key)}"


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


def check_expected(conn: Connection, rules: Rules, row: Record, expected: int | None) -> None:
    """Nothing when `expected` is the head (or not given), or only chat lines and
    private choices came after it (they change nothing a move was chosen on, and a
    seat must not learn of another's private choice by its move being refused);
    else Stale with what happened since, or BadRequest for a seq the game never
    had."""
    if expected is None or expected == row.head_seq:
        return
    if not 1 <= expected <= row.head_seq:
        raise BadRequest(
            _(
                "expected_seq %(expected)s: the game has seq 1 to %(head)s",
                expected=expected,
                head=row.head_seq,
            )
        )
    if not log.events(conn, row.id, after=expected, but=UNSEEN):  # talk, private choices
        return
    raise stale(conn, rules, row, expected)


def stale(conn: Connection, rules: Rules, row: Record, expected: int) -> Stale:
    since = happened(conn, rules, row.id, expected, row.head_seq)
    return Stale(expected, row.head_seq, since)
