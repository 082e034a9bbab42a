"""A seat's own business: handing it to a bot or another person, its person's mail
preference and vacation, and the reminder before its deadline."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.exc import IntegrityError

from pbem import i18n
from pbem.events import (
    MAIL_CHOICES,
    MAIL_TOPICS,
    Envelope,
    Holder,
    LanguageChosen,
    MailPreferenceChanged,
    SeatReplaced,
    VacationStarted,
    mail_choices,
    timestamp,
)
from pbem.games import get, plugin
from pbem.i18n import gettext as _
from pbem.i18n import ngettext
from pbem.store import log

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
    language: str | None = None,
    actor: str = "admin",
) -> SeatLink:
    """Hand a seat to a bot (the game's first bot unless `bot` names another) or to
    a person (see `Service.replace_seat`), who reads mails in `language` (English
    unless given)."""
    from . import visible  # ICU: loaded at the first text to check

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
            spec = PlayerSpec(name or seats[seat - 1].name, email, language=language)
            spec = checked_player(spec, row.game)
            if spec.name != seats[seat - 1].name:  # a new name must not pass for another's
                visible.unlike(spec.name, {s.seat: s.name for s in seats if s.seat != seat})
            nonce = new_nonce()
            token = seat_token(ctx.key, game_id, seat, nonce)
            holder = Holder(spec.name, spec.email, token_hash(token), nonce)
            replaced = SeatReplaced(seat, "human", holder)
        else:
            raise BadRequest('a seat is replaced "by" a bot or a human')
        state = ctx.state(tx.conn, rules, row)
        event = ctx.record(tx, rules, replaced, actor, state)
        wanted = spec.language or i18n.DEFAULT
        if token is not None and wanted != seats[seat - 1].language:
            # the new person's language, not the one who held the seat before
            event = ctx.record(tx, rules, LanguageChosen(seat, wanted), actor, state)
        invited = token is not None
        policy.seat_handed(tx, event.seq, seat, spec.email, invited, language=wanted)
        held = rows.seats(tx.conn, game_id)[seat - 1]
        if row.status == "playing" and held.waiting:
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


def set_language(ctx: Context, game_id: str, token: str, language: str) -> Envelope:
    """The language the seat's person reads their mails in from now on."""
    if not isinstance(language, str) or language not in i18n.LANGUAGES:
        raise BadRequest(_("language is one of %(languages)s", languages=", ".join(i18n.LANGUAGES)))
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seat = ctx.seat_for(tx.conn, rows.seats(tx.conn, game_id), token).seat
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        return ctx.record(tx, rules, LanguageChosen(seat, language), f"seat:{seat}", state)


def first_visit(ctx: Context, game_id: str, token: str, language: str) -> bool:
    """The seat's mails take `language` (the browser's) at its person's first visit,
    when nobody chose a language for the seat at creation nor since; whether they
    did. Anything else, an unknown language included, leaves the seat as it is."""
    if language not in i18n.LANGUAGES:
        return False
    with ctx.reading() as conn:
        created = log.created_payload(conn, game_id)
    if not created.get("languages_open"):
        return False  # the usual case, read without a write transaction
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seat = ctx.seat_for(tx.conn, rows.seats(tx.conn, game_id), token).seat
        # the creator's page's language, recorded with the game, is no choice
        # of the person's: a choice on their seat's page (or this) is
        chosen = log.of_kinds(tx.conn, game_id, (LanguageChosen,))
        theirs = [e for e in chosen if e.actor == f"seat:{seat}"]
        if seat not in created["languages_open"] or theirs:
            return False
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        ctx.record(tx, rules, LanguageChosen(seat, language), f"seat:{seat}", state)
        return True


def _mail_choices(mail: str) -> dict[str, str]:
    """The per-topic choice `mail` says; BadRequest saying what is allowed otherwise."""
    words = ", ".join(MAIL_PREFERENCES)
    if "=" not in mail:
        if mail not in MAIL_PREFERENCES:
            raise BadRequest(_("mail is one of %(choices)s", choices=words))
        return mail_choices(mail)
    said: dict[str, str] = {}
    for part in mail.split(","):
        topic, _sep, choice = part.partition("=")
        if topic not in MAIL_TOPICS or topic in said or choice not in MAIL_PREFERENCES:
            raise BadRequest(
                _(
                    "mail is one of %(choices)s for each of %(topics)s, once each",
                    choices=words,
                    topics=", ".join(MAIL_TOPICS),
                )
            )
        said[topic] = choice
    if len(said) != len(MAIL_TOPICS):
        raise BadRequest(
            _("mail names a choice for each of %(topics)s", topics=", ".join(MAIL_TOPICS))
        )
    return said


def take_vacation(ctx: Context, game_id: str, token: str, days: int) -> Envelope:
    """Stop the seat's clock for `days` days from now (within the game's
    allowance); the other players are told."""
    longest = game_options.MAX_VACATION_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= longest:
        raise BadRequest(
            _(
                "a vacation lasts a whole number of days, at least 1 and at most %(most)s",
                most=longest,
            )
        )
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token)
        allowance = min(row.options["vacation_days"], longest)  # stored before the bound
        left = max(allowance - seat.vacation_days_used, 0)
        if days > left:
            raise BadRequest(
                ngettext(
                    "you have %(num)d vacation day left",
                    "you have %(num)d vacation days left",
                    left,
                )
            )
        if row.status != "playing":
            raise BadRequest(_("the game is over"))
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        until = timestamp(ctx.clock() + timedelta(days=days))
        started = VacationStarted(seat.seat, days, until)
        event = ctx.record(tx, rules, started, f"seat:{seat.seat}", state)
        policy.vacation_taken(tx, event.seq, seats, seat.seat, until)
        return event


def remind(ctx: Context, game_id: str, seq: int, hours: float, seat: int | None = None) -> bool:
    """A reminder to the seat to move at `seq` (or to `seat`, one of several the
    game waits on), `hours` before its deadline: at most one per turn (phase) and
    hours (see `Service.remind`)."""
    try:
        with ctx.transaction() as tx:
            row = ctx.open(tx, game_id)
            # One reminder per turn and hours: keyed on the event the turn began
            # with, whatever left the turn as it was since (a chat line, ...).
            began = log.turn_began(tx.conn, game_id, phase=row.turn is None)
            waited = [s for s in rows.seats(tx.conn, game_id) if s.waiting]
            chosen = [s for s in waited if seat in (None, s.seat)]
            if not began <= seq <= row.head_seq or len(chosen) != 1 or row.status != "playing":
                return False
            policy.reminder(tx, began, chosen[0], hours)
            tx.mails = [m for m in tx.mails if not rows.mail_exists(tx.conn, m)]
            return bool(tx.mails)
    except IntegrityError:
        return False  # another scheduler queued it first
