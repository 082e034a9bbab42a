"""The game service: the only writer. Each command is one transaction that loads the
state, validates through the rules, appends the event(s), updates the read models
and writes the outbox rows for the mails that follow. Nothing is mailed here."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from pbem.config import Settings
from pbem.games import Game as Rules
from pbem.games import IllegalAction, NotationError, SetupError, for_log_format, get
from pbem.store import log, projection, states
from pbem.store.database import Database
from pbem.store.events import (
    ACTION_TAKEN,
    GAME_CREATED,
    GENESIS,
    MAIL_PREFERENCE,
    MOVES,
    SEAT_REPLACED,
    TURN_TIMED_OUT,
    UNDO_ANSWERED,
    UNDO_DONE,
    UNDO_LAPSED,
    UNDO_REQUESTED,
    VACATION,
    Envelope,
    moves_in_force,
    parse_timestamp,
    timestamp,
)
from pbem.store.projection import Before

from . import history, invitations, rows
from . import options as game_options
from .addresses import checked_address
from .errors import (
    Accepted,
    BadRequest,
    Created,
    Forbidden,
    Happened,
    Illegal,
    NotFound,
    SeatLink,
    Stale,
)
from .rows import Record
from .seeds import guessable
from .tokens import new_nonce, seat_token, token_hash

BOT = "bot:"  # prefix of a bot seat's controller, e.g. "bot:greedy"
BOTS = ("greedy", "random")
ALWAYS = ("invitation", "game_over")  # mails sent whatever a player's preference
MAIL_PREFERENCES = ("every", "digest", "none")
MAX_SEATS = 4
UNDO_WAIT = timedelta(hours=48)  # an undo request not answered by then lapses


@dataclass(frozen=True)
class PlayerSpec:
    """A seat of a new game: a person (name, email) or a bot (name, bot)."""

    name: str
    email: str | None = None
    bot: str | None = None


@dataclass
class Tx:
    """One command's transaction on one game: its connection, the head it appends
    after, the mails it calls for, and the states it leaves for the cache once (and
    only if) it commits."""

    conn: Connection
    game_id: str = ""
    head: tuple[int, str] = (0, GENESIS)
    before: Before = field(default_factory=Before)
    mails: list[dict[str, Any]] = field(default_factory=list)
    done: list[tuple[str, int, str, Any]] = field(default_factory=list)
    bot_turn: tuple[int, int] | None = None  # (seat, seq) when a bot is to move


@dataclass(frozen=True)
class Notice:
    """What a committed command leaves for the workers: mails to send, a bot to
    move. Told, after the commit, to the notifier the service was built with (the
    composition root's; the sweeps find the same work anyway)."""

    game_id: str
    mail_ids: tuple[int, ...]
    bot_turn: tuple[int, int] | None


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


def _now() -> datetime:
    return datetime.now(UTC)


def _new_game_id() -> str:
    return base64.b32encode(os.urandom(10)).decode("ascii").lower()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_bot(seat: Record) -> bool:
    controller: str = seat.controller
    return controller.startswith(BOT)


def _checked_key(key: object) -> str | None:
    """An idempotency key is 1 to 200 printable characters (no NUL, no control
    characters, no line breaks), or None."""
    if key is None:
        return None
    if not isinstance(key, str) or not 1 <= len(key) <= 200 or not key.isprintable():
        raise BadRequest(
            "an idempotency key is 1 to 200 printable characters (no control characters)"
        )
    return key


def _strings(value: Any) -> set[str]:
    """Every text in a JSON document (keys and values): what a viewer would see."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return set(map(str, value)).union(*(_strings(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value))
    return set()


def _seat_key(seat: int, key: str) -> str:
    """The key as stored: scoped to the seat (the same key from another seat is
    another key), hashed so that any printable key fits the column."""
    return f"seat{seat}:{_sha256(key)}"


class Service:
    def __init__(
        self,
        database: Database,
        settings: Settings,
        clock: Callable[[], datetime] = _now,
        cached_states: int = 256,
        notify: Callable[[Notice], None] | None = None,
    ) -> None:
        """`notify` is told each committed command's Notice (none: the sweeps find
        the work alone)."""
        self.db = database
        self.settings = settings
        self.clock = clock
        self._key = settings.signing_key()
        self._cache: OrderedDict[str, tuple[int, str, Any]] = OrderedDict()
        self._cache_size = cached_states
        self._lock = threading.Lock()
        self.notify = notify

    @contextmanager
    def _transaction(self) -> Iterator[Tx]:
        with self.db.writing() as conn:
            tx = Tx(conn)
            yield tx
            mail_ids = rows.add_mails(tx.conn, tx.mails)
        for entry in tx.done:
            self._remember(*entry)
        if self.notify is not None and (mail_ids or tx.bot_turn):
            self.notify(Notice(tx.game_id, tuple(mail_ids), tx.bot_turn))

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with self.db.reading() as conn:
            yield conn

    # -- creating games -------------------------------------------------------------

    def create_game(
        self,
        players: Sequence[PlayerSpec],
        options: Mapping[str, Any] | None = None,
        setup: Mapping[str, Any] | None = None,
        *,
        game: str = "mall",
        actor: str = "admin",
        key: str | None = None,
    ) -> Created:
        """A new game: GameCreated with each seat's token hash and the seed's
        SHA-256, and an invitation in the outbox for each person with an email.
        A `setup` given (rather than drawn from 192 random bits) is marked in the
        event (`setup_chosen`). With a `key` (a form's one-time key) creating is
        idempotent: the same key again answers with the game it made (`replayed`)."""
        if key is not None:
            if not isinstance(key, str) or not 16 <= len(key) <= 200 or not key.isprintable():
                raise BadRequest("a creation key is 16 to 200 printable characters")
            earlier = self.created_by_key(key)
            if earlier is not None:
                return earlier
        try:
            rules = get(game)
        except (KeyError, TypeError):
            raise BadRequest(f"unknown game {game!r}") from None
        if not isinstance(players, Sequence) or not 2 <= len(players) <= MAX_SEATS:
            count = len(players) if isinstance(players, Sequence) else 0
            raise BadRequest(f"setup: the game takes 2 to {MAX_SEATS} players, not {count}")
        chosen = game_options.checked(options)
        if setup is not None and not isinstance(setup, Mapping):
            raise BadRequest("setup is an object")
        setup_chosen = bool(setup)
        setup = dict(setup or {})
        setup.setdefault("seed", secrets.token_hex(24))  # 192 random bits
        specs = [self._checked_player(p) for p in players]
        try:
            state = rules.setup([p.name for p in specs], setup)
        except SetupError as error:
            raise BadRequest(f"setup: {error}") from None
        try:
            with self._transaction() as tx:
                links = self._start(
                    tx, rules, specs, chosen, setup, state, actor, setup_chosen, key
                )
        except IntegrityError:
            earlier = self.created_by_key(key) if key is not None else None
            if earlier is None:
                raise
            return earlier  # the same form, sent twice at once: the first one made it
        return Created(tx.game_id, 1, links)

    def created_by_key(self, key: str) -> Created | None:
        """The game a creation `key` made, with its seats, or None."""
        game_id = self._game_id_for(key)
        with self._reading() as conn:
            event = log.created(conn, game_id)
        if event is None or event.idempotency_key != self._creation_key(key):
            return None
        return Created(game_id, 1, self.seat_links(game_id), replayed=True)

    def _game_id_for(self, key: str) -> str:
        """The id a creation key's game gets: derived from the key with the secret
        key, so two web processes given the same form make one game (the id is the
        primary key) and nobody can choose or foresee an id."""
        digest = hmac.new(self._key, b"game:" + key.encode("utf-8"), hashlib.sha256).digest()
        return base64.b32encode(digest[:10]).decode("ascii").lower()

    @staticmethod
    def _creation_key(key: str) -> str:
        return f"create:{_sha256(key)}"

    def _start(
        self,
        tx: Tx,
        rules: Rules,
        specs: list[PlayerSpec],
        chosen: dict[str, Any],
        setup: dict[str, Any],
        state: Any,
        actor: str,
        setup_chosen: bool = False,
        key: str | None = None,
    ) -> list[SeatLink]:
        """GameCreated, its read models, and the invitations (within the limit per
        address)."""
        tx.game_id = _new_game_id() if key is None else self._game_id_for(key)
        invitations.check(tx.conn, [p.email for p in specs if p.email and not p.bot], self.clock())
        links, seats = [], []
        for seat, spec in enumerate(specs, start=1):
            nonce = new_nonce()
            token = seat_token(self._key, tx.game_id, seat, nonce)
            seats.append(
                {
                    "seat": seat,
                    "name": spec.name,
                    "email": spec.email,
                    "controller": f"{BOT}{spec.bot}" if spec.bot else "human",
                    "token_sha256": token_hash(token),
                    "token_nonce": nonce,
                }
            )
            links.append(SeatLink(seat, spec.name, None if spec.bot else token, spec.email))
        payload = {
            "game_id": tx.game_id,
            "game": rules.name,
            "content": rules.content,
            "engine_version": rules.version,
            "players": seats,
            "options": chosen,
            "setup": setup,
            "seed_sha256": _sha256(str(setup["seed"])) if "seed" in setup else None,
            "setup_chosen": setup_chosen,
        }
        stored = None if key is None else self._creation_key(key)
        head = (0, GENESIS)
        now = self._time()
        event = log.append(tx.conn, tx.game_id, head, GAME_CREATED, payload, actor, now, stored)
        self._project(tx, rules, event, state)
        first = rules.to_move(state)
        if first is not None and specs[first - 1].bot:
            tx.bot_turn = (first, 1)
        for link in links:
            if link.token and link.email:
                self._mail(tx, 1, "invitation", link.seat, link.email, {})
        if first is not None:
            mover = specs[first - 1]
            if not mover.bot and mover.email:
                self._mail(tx, 1, "your_turn", first, mover.email, {})
        return links

    def _checked_player(self, spec: PlayerSpec) -> PlayerSpec:
        for field_name in ("name", "email", "bot"):
            value = getattr(spec, field_name)
            if value is not None and not isinstance(value, str):
                raise BadRequest(f"a player's {field_name} is text")
        # no newlines, no runs of spaces, no control or format characters (C0, C1,
        # NUL, bidi overrides): a name is shown in pages, mails and terminals
        name = " ".join((spec.name or "").split())
        name = " ".join("".join(c for c in name if unicodedata.category(c)[0] != "C").split())
        if not name or len(name) > 100:
            raise BadRequest("every player needs a name of 1 to 100 characters")
        email = checked_address(spec.email) if spec.email and spec.email.strip() else None
        if spec.bot is not None and spec.bot not in BOTS:
            raise BadRequest(f"unknown bot {spec.bot!r}: bots are {', '.join(BOTS)}")
        return PlayerSpec(name, None if spec.bot else email, spec.bot)

    # -- moves ----------------------------------------------------------------------

    def submit_action(
        self,
        game_id: str,
        token: str,
        action: str | Mapping[str, Any],
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
    ) -> Accepted:
        """Store the seat's move. Refuses with Forbidden when the token opens no
        seat, Stale when `expected_seq` is not the head and Illegal when the rules
        forbid it; the same idempotency key twice from the same seat gives the first
        answer again and stores nothing (keys are the seat's own: another seat's
        key is another key)."""
        idempotency_key = _checked_key(idempotency_key)
        try:
            with self._transaction() as tx:
                row = self._open(tx, game_id)
                seats = rows.seats(tx.conn, game_id)
                seat = self._seat_for(tx.conn, seats, token).seat
                key = None if idempotency_key is None else _seat_key(seat, idempotency_key)
                if key is not None:
                    earlier = self._earlier_answer(tx.conn, game_id, key)
                    if earlier is not None:
                        return earlier
                rules = get(row.game)
                self._check_expected(tx.conn, rules, row, expected_seq)
                before = self._state(tx.conn, rules, row)
                try:
                    move = rules.check(before, rules.parse(action), seat)
                except NotationError as error:
                    raise Illegal(str(error), {"rule": error.rule, "unreadable": True}) from None
                except IllegalAction as error:
                    raise Illegal(str(error), {"rule": error.rule}) from None
                accepted, _ = self._move(
                    tx,
                    rules,
                    seats,
                    seat,
                    ACTION_TAKEN,
                    move,
                    before,
                    actor=f"seat:{seat}",
                    key=key,
                )
                return accepted
        except IntegrityError:
            # A race the row lock cannot prevent (the first event of a key on two
            # connections): the winner's answer, or what happened since.
            with self._reading() as conn:
                row = self._row(conn, game_id)
                if idempotency_key is not None:
                    seat = self._seat_for(conn, rows.seats(conn, game_id), token).seat
                    key = _seat_key(seat, idempotency_key)
                    earlier = self._earlier_answer(conn, game_id, key)
                    if earlier is not None:
                        return earlier
                seen = expected_seq if expected_seq is not None else row.head_seq - 1
                raise self._stale(conn, get(row.game), row, seen) from None

    def _move(
        self,
        tx: Tx,
        rules: Rules,
        seats: list[Record],
        seat: int,
        type: str,
        move: Any,
        before: Any,
        *,
        actor: str,
        key: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> tuple[Accepted, Any]:
        """Store a checked move and the mails it calls for; returns the answer and
        the state after it. A move closes a waiting undo request first (it lapses:
        the game moved on)."""
        if tx.before.undo_request_seq is not None:
            self._lapse_undo(tx, rules, seats, before, "the game moved on")
        after = rules.perform(before, move)
        payload = {"seat": seat, "action": rules.to_json(move), **(extra or {})}
        event = self._record(tx, rules, type, payload, actor, after, key)
        self._mails_after_move(tx, rules, seats, event.seq, before, after)
        narration = rules.narrate(before, move, after)
        accepted = Accepted(tx.game_id, event.seq, seat, rules.format(move), narration, event.hash)
        return accepted, after

    def earlier_answer(self, game_id: str, key: str, token: str | None = None) -> Accepted | None:
        """The answer the seat of `token` got for a move it submitted with this
        idempotency key, if any (a token that opens no seat is refused). Without a
        token, for callers that have already checked who is asking (the mail handler
        checks the sender), the answer any seat of the game got for the key."""
        try:
            checked = _checked_key(key)
        except BadRequest:
            return None  # no move was ever stored with it
        if checked is None:
            return None
        with self._reading() as conn:
            self._row(conn, game_id)
            seats = rows.seats(conn, game_id)
            if token is not None:
                seats = [self._seat_for(conn, seats, token)]
            for seat in seats:
                earlier = self._earlier_answer(conn, game_id, _seat_key(seat.seat, checked))
                if earlier is not None:
                    return earlier
            return None

    def _earlier_answer(self, conn: Connection, game_id: str, key: str) -> Accepted | None:
        """The answer to the move stored under `key` (as stored: scoped to a seat)."""
        event = log.by_idempotency_key(conn, game_id, key)
        if event is None:
            return None
        rules = get(self._row(conn, game_id).game)
        before = states.state_at(conn, rules, game_id, event.seq - 1)
        after = states.state_at(conn, rules, game_id, event.seq)
        move = rules.parse(event.payload["action"])
        return Accepted(
            game_id,
            event.seq,
            event.payload["seat"],
            rules.format(move),
            rules.narrate(before, move, after),
            event.hash,
            replayed=True,
        )

    def time_out(
        self, game_id: str, seat: int, expected_seq: int, actor: str = "system"
    ) -> Accepted:
        """The seat to move ran out of time at `expected_seq`: the greedy bot plays
        the turn (TurnTimedOut), and under the `replace` policy a bot takes the seat
        for good after enough timeouts. Refused (Stale) if the game has moved on."""
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            rules = get(row.game)
            self._check_expected(tx.conn, rules, row, expected_seq)
            if row.turn != seat:
                raise BadRequest(f"seat {seat} is not to move")
            seats = rows.seats(tx.conn, game_id)
            before = self._state(tx.conn, rules, row)
            move = rules.bot("greedy", f"{game_id}/{row.head_seq}")(before)
            policy = row.options["timeout_policy"]
            accepted, after = self._move(
                tx,
                rules,
                seats,
                seat,
                TURN_TIMED_OUT,
                move,
                before,
                actor=actor,
                extra={"policy": policy},
            )
            timed_out = seats[seat - 1]
            replaced = (
                policy == "replace" and timed_out.timeouts + 1 >= row.options["replace_after"]
            )
            told = {"replaced": True} if replaced else {}  # a bot now holds the seat
            self._mail_seat(tx, accepted.seq, "timed_out", timed_out, told)
            if replaced:
                payload = {"seat": seat, "controller": f"{BOT}greedy"}
                self._record(tx, rules, SEAT_REPLACED, payload, actor, after)
            return accepted

    def play_bot(self, game_id: str, seat: int, expected_seq: int) -> Accepted:
        """A bot seat's turn, as its bot chooses (the same choice for the same seq)."""
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            rules = get(row.game)
            self._check_expected(tx.conn, rules, row, expected_seq)
            seats = rows.seats(tx.conn, game_id)
            if row.turn != seat or not _is_bot(seats[seat - 1]):
                raise BadRequest(f"seat {seat} is not a bot to move")
            before = self._state(tx.conn, rules, row)
            controller = seats[seat - 1].controller
            move = rules.bot(controller.removeprefix(BOT), f"{game_id}/{row.head_seq}")(before)
            accepted, _ = self._move(
                tx, rules, seats, seat, ACTION_TAKEN, move, before, actor=controller
            )
            return accepted

    def play_bots(self, game_id: str) -> list[Accepted]:
        """Play bot seats' turns until a person is to move or the game has ended."""
        played: list[Accepted] = []
        while True:
            with self._reading() as conn:
                row = self._row(conn, game_id)
                seats = rows.seats(conn, game_id)
            if row.turn is None or not _is_bot(seats[row.turn - 1]):
                return played
            played.append(self.play_bot(game_id, row.turn, row.head_seq))

    # -- seats ----------------------------------------------------------------------

    def replace_seat(
        self,
        game_id: str,
        seat: int,
        by: str,
        *,
        name: str | None = None,
        email: str | None = None,
        bot: str = "greedy",
        actor: str = "admin",
    ) -> SeatLink:
        """Hand a seat to a bot (`by` = "bot") or to a person (`by` = "human", with
        a new link; the old one stops working)."""
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            rules = get(row.game)
            seats = rows.seats(tx.conn, game_id)
            if not 1 <= seat <= len(seats):
                raise NotFound(f"game {game_id} has no seat {seat}")
            token = None
            if by == "bot":
                spec = self._checked_player(PlayerSpec(seats[seat - 1].name, bot=bot))
                payload: dict[str, Any] = {"seat": seat, "controller": f"{BOT}{spec.bot}"}
            elif by == "human":
                spec = self._checked_player(PlayerSpec(name or seats[seat - 1].name, email))
                nonce = new_nonce()
                token = seat_token(self._key, game_id, seat, nonce)
                payload = {
                    "seat": seat,
                    "controller": "human",
                    "name": spec.name,
                    "email": spec.email,
                    "token_sha256": token_hash(token),
                    "token_nonce": nonce,
                }
            else:
                raise BadRequest('a seat is replaced "by" a bot or a human')
            state = self._state(tx.conn, rules, row)
            event = self._record(tx, rules, SEAT_REPLACED, payload, actor, state)
            if token and spec.email:
                self._mail(tx, event.seq, "invitation", seat, spec.email, {})
            if row.status == "playing" and row.turn == seat:
                # the seat is to move: its new holder is told now, as at any turn
                held = rows.seats(tx.conn, game_id)[seat - 1]
                self._mail_seat(tx, event.seq, "your_turn", held, {})
                if _is_bot(held):
                    tx.bot_turn = (seat, event.seq)
            return SeatLink(seat, spec.name, token, spec.email)

    # -- preferences and vacations ----------------------------------------------------

    def set_mail_preference(self, game_id: str, token: str, mail: str) -> Envelope:
        """How the seat's person wants turn mails: every one, a daily digest, or none
        (the page, the invitation and the game-over mail always work)."""
        if mail not in MAIL_PREFERENCES:
            raise BadRequest(f"mail is one of {', '.join(MAIL_PREFERENCES)}")
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            seat = self._seat_for(tx.conn, rows.seats(tx.conn, game_id), token).seat
            rules = get(row.game)
            state = self._state(tx.conn, rules, row)
            payload = {"seat": seat, "mail": mail}
            return self._record(tx, rules, MAIL_PREFERENCE, payload, f"seat:{seat}", state)

    def take_vacation(self, game_id: str, token: str, days: int) -> Envelope:
        """Stop the seat's clock for `days` days from now (within the game's
        allowance); the other players are told."""
        longest = game_options.MAX_VACATION_DAYS
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= longest:
            raise BadRequest(
                f"a vacation lasts a whole number of days, at least 1 and at most {longest}"
            )
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            seats = rows.seats(tx.conn, game_id)
            seat = self._seat_for(tx.conn, seats, token)
            allowance = min(row.options["vacation_days"], longest)  # stored before the bound
            left = max(allowance - seat.vacation_days_used, 0)
            if days > left:
                raise BadRequest(f"you have {left} vacation day{'' if left == 1 else 's'} left")
            if row.status != "playing":
                raise BadRequest("the game is over")
            rules = get(row.game)
            state = self._state(tx.conn, rules, row)
            until = timestamp(self.clock() + timedelta(days=days))
            payload = {"seat": seat.seat, "days": days, "until": until}
            event = self._record(tx, rules, VACATION, payload, f"seat:{seat.seat}", state)
            for other in seats:
                if other.seat != seat.seat:
                    note = {"who": seat.seat, "until": until}
                    self._mail_seat(tx, event.seq, "vacation", other, note)
            return event

    def remind(self, game_id: str, seq: int, hours: float) -> bool:
        """A reminder to the seat to move at `seq`, `hours` before its deadline: at
        most one per game, seq and hours, however often it is asked for (the unique
        outbox row decides, so two schedulers cannot send two). Says whether one
        was queued."""
        try:
            with self._transaction() as tx:
                row = self._open(tx, game_id)
                if row.head_seq != seq or row.turn is None:
                    return False
                seat = rows.seats(tx.conn, game_id)[row.turn - 1]
                self._mail_seat(tx, seq, f"reminder-{hours:g}", seat, {"hours": hours})
                tx.mails = [m for m in tx.mails if not rows.mail_exists(tx.conn, m)]
                return bool(tx.mails)
        except IntegrityError:
            return False  # another scheduler queued it first

    # -- undo -----------------------------------------------------------------------

    def undo(self, game_id: str, token: str) -> Envelope:
        """Take back the seat's last move and every move after it. At once when it
        is the last move and nothing hidden was shown since; otherwise this asks
        every other person (UndoRequested) and happens once they all agree. Never
        once the game has ended, and never past hidden information (a tile drawn,
        a card shown) with bots alone to agree: a bot never agrees to that."""
        self.lapse_overdue_undo(game_id)
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            seats = rows.seats(tx.conn, game_id)
            seat = self._seat_for(tx.conn, seats, token).seat
            rules = get(row.game)
            plan, restored = self._undo_plan(tx.conn, rules, row, seats, seat)
            if row.undo_request_seq is not None:
                raise BadRequest("an undo request is already waiting for answers")
            if plan.alone:
                payload = {"back_to": plan.back_to, "asked_by": seat, "agreed": []}
                return self._undo_done(tx, rules, seats, payload, f"seat:{seat}", restored)
            state = self._state(tx.conn, rules, row)
            payload = {"seat": seat, "back_to": plan.back_to}
            event = self._record(tx, rules, UNDO_REQUESTED, payload, f"seat:{seat}", state)
            for other in seats:
                if other.seat in plan.asks:
                    self._mail_seat(tx, event.seq, "undo_request", other, {"asked_by": seat})
            return event

    def undo_plan(self, game_id: str, seat: int) -> UndoPlan:
        """What an undo by `seat` would take back now, and who would have to agree;
        BadRequest with the reason when it cannot be done (for the confirm step)."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            seats = rows.seats(conn, game_id)
            plan, _ = self._undo_plan(conn, get(row.game), row, seats, seat)
            return plan

    def _undo_plan(
        self, conn: Connection, rules: Rules, row: Record, seats: list[Record], seat: int
    ) -> tuple[UndoPlan, Any]:
        """The plan of an undo by `seat`, and the state it goes back to."""
        if row.status != "playing":
            raise BadRequest("the game is over: no move can be taken back")
        moves = moves_in_force(log.events(conn, row.id))
        own = [m for m in moves if m.type == ACTION_TAKEN and m.payload["seat"] == seat]
        if not own:
            raise BadRequest("you have no move to take back")
        back_to = own[-1].seq - 1
        restored = state = states.state_at(conn, rules, row.id, back_to)
        taken, revealed = [], False
        for move in (m for m in moves if m.seq > back_to):
            after = rules.perform(state, rules.parse(move.payload["action"]))
            # every step counts: a later move (a bot's too) may have drawn a tile
            revealed = revealed or self._shows_hidden(rules, state, after, seats)
            text = history.describe(rules, move, state, after)
            seat_of = move.payload["seat"]
            taken.append(Happened(move.seq, move.type, seat_of, text, rules.round(state)))
            state = after
        people = [s.seat for s in seats if s.seat != seat and not _is_bot(s)]
        if revealed and not people:
            raise BadRequest(
                "taking it back would hide again what was shown since (a tile drawn from "
                "the supply): only the other players could agree to that, and a bot never "
                "agrees"
            )
        alone = not revealed and (len(taken) == 1 or not people)
        return UndoPlan(seat, back_to, taken, alone, [] if alone else people), restored

    @staticmethod
    def _shows_hidden(rules: Rules, before: Any, after: Any, seats: list[Record]) -> bool:
        """Whether going from `before` to `after` showed anyone something that was
        hidden from them: what the rules call a reveal, or anything that stopped
        being secret for some viewer (a drawn tile, a card, the seed)."""
        if rules.reveals(before, after):
            return True
        viewers = [None, *(s.seat for s in seats)]
        return any(rules.secrets(before, v) - rules.secrets(after, v) for v in viewers)

    def answer_undo(self, game_id: str, token: str, agree: bool) -> Envelope:
        """Agree to or refuse the waiting undo request; the last agreement does it,
        a refusal closes it. A request the game has moved past, or that waited
        longer than UNDO_WAIT, has lapsed and can no longer be answered."""
        if self.lapse_overdue_undo(game_id):
            raise BadRequest(
                "the undo request lapsed: it was not answered within "
                f"{UNDO_WAIT.total_seconds() / 3600:g} hours"
            )
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            seats = rows.seats(tx.conn, game_id)
            seat = self._seat_for(tx.conn, seats, token).seat
            rules = get(row.game)
            if row.status != "playing":
                raise BadRequest("the game is over: no move can be taken back")
            if row.undo_request_seq is None:
                raise BadRequest("no undo request is waiting for an answer")
            since = log.events(tx.conn, game_id, after=row.undo_request_seq - 1)
            request = since[0].payload
            answered = {e.payload["seat"] for e in since if e.type == UNDO_ANSWERED}
            if seat == request["seat"]:
                raise BadRequest("you asked for this undo; the others answer it")
            if seat in answered:
                raise BadRequest("you have already answered this undo request")
            state = self._state(tx.conn, rules, row)
            payload = {"seat": seat, "request": row.undo_request_seq, "agree": bool(agree)}
            event = self._record(tx, rules, UNDO_ANSWERED, payload, f"seat:{seat}", state)
            people = {s.seat for s in seats if s.seat != request["seat"] and not _is_bot(s)}
            if agree and people <= answered | {seat}:
                restored = states.state_at(tx.conn, rules, game_id, request["back_to"])
                done = {
                    "back_to": request["back_to"],
                    "asked_by": request["seat"],
                    "agreed": sorted(people),
                }
                return self._undo_done(tx, rules, seats, done, f"seat:{seat}", restored)
            return event

    def lapse_overdue_undo(self, game_id: str) -> bool:
        """Close the game's undo request if it has waited longer than UNDO_WAIT
        (UndoLapsed, and both sides are told). Says whether it did; for the sweep,
        and before anything answers or asks."""
        with self._transaction() as tx:
            row = self._open(tx, game_id)
            if row.undo_request_seq is None:
                return False
            request = log.events(tx.conn, game_id, after=row.undo_request_seq - 1)[0]
            if parse_timestamp(request.created_at) + UNDO_WAIT > self.clock():
                return False
            rules = get(row.game)
            seats = rows.seats(tx.conn, game_id)
            state = self._state(tx.conn, rules, row)
            hours = f"{UNDO_WAIT.total_seconds() / 3600:g}"
            self._lapse_undo(tx, rules, seats, state, f"it was not answered within {hours} hours")
            return True

    def undo_requests_waiting(self) -> list[str]:
        """The games with an undo request waiting: the sweep calls
        `lapse_overdue_undo` on each (one game at a time, so one cannot stop others)."""
        return [g.id for g in self.games() if g.undo_request_seq is not None]

    def _lapse_undo(
        self, tx: Tx, rules: Rules, seats: list[Record], state: Any, reason: str
    ) -> Envelope:
        """UndoLapsed for the waiting request, and a mail to the asker and to every
        other person that it was closed and why."""
        waiting = tx.before.undo_request_seq
        if waiting is None:
            raise ValueError(f"game {tx.game_id} has no undo request waiting")
        request = log.events(tx.conn, tx.game_id, after=waiting - 1)[0]
        asker = request.payload["seat"]
        payload = {"seat": asker, "request": request.seq, "reason": reason}
        event = self._record(tx, rules, UNDO_LAPSED, payload, "system", state)
        told = {"asked_by": asker, "reason": reason}
        for seat in seats:
            self._mail_seat(tx, event.seq, "undo_lapsed", seat, told)
        return event

    def _undo_done(
        self,
        tx: Tx,
        rules: Rules,
        seats: list[Record],
        payload: dict[str, Any],
        actor: str,
        state: Any,
    ) -> Envelope:
        event = self._record(tx, rules, UNDO_DONE, payload, actor, state)
        to_move = rules.to_move(state)
        if to_move is not None:
            self._mail_seat(tx, event.seq, "your_turn", seats[to_move - 1], {"after_undo": True})
        return event

    # -- reading --------------------------------------------------------------------

    def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a token plays in this game; None (a spectator) without a token.
        A token that is not valid here is refused (Forbidden)."""
        with self._reading() as conn:
            self._row(conn, game_id)
            return self._seat_for(conn, rows.seats(conn, game_id), token).seat if token else None

    def state_at(
        self, game_id: str, seq: int | None = None, seat: int | None = None
    ) -> dict[str, Any]:
        """The state document at `seq` (default: the head) as `seat` may see it.
        History shows nothing the head hides from the viewer: at a seq inside moves
        an undo took back, whose position would show a tile that is hidden again,
        the position the undo went back to stands in for it."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            rules = get(row.game)
            seq, state = self._state_at(conn, rules, row, seq, seat)
            doc = rules.view(state, seat)
            return {"id": game_id, "seq": seq, "head_hash": row.head_hash, **doc}

    def describe(self, game_id: str, seq: int | None = None, seat: int | None = None) -> str:
        """The position at `seq` (default: the head) as text, as `seat` may see it
        (redacted as `state_at` is)."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            rules = get(row.game)
            seq, state = self._state_at(conn, rules, row, seq, seat)
            header = f"Game {game_id} at seq {seq} of {row.head_seq} (head {row.head_hash})"
            return header + "\n" + rules.describe(state, seat)

    def _state_at(
        self, conn: Connection, rules: Rules, row: Record, seq: int | None, seat: int | None
    ) -> tuple[int, Any]:
        """The seq and the rules state a viewer is shown for it."""
        head = self._state(conn, rules, row)
        if seq is None or seq == row.head_seq:
            return row.head_seq, head
        if not 1 <= seq < row.head_seq:
            raise NotFound(f"game {row.id} has seq 1 to {row.head_seq}, not {seq}")
        hidden = rules.secrets(head, seat)
        state = states.state_at(conn, rules, row.id, seq)
        if not hidden & _strings(rules.view(state, seat)):
            return seq, state
        undos = log.undos(conn, row.id)
        shown = seq
        while True:  # back through every undo that took the seq back
            back = [u.payload["back_to"] for u in undos if u.payload["back_to"] < shown < u.seq]
            if not back:
                break
            shown = min(back)
        if shown != seq:
            state = states.state_at(conn, rules, row.id, shown)
            if not hidden & _strings(rules.view(state, seat)):
                return seq, state
        return seq, head  # nothing earlier is safe to show: the position now

    def censor(self, game_id: str, seat: int | None) -> Callable[[str], str]:
        """A function that blanks out of a text (a sentence of the log) every word
        the viewer may not see now: a tile an undo put back into the supply, named
        by the sentence of a move that was taken back."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            return self._censor(conn, get(row.game), row, seat)

    def _censor(
        self, conn: Connection, rules: Rules, row: Record, seat: int | None
    ) -> Callable[[str], str]:
        state = self._state(conn, rules, row)
        hidden = sorted((h for h in rules.secrets(state, seat) if h), key=len, reverse=True)
        if not hidden:
            return lambda text: text
        words = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, hidden)) + r")(?![\w-])")
        return lambda text: words.sub("(hidden)", text)

    def legal(self, game_id: str, seat: int | None) -> list[str]:
        """The seat's legal actions now, in canonical notation (none for others)."""
        if seat is None:
            return []
        rules, state = self._rules_and_head(game_id)
        return [rules.format(a) for a in rules.legal_actions(state, seat)]

    def turn_options(self, game_id: str, seat: int | None) -> list[dict[str, Any]]:
        """The seat's legal actions now, each with its JSON form and a preview of
        what it would do ("costs 2 notes; R13.2 moves to Y07; ...")."""
        if seat is None:
            return []
        rules, state = self._rules_and_head(game_id)
        options = []
        for action in rules.legal_actions(state, seat):
            text = rules.format(action)
            told = rules.narrate(state, action, rules.perform(state, action))
            preview = told.removeprefix(text).removeprefix("; ") or "nothing else happens"
            options.append({"text": text, "action": rules.to_json(action), "preview": preview})
        return options

    def pending_undo(self, game_id: str, seat: int | None) -> dict[str, int] | None:
        """The undo request waiting for `seat`'s answer: who asked, back to which
        seq. None when there is none, or it has waited too long (it lapses)."""
        if seat is None:
            return None
        with self._reading() as conn:
            row = self._row(conn, game_id)
            if row.undo_request_seq is None or row.status != "playing":
                return None
            since = log.events(conn, game_id, after=row.undo_request_seq - 1)
        if parse_timestamp(since[0].created_at) + UNDO_WAIT <= self.clock():
            return None
        request = since[0].payload
        answered = any(e.type == UNDO_ANSWERED and e.payload["seat"] == seat for e in since)
        if request["seat"] == seat or answered:
            return None
        return {"asked_by": request["seat"], "back_to": request["back_to"]}

    def history(self, game_id: str, seat: int | None = None) -> list[Happened]:
        """Every event of the game `seat` may be told of (None: a spectator), as a
        sentence, in order. Another seat's private events (its mail preference) are
        left out, so look an event up by its seq, not by its place in the list."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            return self._happened(conn, get(row.game), game_id, 0, row.head_seq, seat)

    def seat_links(self, game_id: str) -> list[SeatLink]:
        """Every seat with its current token (derived again from the secret key)."""
        with self._reading() as conn:
            self._row(conn, game_id)
            seats = rows.seats(conn, game_id)
        return [
            SeatLink(
                s.seat,
                s.name,
                None if _is_bot(s) else seat_token(self._key, game_id, s.seat, s.token_nonce),
                s.email,
            )
            for s in seats
        ]

    def seat_settings(self, game_id: str, seat: int) -> dict[str, Any]:
        """A seat's mail preference and vacation: days left, and until when."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            found = rows.seats(conn, game_id)[seat - 1]
        return {
            "mail": found.mail,
            "vacation_left": max(
                min(row.options["vacation_days"], game_options.MAX_VACATION_DAYS)
                - found.vacation_days_used,
                0,
            ),
            "vacation_until": found.vacation_until,
            "deadline": row.deadline_at if row.turn == seat else None,
        }

    def options(self, game_id: str) -> dict[str, Any]:
        with self._reading() as conn:
            return dict(self._row(conn, game_id).options)

    def games(self) -> list[Record]:
        """Every game's row (id, game, status, turn, round, head_seq, ...)."""
        with self._reading() as conn:
            return rows.games(conn)

    # -- the log file: export, import, verify, rebuild ------------------------------

    def export_log(self, game_id: str, seat: int | None = None) -> dict[str, Any]:
        """The game as a log file (DESIGN.md contract), redacted for `seat` while
        the game runs; once it has ended it carries the seed, so anyone can check
        the seed's SHA-256 and replay it."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            rules = get(row.game)
            events = log.events(conn, game_id)
            state = self._state(conn, rules, row)
        created = events[0].payload
        setup = {"players": [p["name"] for p in created["players"]], **created["setup"]}
        actions = [
            {"seat": m.payload["seat"], "action": rules.format(rules.parse(m.payload["action"]))}
            for m in moves_in_force(events)
        ]
        return {
            "format": rules.log_format,
            "setup": rules.public_setup(setup, state, seat),
            "actions": actions,
            "game": {
                "id": game_id,
                "status": row.status,
                "head_seq": row.head_seq,
                "head_hash": row.head_hash,
                # the setup was given by someone (not drawn by the server), so its
                # creator may know the hidden information
                "setup_chosen": bool(created.get("setup_chosen", False)),
            },
        }

    def setup_chosen(self, game_id: str) -> bool:
        """Whether the game's setup was given by someone rather than drawn by the
        server (so they may know its hidden information)."""
        with self._reading() as conn:
            self._row(conn, game_id)
            created = log.created_payload(conn, game_id)
        return bool(created.get("setup_chosen", False))

    def import_log(self, doc: Mapping[str, Any], actor: str = "import") -> Created:
        """A new game from a log file: every action is checked before anything is
        stored; an illegal one refuses the whole file, naming the action. A game
        whose deal its log could have chosen is marked `setup_chosen`."""
        if not isinstance(doc, Mapping):
            raise BadRequest("a game log is a JSON object")
        try:
            rules = for_log_format(doc.get("format"))
        except KeyError as error:
            raise BadRequest(str(error.args[0])) from None
        setup = dict(doc.get("setup") or {})
        names = setup.pop("players", None)
        claimed = setup.pop("seed_sha256", None)
        if not isinstance(names, list) or not names:
            raise BadRequest('the log needs "setup.players", a list of names')
        if claimed is not None and "seed" in setup and claimed != _sha256(str(setup["seed"])):
            raise BadRequest("the seed does not match its SHA-256 in the log")
        specs = [
            self._checked_player(PlayerSpec(n["name"] if isinstance(n, dict) else str(n)))
            for n in names
        ]
        try:
            initial = rules.setup([p.name for p in specs], setup)
        except SetupError as error:
            raise BadRequest(f"setup: {error}") from None
        state = initial
        moves: list[tuple[int, Any, Any]] = []
        for number, entry in enumerate(doc.get("actions") or [], start=1):
            # the parts of an entry are JSON as given: the rules refuse what is no action
            given: Any = entry.get("action") if isinstance(entry, Mapping) else None
            seat: Any = entry.get("seat") if isinstance(entry, Mapping) else None
            try:
                move = rules.check(state, rules.parse(given), seat)
            except (IllegalAction, TypeError) as error:
                raise BadRequest(f'action {number} (seat {seat}, "{given}"): {error}') from None
            if isinstance(seat, bool) or not isinstance(seat, int):  # True == 1, 1.0 == 1
                raise BadRequest(
                    f'action {number} ("{given}"): name the seat that played it,'
                    ' as a number ("seat": 1)'
                )
            moves.append((seat, move, state))
            state = rules.perform(state, move)
        chosen = game_options.checked(None)
        # a deal given in the log, or a seed too short or too regular to hide it
        # (fewer than 128 random bits), may be known to whoever wrote the log
        setup_chosen = guessable(setup.get("seed")) or any(k != "seed" for k in setup)
        with self._transaction() as tx:
            links = self._start(tx, rules, specs, chosen, setup, initial, actor, setup_chosen)
            for seat, move, before in moves:
                self._move(tx, rules, [], seat, ACTION_TAKEN, move, before, actor=actor)
        return Created(tx.game_id, tx.head[0], links)

    def verify(self, game_id: str) -> list[str]:
        """Everything wrong with the stored game: a broken hash chain, an event that
        does not fold (an illegal or non-canonical move, an unknown type), read
        models that disagree with the log. Empty when the game is sound."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            problems = log.chain_problems(conn, game_id)
            try:
                events = log.events(conn, game_id)
            except ValueError as error:
                return [*problems, f"an event cannot be read: {error}"]
        rules = get(events[0].payload["game"])
        stack = [(1, states.initial_state(rules, events[0].payload))]
        for event in events[1:]:
            if event.type in MOVES:
                seat, given = event.payload["seat"], event.payload["action"]
                try:
                    move = rules.check(stack[-1][1], rules.parse(given), seat)
                except IllegalAction as error:
                    problems.append(f"seq {event.seq}: seat {seat}'s move does not fold: {error}")
                    break
                if rules.to_json(move) != given:
                    problems.append(f"seq {event.seq}: the move is not in canonical form")
                stack.append((event.seq, rules.perform(stack[-1][1], move)))
            elif event.type == UNDO_DONE:
                while stack[-1][0] > event.payload["back_to"]:
                    stack.pop()
        last = events[-1]
        if (row.head_seq, row.head_hash) != (last.seq, last.hash):
            problems.append("the games read model does not point at the last event")
        return problems

    def rebuild(self) -> int:
        """Recreate every read model and snapshot from the events alone."""
        with self.db.writing() as conn:
            count = projection.rebuild(conn, self.settings.snapshot_every)
        with self._lock:
            self._cache.clear()
        return count

    # -- the parts of a transaction -----------------------------------------------

    def _row(self, conn: Connection, game_id: str, lock: bool = False) -> Record:
        # An id that is not 1 to 32 lower-case letters and digits (the games.id column;
        # new ids are 16 of base32) names no game: it never reaches the database
        # (PostgreSQL refuses a NUL in text), nor the message in full.
        if not isinstance(game_id, str) or not re.fullmatch(r"[a-z0-9]{1,32}", game_id, re.A):
            raise NotFound("there is no such game")
        row = rows.game(conn, game_id, lock)
        if row is None:
            raise NotFound(f"there is no game {game_id}")
        return row

    def _open(self, tx: Tx, game_id: str) -> Record:
        """Lock the game for this transaction and start appending after its head."""
        row = self._row(tx.conn, game_id, lock=True)
        tx.game_id, tx.head = game_id, (row.head_seq, row.head_hash)
        tx.before = Before(row.options, row.turn, row.turn_started_at, row.undo_request_seq)
        return row

    def _seat_for(self, conn: Connection, seats: list[Record], token: str | None) -> Record:
        """The person's seat the token opens among `seats`; Forbidden otherwise."""
        if not token:
            raise Forbidden("this needs your personal link (a seat token)")
        digest = token_hash(token)
        for seat in seats:
            if seat.token_sha256 == digest and not _is_bot(seat):
                return seat
        if rows.token_elsewhere(conn, digest, seats[0].game_id if seats else ""):
            raise Forbidden("this link belongs to another game")
        raise Forbidden("this link is not valid (it may have been replaced)")

    def _check_expected(
        self, conn: Connection, rules: Rules, row: Record, expected: int | None
    ) -> None:
        if expected is None or expected == row.head_seq:
            return
        if not 1 <= expected <= row.head_seq:
            raise BadRequest(f"expected_seq {expected}: the game has seq 1 to {row.head_seq}")
        raise self._stale(conn, rules, row, expected)

    def _stale(self, conn: Connection, rules: Rules, row: Record, expected: int) -> Stale:
        since = self._happened(conn, rules, row.id, expected, row.head_seq)
        return Stale(expected, row.head_seq, since)

    def _happened(
        self,
        conn: Connection,
        rules: Rules,
        game_id: str,
        after: int,
        upto: int,
        viewer: int | None = None,
    ) -> list[Happened]:
        """The events after < seq <= upto that `viewer` (a seat, or None for anyone)
        may be told of, each as a sentence."""
        out = []
        base = max(after, 1)
        folder = states.Folder(rules, base, states.state_at(conn, rules, game_id, base))
        for event in log.events(conn, game_id, after=after, upto=upto):
            before = folder.state
            if event.type == UNDO_DONE and event.payload["back_to"] < folder.base_seq:
                restored = states.state_at(conn, rules, game_id, event.seq)
                folder = states.Folder(rules, event.seq, restored)
            elif event.seq > 1:
                folder.push(event)
            after_state = folder.state
            if not history.visible(event, viewer):
                continue
            text = history.describe(rules, event, before, after_state)
            closes = event.type in MOVES and (
                rules.round(after_state) > rules.round(before) or rules.to_move(after_state) is None
            )
            seat = event.payload.get("seat")
            out.append(Happened(event.seq, event.type, seat, text, rules.round(before), closes))
        return out

    def _rules_and_head(self, game_id: str) -> tuple[Rules, Any]:
        """The game's rules and its state now."""
        with self._reading() as conn:
            row = self._row(conn, game_id)
            rules = get(row.game)
            return rules, self._state(conn, rules, row)

    def _state(self, conn: Connection, rules: Rules, row: Record) -> Any:
        """The state at the game's head: from the cache when it matches the head
        this transaction sees, else from the head's stored state."""
        with self._lock:
            cached = self._cache.get(row.id)
            if cached is not None and cached[:2] == (row.head_seq, row.head_hash):
                self._cache.move_to_end(row.id)
                return cached[2]
        return states.state_at(conn, rules, row.id, row.head_seq)

    def _remember(self, game_id: str, seq: int, digest: str, state: Any) -> None:
        if self._cache_size <= 0:
            return
        with self._lock:
            self._cache[game_id] = (seq, digest, state)
            self._cache.move_to_end(game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _time(self) -> str:
        return timestamp(self.clock())

    def _project(self, tx: Tx, rules: Rules, event: Envelope, state: Any) -> None:
        head = projection.project(
            tx.conn, rules, event, state, before=tx.before, every=self.settings.snapshot_every
        )
        tx.head, tx.before = (event.seq, event.hash), tx.before.after(head)
        tx.done.append((tx.game_id, event.seq, event.hash, state))

    def _record(
        self,
        tx: Tx,
        rules: Rules,
        type: str,
        payload: dict[str, Any],
        actor: str,
        state: Any,
        key: str | None = None,
    ) -> Envelope:
        """Append one event after the head and project it."""
        event = log.append(tx.conn, tx.game_id, tx.head, type, payload, actor, self._time(), key)
        self._project(tx, rules, event, state)
        return event

    def _mail(
        self,
        tx: Tx,
        seq: int,
        kind: str,
        seat: int | None,
        to: str,
        payload: dict[str, Any],
        status: str = "pending",
    ) -> None:
        """An outbox row, recording the seat's holder of now (its token's hash), so
        that a link in it only ever goes to the holder it was written for."""
        if seat is not None and "holder" not in payload:
            payload = {**payload, "holder": rows.holder(tx.conn, tx.game_id, seat)}
        mail = rows.new_mail(tx.game_id, seq, kind, seat, to, payload, self._time())
        tx.mails.append({**mail, "status": status})

    def _mail_seat(
        self, tx: Tx, seq: int, kind: str, seat: Record, payload: dict[str, Any]
    ) -> None:
        """A mail to a seat's person, as their preference has it: every turn mail,
        turn mails held for the daily digest, or none but those that always go."""
        if not seat.email or _is_bot(seat):
            return
        payload = {**payload, "holder": seat.token_sha256}
        if kind in ALWAYS or seat.mail == "every":
            self._mail(tx, seq, kind, seat.seat, seat.email, payload)
        elif seat.mail == "digest":
            self._mail(tx, seq, kind, seat.seat, seat.email, payload, status="held")

    def _former_holders(self, tx: Tx, seats: list[Record]) -> list[dict[str, Any]]:
        """The people who held a seat of this game and were replaced (by a bot or by
        another person), once each, leaving out anyone who holds a seat now: the
        seat, their name and address, and the holder they were (their token's hash)."""
        if not seats:
            return []
        now = {s.email.lower() for s in seats if s.email and not _is_bot(s)}
        current = {s.seat: None if _is_bot(s) else s.token_sha256 for s in seats}
        held = []
        for event in log.events(tx.conn, tx.game_id):
            if event.type == GAME_CREATED:
                held += [p for p in event.payload["players"] if p["controller"] == "human"]
            elif event.type == SEAT_REPLACED and event.payload["controller"] == "human":
                held.append(event.payload)
        former: dict[str, dict[str, Any]] = {}
        for p in held:
            email = (p.get("email") or "").lower()
            if email and email not in now and p["token_sha256"] != current.get(p["seat"]):
                former.setdefault(
                    email,
                    {
                        "seat": p["seat"],
                        "name": p["name"],
                        "email": p["email"],
                        "holder": p["token_sha256"],
                    },
                )
        return list(former.values())

    def _mails_after_move(
        self, tx: Tx, rules: Rules, seats: list[Record], seq: int, before: Any, after: Any
    ) -> None:
        to_move = rules.to_move(after)
        if to_move is None:
            for seat in seats:
                self._mail_seat(tx, seq, "game_over", seat, {})
            for former in self._former_holders(tx, seats):
                self._mail(tx, seq, "game_over", None, former.pop("email"), former)
            return
        if rules.round(after) > rules.round(before):
            for seat in seats:
                self._mail_seat(tx, seq, "round_scored", seat, {"round": rules.round(before)})
        for seat in seats:
            if seat.seat == to_move:
                self._mail_seat(tx, seq, "your_turn", seat, {})
                if _is_bot(seat):
                    tx.bot_turn = (seat.seat, seq)
