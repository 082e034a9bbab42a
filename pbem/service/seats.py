"""A seat's own business: handing it to a bot or another person, its person's mail
preference and vacation, and the reminder before its deadline."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.exc import IntegrityError

from pbem.games import get, plugin
from pbem.store import log
from pbem.store.events import (
    MAIL_CHOICES,
    MAIL_TOPICS,
    Envelope,
    Holder,
    MailPreferenceChanged,
    SeatReplaced,
    VacationStarted,
    mail_choices,
    timestamp,
)

from . import options as game_options
from . import policy, rows
from .create import PlayerSpec, checked_player
from .errors import BadRequest, NotFound, SeatLink
from .tokens import new_nonce, seat_token, token_hash
from .unit import BOT, Context, is_bot

MAIL_PREFERENCES = MAIL_CHOICES


def replace_seat(
    ctx: Context,
    game_id: str,
    seat: int,
    by: str,
    *,
    name: str | None = None,
    email: str | None = None,
    bot: str | None = None,
    actor: str = "admin",
) -> SeatLink:
    """Hand a seat to a bot (the game's first bot unless `bot` names another) or to
    a person (see `Service.replace_seat`)."""
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        rules = get(row.game)
        seats = rows.seats(tx.conn, game_id)
        if not 1 <= seat <= len(seats):
            raise NotFound(f"game {game_id} has no seat {seat}")
        token = None
        if by == "bot":
            chosen = plugin(row.game).bots[0] if bot is None else bot
            spec = checked_player(PlayerSpec(seats[seat - 1].name, bot=chosen), row.game)
            replaced = SeatReplaced(seat, f"{BOT}{spec.bot}")
        elif by == "human":
            spec = checked_player(PlayerSpec(name or seats[seat - 1].name, email), row.game)
            nonce = new_nonce()
            token = seat_token(ctx.key, game_id, seat, nonce)
            holder = Holder(spec.name, spec.email, token_hash(token), nonce)
            replaced = SeatReplaced(seat, "human", holder)
        else:
            raise BadRequest('a seat is replaced "by" a bot or a human')
        state = ctx.state(tx.conn, rules, row)
        event = ctx.record(tx, rules, replaced, actor, state)
        policy.seat_handed(tx, event.seq, seat, spec.email, invited=token is not None)
        if row.status == "playing" and row.turn == seat:
            held = rows.seats(tx.conn, game_id)[seat - 1]
            policy.turn_handed(tx, event.seq, held)
            if is_bot(held):
                tx.bot_turn = (seat, event.seq)
        return SeatLink(seat, spec.name, token, spec.email)


def set_mail_preference(ctx: Context, game_id: str, token: str, mail: str) -> Envelope:
    """How the seat's person wants their optional mails: one choice for all (every
    one, a daily digest, or none), or one per topic ("turn=every,round=none,other=digest")."""
    choices = _mail_choices(mail)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seat = ctx.seat_for(tx.conn, rows.seats(tx.conn, game_id), token).seat
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        changed = MailPreferenceChanged(seat, choices["other"], choices["turn"], choices["round"])
        return ctx.record(tx, rules, changed, f"seat:{seat}", state)


def _mail_choices(mail: str) -> dict[str, str]:
    """The per-topic choice `mail` says; BadRequest saying what is allowed otherwise."""
    words = ", ".join(MAIL_PREFERENCES)
    if "=" not in mail:
        if mail not in MAIL_PREFERENCES:
            raise BadRequest(f"mail is one of {words}")
        return mail_choices(mail)
    said: dict[str, str] = {}
    for part in mail.split(","):
        topic, _, choice = part.partition("=")
        if topic not in MAIL_TOPICS or topic in said or choice not in MAIL_PREFERENCES:
            raise BadRequest(
                f"mail is one of {words} for each of {', '.join(MAIL_TOPICS)}, once each"
            )
        said[topic] = choice
    if len(said) != len(MAIL_TOPICS):
        raise BadRequest(f"mail names a choice for each of {', '.join(MAIL_TOPICS)}")
    return said


def take_vacation(ctx: Context, game_id: str, token: str, days: int) -> Envelope:
    """Stop the seat's clock for `days` days from now (within the game's
    allowance); the other players are told."""
    longest = game_options.MAX_VACATION_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= longest:
        raise BadRequest(
            f"a vacation lasts a whole number of days, at least 1 and at most {longest}"
        )
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token)
        allowance = min(row.options["vacation_days"], longest)  # stored before the bound
        left = max(allowance - seat.vacation_days_used, 0)
        if days > left:
            raise BadRequest(f"you have {left} vacation day{'' if left == 1 else 's'} left")
        if row.status != "playing":
            raise BadRequest("the game is over")
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        until = timestamp(ctx.clock() + timedelta(days=days))
        started = VacationStarted(seat.seat, days, until)
        event = ctx.record(tx, rules, started, f"seat:{seat.seat}", state)
        policy.vacation_taken(tx, event.seq, seats, seat.seat, until)
        return event


def remind(ctx: Context, game_id: str, seq: int, hours: float) -> bool:
    """A reminder to the seat to move at `seq`, `hours` before its deadline: at
    most one per turn and hours (see `Service.remind`)."""
    try:
        with ctx.transaction() as tx:
            row = ctx.open(tx, game_id)
            # One reminder per turn and hours: keyed on the event the turn began
            # with, whatever left the turn as it was since (a chat line, ...).
            began = log.turn_began(tx.conn, game_id)
            if not began <= seq <= row.head_seq or row.turn is None:
                return False
            seat = rows.seats(tx.conn, game_id)[row.turn - 1]
            policy.reminder(tx, began, seat, hours)
            tx.mails = [m for m in tx.mails if not rows.mail_exists(tx.conn, m)]
            return bool(tx.mails)
    except IntegrityError:
        return False  # another scheduler queued it first
