"""A rematch: once a game is over, a seat's person offers the same table a new game
(the same game, options and players, a new deal). Every other person at the table
accepts or declines, on the page or by replying to the offer's mail; when all have
accepted, the new game is created the way every game is (`create.create_game`, its
invitations mailing each person their own link), bots seated again as they were.
A decline, or OFFER_DAYS without every answer, closes the offer. The offer, each
acceptance, the close and the start are events of the old game."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import Connection

from pbem.events import (
    REMATCH_TYPES,
    Envelope,
    RematchAccepted,
    RematchClosed,
    RematchOffered,
    RematchStarted,
    parse_timestamp,
)
from pbem.games import get
from pbem.i18n import gettext as _
from pbem.store import log

from . import create, policy, rows
from . import options as game_options
from .create import PlayerSpec
from .errors import BadRequest
from .notices import Kind
from .rows import Record
from .tokens import seat_token
from .unit import BOT, Context, Tx, is_bot

OFFER_DAYS = 7  # an offer not accepted by everyone within this closes (lapses)


@dataclass
class Offer:
    """The latest rematch offer of a game as its events tell it."""

    seq: int
    by: int
    at: str  # when it was made (the event's created_at)
    accepted: set[int] = field(default_factory=set)
    closed: str | None = None  # "declined" or "lapsed"
    declined_by: int | None = None
    new_game_id: str | None = None

    @property
    def open(self) -> bool:
        return self.closed is None and self.new_game_id is None


def latest(conn: Connection, game_id: str) -> Offer | None:
    """The game's latest rematch offer, or None when there was none."""
    offer: Offer | None = None
    for envelope in log.of_kinds(conn, game_id, REMATCH_TYPES):
        event = envelope.event
        if isinstance(event, RematchOffered):
            offer = Offer(envelope.seq, event.seat, envelope.created_at, {event.seat})
        elif offer is None or getattr(event, "offer", None) != offer.seq:
            continue
        elif isinstance(event, RematchAccepted):
            offer.accepted.add(event.seat)
        elif isinstance(event, RematchClosed):
            offer.closed, offer.declined_by = event.reason, event.seat
        elif isinstance(event, RematchStarted):
            offer.new_game_id = event.new_game_id
    return offer


def _people(seats: list[Record]) -> set[int]:
    """The seats people hold (bots are seated again without asking)."""
    return {s.seat for s in seats if not is_bot(s)}


def _lapsed(ctx: Context, offer: Offer) -> bool:
    return ctx.clock() - parse_timestamp(offer.at) >= timedelta(days=OFFER_DAYS)


def offer(ctx: Context, game_id: str, token: str) -> Envelope:
    """The seat of `token` offers a rematch (see `Service.offer_rematch`)."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        if row.status != "finished":
            raise BadRequest(_("a rematch can be offered once the game is over"))
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        earlier = latest(tx.conn, game_id)
        if earlier is not None and earlier.new_game_id is not None:
            raise BadRequest(_("the rematch is game %(game)s", game=earlier.new_game_id))
        if earlier is not None and earlier.open:
            if not _lapsed(ctx, earlier):
                raise BadRequest(_("a rematch is offered already"))
            ctx.record(tx, rules, RematchClosed(earlier.seq, "lapsed"), "system", state)
        event = ctx.record(tx, rules, RematchOffered(seat), f"seat:{seat}", state)
        for other in seats:
            if other.seat != seat and not is_bot(other):
                policy.to_seat(tx, event.seq, Kind.REMATCH_OFFER, other, {"by": seat})
        everyone = _people(seats) <= {seat}
    if everyone:  # no one else to ask
        _start(ctx, game_id, event.seq)
    return event


def answer(ctx: Context, game_id: str, token: str, accept: bool) -> Offer:
    """The seat of `token` accepts or declines the open rematch offer (see
    `Service.answer_rematch`); accepting twice is accepting once."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        current = latest(tx.conn, game_id)
        if current is None:
            raise BadRequest(_("no rematch is offered"))
        if current.new_game_id is not None:
            if accept:
                return current  # started already: this acceptance changes nothing
            raise BadRequest(_("the rematch is game %(game)s", game=current.new_game_id))
        if current.closed is not None:
            raise BadRequest(_("the rematch offer was closed"))
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        if _lapsed(ctx, current):
            ctx.record(tx, rules, RematchClosed(current.seq, "lapsed"), "system", state)
            current.closed = "lapsed"
            return current  # committed: the offer stays closed
        if not accept:
            declined = RematchClosed(current.seq, "declined", seat)
            ctx.record(tx, rules, declined, f"seat:{seat}", state)
            current.closed, current.declined_by = "declined", seat
            return current
        if seat not in current.accepted:
            ctx.record(tx, rules, RematchAccepted(seat, current.seq), f"seat:{seat}", state)
            current.accepted.add(seat)
        ready = _people(seats) <= current.accepted
    if ready:
        current.new_game_id = _start(ctx, game_id, current.seq)
    return current


def _start(ctx: Context, game_id: str, offer_seq: int) -> str:
    """Create the rematch of the offer at `offer_seq` (once, whoever gets here:
    the creation key is the offer's) and record it on the old game."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
        created = log.created_payload(conn, game_id)
    players = [
        PlayerSpec(s.name, bot=s.controller.removeprefix(BOT))
        if is_bot(s)
        else PlayerSpec(s.name, s.email, language=s.language)
        for s in seats
    ]
    rules = get(row.game)
    options = {k: v for k, v in row.options.items() if k in game_options.DEFAULTS}
    made = create.create_game(
        ctx,
        players,
        options,
        rules.rematch_setup(created["setup"]) or None,
        game=row.game,
        actor=f"rematch:{game_id}",
        key=f"rematch:{game_id}:{offer_seq}",
        name=row.name,  # the table's own name, if it gave one (else its players')
    )
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        current = latest(tx.conn, game_id)
        if current is not None and current.seq == offer_seq and current.new_game_id is None:
            _record_start(ctx, tx, row, offer_seq, made.game_id)
    return made.game_id


def _record_start(ctx: Context, tx: Tx, row: Record, offer_seq: int, new_game_id: str) -> None:
    rules = get(row.game)
    state = ctx.state(tx.conn, rules, row)
    ctx.record(tx, rules, RematchStarted(offer_seq, new_game_id), "system", state)


def status(ctx: Context, game_id: str, seat: int | None) -> dict[str, object] | None:
    """What the game's page shows of its rematch for `seat` (None: a spectator):
    the latest offer (open, closed or started), who offered it and who accepted,
    whether the viewer has, and the viewer's own link into the new game."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if row.status != "finished":
            return None
        current = latest(conn, game_id)
        seats = rows.seats(conn, game_id)
        link = None
        seat = seat if seat is not None and 1 <= seat <= len(seats) else None
        if current is not None and current.new_game_id and seat is not None:
            new_seats = rows.seats(conn, current.new_game_id)
            mine = next((s for s in new_seats if s.seat == seat and not is_bot(s)), None)
            held = seats[seat - 1].email
            # only while the new seat is still this person's (not handed to another)
            if mine is not None and held and (mine.email or "").lower() == held.lower():
                token = seat_token(ctx.key, current.new_game_id, seat, mine.token_nonce)
                link = f"/g/{current.new_game_id}/{token}"
    if current is not None and current.open and _lapsed(ctx, current):
        current.closed = "lapsed"  # recorded at the next answer or offer
    people = _people(seats)
    return {
        "offer": current,
        "waiting": sorted(people - current.accepted) if current is not None else [],
        "may_offer": seat in people and (current is None or current.closed is not None),
        "may_answer": (
            current is not None and current.open and seat in people and seat not in current.accepted
        ),
        "link": link,
    }
