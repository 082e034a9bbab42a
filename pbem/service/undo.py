"""Taking moves back: the plan of an undo (which moves, who must agree), asking,
answering, the undo itself, and a request's lapse (unanswered too long, or the game
moved on). Never past hidden information without every other person's agreement."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection

from pbem.events import (
    TALK,
    ActionTaken,
    Envelope,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    moves_in_force,
    parse_timestamp,
)
from pbem.games import Rules, Sequential, get, plugin
from pbem.i18n import gettext as _
from pbem.store import log, states

from . import history, policy, rows
from .errors import BadRequest, Happened
from .rows import Record
from .unit import Context, Tx, is_bot
from .veiled import shows_hidden

UNDO_WAIT = timedelta(hours=48)  # an undo request not answered by then lapses


@dataclass(frozen=True)
class UndoPlan:
    """What "take back my last move" would do for a seat: the moves taken back
    (the seat's last move and every move after it), and whether it happens at once
    or waits for the people in `asks` to agree."""

    seat: int
    back_to: int
    moves: list[Happened]
    alone: bool
    asks: list[int]


def undo(ctx: Context, game_id: str, token: str) -> Envelope:
    """Take back the seat's last move and every move after it (see `Service.undo`)."""
    lapse_overdue(ctx, game_id)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        rules = get(row.game)
        plan, restored = _plan(tx.conn, rules, row, seats, seat)
        if row.undo_request_seq is not None:
            raise BadRequest(_("an undo request is already waiting for answers"))
        if plan.alone:
            done = UndoDone(plan.back_to, seat, ())
            return _done(ctx, tx, rules, seats, done, f"seat:{seat}", restored)
        state = ctx.state(tx.conn, rules, row)
        asked = UndoRequested(seat, plan.back_to)
        event = ctx.record(tx, rules, asked, f"seat:{seat}", state)
        policy.undo_requested(tx, event.seq, seats, plan.asks, seat)
        return event


def undo_plan(ctx: Context, game_id: str, seat: int) -> UndoPlan:
    """What an undo by `seat` would take back now, and who would have to agree;
    BadRequest with the reason when it cannot be done (for the confirm step)."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
        plan, _ = _plan(conn, get(row.game), row, seats, seat)
        return plan


def _plan(
    conn: Connection, rules: Rules, row: Record, seats: list[Record], seat: int
) -> tuple[UndoPlan, Any]:
    """The plan of an undo by `seat`, and the state it goes back to."""
    if row.status != "playing":
        raise BadRequest(_("the game is over: no move can be taken back"))
    if not isinstance(rules, Sequential):
        # sealed orders are replaced, not taken back, and a resolved phase stays
        raise BadRequest(_("in this game orders are changed until the phase ends, not undone"))
    moves = moves_in_force(log.events(conn, row.id, but=TALK))  # talk moves nothing
    own = [m for m in moves if isinstance(m.event, ActionTaken) and m.event.seat == seat]
    if not own:
        raise BadRequest(_("you have no move to take back"))
    back_to = own[-1].seq - 1
    restored = state = states.state_at(conn, rules, row.id, back_to)
    taken, revealed = [], False
    who = history.Who.of(seats, seat)
    viewers = [None, *(s.seat for s in seats)]
    for move in (m for m in moves if m.seq > back_to):
        after = rules.perform(state, rules.parse(move.payload["action"]))
        # every step counts: a later move (a bot's too) may have revealed something
        revealed = revealed or shows_hidden(rules, state, after, viewers)
        text = history.describe(rules, move, state, after, who)
        seat_of = move.payload["seat"]
        taken.append(Happened(move.seq, move.event, seat_of, text, rules.round(state)))
        state = after
    people = [s.seat for s in seats if s.seat != seat and not is_bot(s)]
    if revealed and not people:
        revealing = plugin(row.game).revealing
        if revealing:
            raise BadRequest(
                _(
                    "taking it back would hide again what was shown since (%(revealing)s):"
                    " only the other players could agree to that, and a bot never agrees",
                    revealing=_(revealing),
                )
            )
        raise BadRequest(
            _(
                "taking it back would hide again what was shown since:"
                " only the other players could agree to that, and a bot never agrees"
            )
        )
    alone = not revealed and (len(taken) == 1 or not people)
    return UndoPlan(seat, back_to, taken, alone, [] if alone else people), restored


def taken_back(
    conn: Connection, rules: Rules, game_id: str, request: UndoRequested, seq: int
) -> tuple[str, int] | None:
    """What the undo request stored at `seq` takes back, in the game's words (its
    `narrate`, in the language of the moment): the asker's own move, and how many
    moves after it go with it; None when there is no such move to tell."""
    moves = moves_in_force(log.events(conn, game_id, upto=seq - 1, but=TALK))
    later = [m for m in moves if m.seq > request.back_to]
    if not later or later[0].payload.get("seat") != request.seat:
        return None
    before = states.state_at(conn, rules, game_id, request.back_to)
    action = rules.parse(later[0].payload["action"])
    return rules.narrate(before, action, rules.perform(before, action), request.seat), len(
        later
    ) - 1


def answer(ctx: Context, game_id: str, token: str, agree: bool) -> Envelope:
    """Agree to or refuse the waiting undo request (see `Service.answer_undo`)."""
    if lapse_overdue(ctx, game_id):
        raise BadRequest(
            _(
                "the undo request lapsed: it was not answered within %(hours)s hours",
                hours=format(UNDO_WAIT.total_seconds() / 3600, "g"),
            )
        )
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        rules = get(row.game)
        if row.status != "playing":
            raise BadRequest(_("the game is over: no move can be taken back"))
        if row.undo_request_seq is None:
            raise BadRequest(_("no undo request is waiting for an answer"))
        since = log.events(tx.conn, game_id, after=row.undo_request_seq - 1, but=TALK)
        request = since[0].event
        if not isinstance(request, UndoRequested):
            raise ValueError(f"game {game_id}: seq {since[0].seq} is not an undo request")
        answered = {e.event.seat for e in since if isinstance(e.event, UndoAnswered)}
        if seat == request.seat:
            raise BadRequest(_("you asked for this undo; the others answer it"))
        if seat in answered:
            raise BadRequest(_("you have already answered this undo request"))
        state = ctx.state(tx.conn, rules, row)
        answer = UndoAnswered(seat, row.undo_request_seq, bool(agree))
        event = ctx.record(tx, rules, answer, f"seat:{seat}", state)
        people = {s.seat for s in seats if s.seat != request.seat and not is_bot(s)}
        if agree and people <= answered | {seat}:
            restored = states.state_at(tx.conn, rules, game_id, request.back_to)
            done = UndoDone(request.back_to, request.seat, tuple(sorted(people)))
            return _done(ctx, tx, rules, seats, done, f"seat:{seat}", restored)
        return event


def lapse_overdue(ctx: Context, game_id: str) -> bool:
    """Close the game's undo request if it has waited longer than UNDO_WAIT
    (UndoLapsed, and both sides are told). Says whether it did."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        if row.undo_request_seq is None:
            return False
        seq = row.undo_request_seq
        request = log.events(tx.conn, game_id, after=seq - 1, upto=seq)[0]
        if parse_timestamp(request.created_at) + UNDO_WAIT > ctx.clock():
            return False
        rules = get(row.game)
        seats = rows.seats(tx.conn, game_id)
        state = ctx.state(tx.conn, rules, row)
        hours = f"{UNDO_WAIT.total_seconds() / 3600:g}"
        lapse(ctx, tx, rules, seats, state, f"it was not answered within {hours} hours")
        return True


def requests_waiting(ctx: Context) -> list[str]:
    """The games with an undo request waiting."""
    with ctx.reading() as conn:
        return [g.id for g in rows.games(conn) if g.undo_request_seq is not None]


def lapse(
    ctx: Context, tx: Tx, rules: Rules, seats: list[Record], state: Any, reason: str
) -> Envelope:
    """UndoLapsed for the waiting request, and everyone told that it was closed
    and why."""
    waiting = tx.before.undo_request_seq
    if waiting is None:
        raise ValueError(f"game {tx.game_id} has no undo request waiting")
    request = log.events(tx.conn, tx.game_id, after=waiting - 1, upto=waiting)[0]
    asker = request.payload["seat"]
    lapsed = UndoLapsed(asker, request.seq, reason)
    event = ctx.record(tx, rules, lapsed, "system", state)
    policy.undo_lapsed(tx, event.seq, seats, asker, reason)
    return event


def _done(
    ctx: Context,
    tx: Tx,
    rules: Rules,
    seats: list[Record],
    done: UndoDone,
    actor: str,
    state: Any,
) -> Envelope:
    event = ctx.record(tx, rules, done, actor, state)
    policy.undo_done(tx, event.seq, seats, rules.to_move(state))
    return event
