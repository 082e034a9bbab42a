"""The notification policy: who is told what, and when. Each command calls the one
function here for what it did; this module writes the notices as outbox rows
(channel-neutral facts: a kind of `Kind`, the game, the seat, a few facts), as a
seat's person wants them per topic, turns, rounds and the rest (every one, held for
the daily digest, or none but those that always go). A round's scores go in the
next turn mail of whoever gets turn mails, and on their own only to the others.
Where a seat is reached — today its e-mail address — is decided here and nowhere
else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbem import i18n
from pbem.events import (
    GameCreated,
    Holder,
    LanguageChosen,
    Player,
    SeatReplaced,
    mail_choices,
    parse_timestamp,
    timestamp,
)
from pbem.games import Rules
from pbem.store import log

from . import push, rows
from .errors import SeatLink
from .notices import ALWAYS, Kind
from .rows import Record
from .unit import Tx, is_bot


def address_of(seat: Record) -> str | None:
    """Where a seat's person is told things: their e-mail address (None: nowhere,
    and never for a bot)."""
    if is_bot(seat):
        return None
    address: str | None = seat.email
    return address or None


# -- what each command tells ----------------------------------------------------------


def game_started(
    tx: Tx, links: list[SeatLink], first: list[int], seated: int | None = None
) -> None:
    """Every person is invited with their link, but the creator at `seated`, who is
    taken to their seat at once; the people the game waits on first (`first`: the
    first to move, or every seat of a first phase played at once) are told so (in
    their invitation, when they get one: it is their first turn mail too; not at all
    the seated creator, who is looking at the turn)."""
    for link in links:
        if link.token and link.email and link.seat != seated:
            notice(tx, 1, Kind.INVITATION, link.seat, link.email, {}, language=link.language)
    for seat in first:
        mover = links[seat - 1]
        if seat != seated and mover.email and not _invited_to_move(tx, 1, seat):
            notice(tx, 1, Kind.YOUR_TURN, seat, mover.email, {}, language=mover.language)


def moved(
    tx: Tx,
    rules: Rules,
    seats: list[Record],
    seq: int,
    before: Any,
    after: Any,
    resolved: bool = False,
) -> None:
    """After a move (and what the game `resolved` by itself after it): game over to
    everyone (and to the people who once held a seat), or the round's scores when a
    round closed, and the turn to each seat the game now waits on: the seat to move
    of a sequential game; in a phase of several at once, each seat of a new phase
    (a seat's orders alone start nothing for the others)."""
    if rules.over(after):
        for seat in seats:
            to_seat(tx, seq, Kind.GAME_OVER, seat, {})
        for former in former_holders(tx, seats):
            to, language = former.pop("email"), former.pop("language")
            notice(tx, seq, Kind.GAME_OVER, None, to, former, language=language)
        return
    if rules.round(after) > rules.round(before):
        # A seat that gets its turn mails as they come reads the round's scores in
        # its next one; only the others are sent the round on its own.
        for seat in seats:
            if choice(seat, Kind.YOUR_TURN) != "every":
                to_seat(tx, seq, Kind.ROUND_SCORED, seat, {"round": rules.round(before)})
    waiting = rules.active(after)
    if rules.to_move(after) is None and not resolved:
        waiting -= rules.active(before)
    for seat in seats:
        if seat.seat in waiting:
            to_seat(tx, seq, Kind.YOUR_TURN, seat, {})


def timed_out(tx: Tx, seq: int, seat: Record, replaced: bool) -> None:
    """The seat's person is told a bot played their turn (and, when a bot now holds
    the seat for good, that too); not when that turn ended the game."""
    if _over(tx):
        return
    to_seat(tx, seq, Kind.TIMED_OUT, seat, {"replaced": True} if replaced else {})


def seat_handed(
    tx: Tx, seq: int, seat: int, email: str | None, invited: bool, language: str = "en"
) -> None:
    """A person given a seat is invited with their new link, in `language`."""
    if invited and email:
        notice(tx, seq, Kind.INVITATION, seat, email, {}, language=language)


def turn_handed(tx: Tx, seq: int, held: Record) -> None:
    """A seat handed over while it is to move: its new holder is told now, as at
    any turn (in their invitation, when they get one)."""
    if not _invited_to_move(tx, seq, held.seat):
        to_seat(tx, seq, Kind.YOUR_TURN, held, {})


def _invited_to_move(tx: Tx, seq: int, seat: int) -> bool:
    """Whether this command invites the seat's person at `seq`: their invitation
    then says it is their turn (it is their turn mail), and no other is written."""
    for mail in tx.mails:
        if (mail["kind"], mail["seat"], mail["seq"]) == (Kind.INVITATION.value, seat, seq):
            mail["payload"] = {**mail["payload"], "turn": True}
            return True
    return False


def _over(tx: Tx) -> bool:
    """Whether the game has ended (in this transaction or before): then nothing but
    its game-over notice is written."""
    found = rows.game(tx.conn, tx.game_id)
    return found is not None and found.status != "playing"


def vacation_taken(tx: Tx, seq: int, seats: list[Record], who: int, until: str) -> None:
    """The other players are told whose clock stops until when."""
    if _over(tx):
        return
    for other in seats:
        if other.seat != who:
            to_seat(tx, seq, Kind.VACATION, other, {"who": who, "until": until})


def reminder(tx: Tx, seq: int, seat: Record, hours: float) -> None:
    """The seat to move is reminded `hours` before its deadline."""
    if _over(tx):
        return
    to_seat(tx, seq, Kind.REMINDER, seat, {"hours": hours})


def undo_requested(tx: Tx, seq: int, seats: list[Record], asks: list[int], asker: int) -> None:
    """Everyone whose agreement an undo needs is asked."""
    if _over(tx):
        return
    for other in seats:
        if other.seat in asks:
            to_seat(tx, seq, Kind.UNDO_REQUEST, other, {"asked_by": asker})


def undo_lapsed(tx: Tx, seq: int, seats: list[Record], asker: int, reason: str) -> None:
    """The asker and everyone else are told the request was closed, and why (not
    once the game is over: its game-over notice says all)."""
    if _over(tx):
        return
    for seat in seats:
        to_seat(tx, seq, Kind.UNDO_LAPSED, seat, {"asked_by": asker, "reason": reason})


def undo_done(tx: Tx, seq: int, seats: list[Record], to_move: int | None) -> None:
    """After an undo, the seat to move is told it is their turn again."""
    if to_move is not None:
        to_seat(tx, seq, Kind.YOUR_TURN, seats[to_move - 1], {"after_undo": True})


CHAT_GATHERS = timedelta(minutes=3)  # a chat mail waits this long for more lines


def table_talk(
    tx: Tx, seq: int, seats: list[Record], speaker: int, to: tuple[int, ...] | None = None
) -> None:
    """Every other person at the table (of a private line, each seat in `to`) is
    told of a chat line, as their preference has it, in one mail per few minutes:
    the first line waits CHAT_GATHERS for more, and lines said meanwhile ride in
    that mail (its row starts at the first line it carries). Bots are told
    nothing, and no one once the game is over (the lines are on the page)."""
    if _over(tx):
        return
    due = timestamp(parse_timestamp(tx.time()) + CHAT_GATHERS)
    for seat in seats:
        if seat.seat == speaker or (to is not None and seat.seat not in to):
            continue
        push.also(tx, seq, Kind.CHAT, seat, {})
        address, chosen = address_of(seat), choice(seat, Kind.CHAT)
        if address is None or chosen not in ("every", "digest"):
            continue
        waiting = tx.conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.game_id == tx.game_id,
                rows.OUTBOX.c.seat == seat.seat,
                rows.OUTBOX.c.kind == Kind.CHAT.value,
                rows.OUTBOX.c.status.in_(("pending", "held")),
                rows.OUTBOX.c.attempts == 0,
            )
        ).first()
        if waiting is not None:
            continue
        payload = {"holder": seat.token_sha256}
        row = rows.new_mail(
            tx.game_id,
            seq,
            Kind.CHAT,
            seat.seat,
            address,
            payload,
            tx.time(),
            language=seat.language,
        )
        status = "pending" if chosen == "every" else "held"
        # written here, not in tx.mails: those go to a worker at once; this one
        # waits for the sweep to find it due
        rows.add_mails(tx.conn, [{**row, "status": status, "next_attempt_at": due}])


# -- writing the rows -----------------------------------------------------------------


def notice(
    tx: Tx,
    seq: int,
    kind: Kind,
    seat: int | None,
    to: str,
    payload: dict[str, Any],
    status: str = "pending",
    *,
    language: str = "en",
) -> None:
    """An outbox row in `language`, recording the seat's holder of now (its token's
    hash), so that a link in it only ever goes to the holder it was written for."""
    if seat is not None and "holder" not in payload:
        payload = {**payload, "holder": rows.holder(tx.conn, tx.game_id, seat)}
    row = rows.new_mail(tx.game_id, seq, kind, seat, to, payload, tx.time(), language=language)
    tx.mails.append({**row, "status": status})


# The topic of the seat's mail preference each kind of optional notice falls under.
TOPICS = {Kind.YOUR_TURN: "turn", Kind.REMINDER: "turn", Kind.ROUND_SCORED: "round"}


def choice(seat: Record, kind: Kind) -> str:
    """What the seat's person chose for notices of `kind`: every one, a digest, none."""
    return mail_choices(seat.mail or "every")[TOPICS.get(kind, "other")]


def to_seat(tx: Tx, seq: int, kind: Kind, seat: Record, payload: dict[str, Any]) -> None:
    """A notice to a seat's person, as their preference for its topic has it: each
    one, held for the daily digest, or none but those that always go."""
    push.also(tx, seq, kind, seat, payload)  # and to the person's devices, by Web Push
    address = address_of(seat)
    if address is None:
        return
    payload = {**payload, "holder": seat.token_sha256}
    chosen = choice(seat, kind)
    if kind in ALWAYS or chosen == "every":
        notice(tx, seq, kind, seat.seat, address, payload, language=seat.language)
    elif chosen == "digest":
        notice(tx, seq, kind, seat.seat, address, payload, "held", language=seat.language)


def former_holders(tx: Tx, seats: list[Record]) -> list[dict[str, Any]]:
    """The people who held a seat of this game and were replaced (by a bot or by
    another person), once each, leaving out anyone who holds a seat now: the
    seat, their name and address, the holder they were (their token's hash) and
    the language their mails were in when they last held it."""
    if not seats:
        return []
    now = {s.email.lower() for s in seats if s.email and not is_bot(s)}
    current = {s.seat: None if is_bot(s) else s.token_sha256 for s in seats}
    held: list[tuple[int, Player | Holder]] = []
    holding: dict[int, str | None] = {}  # seat -> its holder's token hash, as the log goes
    speaks: dict[int, str] = {}  # seat -> its language, as the log goes
    language: dict[str, str] = {}  # a holder's token hash -> the language they read
    kinds = (GameCreated, SeatReplaced, LanguageChosen)
    for envelope in log.of_kinds(tx.conn, tx.game_id, kinds):
        event = envelope.event
        if isinstance(event, GameCreated):
            held += [(p.seat, p) for p in event.players if p.controller == "human"]
            holding = {p.seat: p.token_sha256 for p in event.players if p.controller == "human"}
        elif isinstance(event, SeatReplaced):
            holding[event.seat] = None if event.holder is None else event.holder.token_sha256
            if event.holder is not None:
                held.append((event.seat, event.holder))
                # a new holder reads the seat's language until a choice says otherwise
                # (none is recorded when theirs is the one the seat had)
                language[event.holder.token_sha256] = speaks.get(event.seat, i18n.DEFAULT)
        elif isinstance(event, LanguageChosen):
            speaks[event.seat] = event.language
            holder = holding.get(event.seat)
            if holder is not None:
                language[holder] = event.language
    former: dict[str, dict[str, Any]] = {}
    for seat, p in held:
        email = (p.email or "").lower()
        if email and email not in now and p.token_sha256 != current.get(seat):
            former.setdefault(
                email,
                {
                    "seat": seat,
                    "name": p.name,
                    "email": p.email,
                    "holder": p.token_sha256,
                    "language": language.get(p.token_sha256, i18n.DEFAULT),
                },
            )
    return list(former.values())
