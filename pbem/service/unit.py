"""The unit of work: one command's transaction on one game (`Tx`), and the `Context`
every command and query works with — the database, settings, clock, signing key,
state cache and notifier — which opens units of work, reads a game's rows, appends
events and projects them into the read models."""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from pbem.config import Settings
from pbem.events import CHAIN, GENESIS, Envelope, Event, encode, timestamp
from pbem.games import Rules, get
from pbem.i18n import gettext as _
from pbem.store import log, projection, states
from pbem.store.database import Database
from pbem.store.projection import Before

from . import rows
from .cache import StateCache
from .errors import Forbidden, NotFound
from .rows import Record
from .tokens import token_hash

BOT = "bot:"  # prefix of a bot seat's controller, e.g. "bot:<name>"


def now() -> datetime:
    return datetime.now(UTC)


def new_game_id() -> str:
    return base64.b32encode(os.urandom(10)).decode("ascii").lower()


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_game_id(game_id: object) -> bool:
    """Whether `game_id` could name a game: 1 to 32 lower-case letters and digits."""
    return isinstance(game_id, str) and re.fullmatch(r"[a-z0-9]{1,32}", game_id, re.A) is not None


def is_bot(seat: Record) -> bool:
    controller: str = seat.controller
    return controller.startswith(BOT)


@dataclass(frozen=True)
class Notice:
    """What a committed command leaves for the workers: mails to send, a bot to
    move. Told, after the commit, to the notifier the service was built with (the
    composition root's; the sweeps find the same work anyway)."""

    game_id: str
    mail_ids: tuple[int, ...]
    bot_turn: tuple[int, int] | None


@dataclass
class Tx:
    """One command's transaction on one game: its connection, the head it appends
    after, the mails it calls for, and the states it leaves for the cache once (and
    only if) it commits."""

    conn: Connection
    clock: Callable[[], datetime] = now
    game_id: str = ""
    head: tuple[int, str] = (0, GENESIS)
    chain: int = CHAIN  # the game's hash chain rule (a new game's: the current one)
    before: Before = field(default_factory=Before)
    mails: list[dict[str, Any]] = field(default_factory=list)
    done: list[tuple[str, int, str, Any]] = field(default_factory=list)
    bot_turn: tuple[int, int] | None = None  # (seat, seq) when a bot is to move

    def time(self) -> str:
        """Now, as stored in events and outbox rows."""
        return timestamp(self.clock())


class Context:
    """What the commands and queries share. `notify` is told each committed
    command's Notice (None: the sweeps find the work alone)."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        clock: Callable[[], datetime],
        cache: StateCache,
        notify: Callable[[Notice], None] | None = None,
    ) -> None:
        self.db = database
        self.settings = settings
        self.clock = clock
        self.key = settings.signing_key()
        self.cache = cache
        self.notify = notify

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A unit of work: committed as a whole, then its states cached and its
        notice told."""
        with self.db.writing() as conn:
            tx = Tx(conn, self.clock)
            yield tx
            mail_ids = rows.add_mails(tx.conn, tx.mails)
        for entry in tx.done:
            self.cache.remember(*entry)
        if self.notify is not None and (mail_ids or tx.bot_turn):
            self.notify(Notice(tx.game_id, tuple(mail_ids), tx.bot_turn))

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with self.db.reading() as conn:
            yield conn

    def time(self) -> str:
        return timestamp(self.clock())

    # -- a game's rows --------------------------------------------------------------

    def row(self, conn: Connection, game_id: str, lock: bool = False) -> Record:
        """The game's row; NotFound when there is none."""
        # An id that is not 1 to 32 lower-case letters and digits (the games.id column;
        # new ids are 16 of base32) names no game: it never reaches the database
        # (PostgreSQL refuses a NUL in text), nor the message in full.
        if not is_game_id(game_id):
            raise NotFound(_("there is no such game"))
        row = rows.game(conn, game_id, lock)
        if row is None:
            raise NotFound(_("there is no game %(game)s", game=game_id))
        return row

    def open(self, tx: Tx, game_id: str) -> Record:
        """Lock the game for this transaction and start appending after its head."""
        row = self.row(tx.conn, game_id, lock=True)
        tx.game_id, tx.head, tx.chain = game_id, (row.head_seq, row.head_hash), row.chain
        tx.before = Before(
            row.options,
            row.turn,
            row.turn_started_at,
            row.undo_request_seq,
            waiting=_waiting(row),
        )
        return row

    def seat_for(self, conn: Connection, seats: list[Record], token: str | None) -> Record:
        """The person's seat the token opens among `seats`; Forbidden otherwise."""
        if not token:
            raise Forbidden(_("this needs your personal link (a seat token)"))
        digest = token_hash(token)
        for seat in seats:
            if seat.token_sha256 == digest and not is_bot(seat):
                return seat
        if rows.token_elsewhere(conn, digest, seats[0].game_id if seats else ""):
            raise Forbidden(_("this link belongs to another game"))
        raise Forbidden(_("this link is not valid (it may have been replaced)"))

    def state(self, conn: Connection, rules: Rules, row: Record) -> Any:
        """The state at the game's head: from the cache when it matches the head
        this transaction sees, else from the head's stored state."""
        cached = self.cache.get(row.id, row.head_seq, row.head_hash)
        if cached is not None:
            return cached
        return states.state_at(conn, rules, row.id, row.head_seq)

    def rules_and_head(self, game_id: str) -> tuple[Rules, Any]:
        """The game's rules and its state now."""
        with self.reading() as conn:
            row = self.row(conn, game_id)
            rules = get(row.game)
            return rules, self.state(conn, rules, row)

    # -- appending ------------------------------------------------------------------

    def record(
        self,
        tx: Tx,
        rules: Rules,
        event: Event,
        actor: str,
        state: Any,
        key: str | None = None,
    ) -> Envelope:
        """Append one event after the head and project it; `state` is the rules
        state after it."""
        type, _, payload = encode(event)
        at = tx.time()
        stored = log.append(
            tx.conn, tx.game_id, tx.head, type, payload, actor, at, key, chain=tx.chain
        )
        self.project(tx, rules, stored, state)
        return stored

    def project(self, tx: Tx, rules: Rules, event: Envelope, state: Any) -> None:
        """Bring the read models up to an appended event."""
        head = projection.project(
            tx.conn, rules, event, state, before=tx.before, every=self.settings.snapshot_every
        )
        tx.head = (event.seq, event.hash)
        tx.before = projection.next_before(tx.before, event, head)
        tx.done.append((tx.game_id, event.seq, event.hash, state))


def _waiting(row: Record) -> frozenset[int] | None:
    """The seats a game's row says it waits on, where the row alone tells: none once
    it has ended, the seat to move of a sequential game; else unknown (None)."""
    if row.status != "playing":
        return frozenset()
    return None if row.turn is None else frozenset({row.turn})
