"""Moves: a seat's move (checked by the rules, idempotent per seat and key), and what
every move does after it is stored (the game's own resolution when its moment came,
the notices it calls for, a bot to move next). The turns the server plays for a seat
(timeouts, bots) are in `served`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from pbem import metrics
from pbem.events import (
    MOVES,
    ActionTaken,
    Envelope,
    Event,
    Resolved,
    TurnTimedOut,
)
from pbem.events.kinds import TALK
from pbem.games import IllegalAction, NotationError, Rules, Sequential, get
from pbem.i18n import gettext as _
from pbem.store import log, states

from . import history, policy, rows, undo
from .errors import Accepted, BadRequest, Forbidden, Illegal, NotFound, ServiceError, Stale
from .queries import happened
from .rows import Record
from .sealed import sealed_moves
from .unit import Context, Tx, is_bot, sha256

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
            check_expected(tx.conn, rules, row, expected_seq, seat)
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


def check_expected(
    conn: Connection, rules: Rules, row: Record, expected: int | None, seat: int | None = None
) -> None:
    """Nothing when `expected` is the head (or not given), or only chat lines and
    private choices came after it (they change nothing a move was chosen on, and a
    seat must not learn of another's private choice by its move being refused), or
    for `seat`, only other seats' sealed moves of the same phase (they show nothing
    a move could be chosen on); else Stale with what happened since, or BadRequest
    for a seq the game never had."""
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
    later = log.events(conn, row.id, after=expected, but=UNSEEN)  # not talk, private choices
    if not later or _only_sealed(conn, rules, row, later, seat):
        return
    raise stale(conn, rules, row, expected)


def _only_sealed(
    conn: Connection, rules: Rules, row: Record, later: list[Envelope], seat: int | None
) -> bool:
    """Whether every event of `later` is another seat's move still sealed."""
    if seat is None or isinstance(rules, Sequential):
        return False
    if any(e.type not in MOVES or e.payload.get("seat") in (None, seat) for e in later):
        return False  # a resolution, an undo, the seat's own move: the phase moved on
    sealed = sealed_moves(conn, rules, row.id, log.events(conn, row.id, but=TALK))
    return all(e.seq in sealed for e in later)


def stale(conn: Connection, rules: Rules, row: Record, expected: int) -> Stale:
    since = happened(conn, rules, row.id, expected, row.head_seq)
    return Stale(expected, row.head_seq, since)
