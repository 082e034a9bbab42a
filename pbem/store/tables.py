"""The database tables. `events` is the only source of truth; `games`, `seats` and
`snapshots` are derived from it (and rebuilt by `pbem db rebuild`); `outbox` holds
the notices that events call for, until a channel has delivered them.

The classes are SQLModel models; the store's hot paths use their Core tables
(`core_table(Event)`) with prebuilt statements, which cost a fraction of the ORM's."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, Index, Table, UniqueConstraint, inspect, text
from sqlmodel import Field
from sqlmodel import SQLModel as SQLModel  # re-exported: its metadata holds these tables

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Event(SQLModel, table=True):
    """One immutable event of one game; (game_id, seq) is unique and gapless."""

    __tablename__ = "events"
    # On SQLite a table clustered by (game_id, seq) (WITHOUT ROWID); an idempotency
    # key is unique within its game, indexed only on the events that have one. A
    # game's events of one type lie together in (game_id, type, seq): a chat's last
    # lines, and the events that are not talk, are read without the rest.
    __table_args__ = (
        Index(None, "game_id", "type", "seq"),
        Index(
            "uq_events_game_id_idempotency_key",
            "game_id",
            "idempotency_key",
            unique=True,
            sqlite_where=text("idempotency_key IS NOT NULL"),
            postgresql_where=text("idempotency_key IS NOT NULL"),
        ),
        {"sqlite_with_rowid": False},
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=40)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    actor: str = Field(max_length=80)
    created_at: str = Field(max_length=32)  # canonical UTC text, as hashed
    idempotency_key: str | None = Field(default=None, max_length=200)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    # the salt of a version 2 chain's commitment (32 hex digits); None in version 1
    salt: str | None = Field(default=None, max_length=64)


class Game(SQLModel, table=True):
    """Read model: one row per game, what lists and the scheduler ask about."""

    __tablename__ = "games"
    # The sweep's two questions: the games in play by deadline, and the few with an
    # undo request waiting (a partial index: the others have none).
    __table_args__ = (
        Index(None, "status", "deadline_at"),
        Index(
            "ix_games_undo_requested",
            "undo_request_seq",
            sqlite_where=text("undo_request_seq IS NOT NULL"),
            postgresql_where=text("undo_request_seq IS NOT NULL"),
        ),
    )

    id: str = Field(primary_key=True, max_length=32)
    game: str = Field(max_length=32)
    status: str = Field(max_length=16)  # playing or finished
    turn: int | None = None
    round: int
    head_seq: int
    head_hash: str = Field(max_length=64)
    chain: int = 1  # the hash chain's rule (1 or 2): whether its events have salts
    created_at: str = Field(max_length=32)
    updated_at: str = Field(max_length=32)
    turn_started_at: str | None = Field(default=None, max_length=32)  # the clock's start
    deadline_at: str | None = Field(default=None, max_length=32)  # canonical UTC text
    public: bool = False
    options: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    undo_request_seq: int | None = None  # a pending undo request, if any
    engine_version: str = Field(max_length=16)
    # The name its creator gave the game (GameCreated's); None: its players' names.
    name: str | None = Field(default=None, max_length=400)
    # The rules state at head_seq (a snapshot kept with the head, so loading the
    # current state of any game is one row, however long the game).
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class Seat(SQLModel, table=True):
    """Read model: who plays each seat, and how to reach and recognise them."""

    __tablename__ = "seats"
    # The sweep's bot seats (a partial index: most seats are people's).
    __table_args__ = (
        Index(
            "ix_seats_bots",
            "game_id",
            "seat",
            sqlite_where=text("controller LIKE 'bot:%'"),
            postgresql_where=text("controller LIKE 'bot:%'"),
        ),
        # The seats games wait on (a partial index: in a finished game, none).
        Index(
            "ix_seats_waiting",
            "game_id",
            "seat",
            sqlite_where=text("waiting"),
            postgresql_where=text("waiting"),
        ),
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    name: str = Field(max_length=200)
    email: str | None = Field(default=None, max_length=320, index=True)
    token_sha256: str = Field(max_length=64, unique=True)
    token_nonce: str = Field(max_length=64)
    controller: str = Field(max_length=40)  # "human" or "bot:<name>"
    timeouts: int = 0
    mail: str = Field(default="every", max_length=16)  # every turn, digest or none
    language: str = Field(default="en", max_length=8)  # the mails' language (LanguageChosen)
    vacation_from: str | None = Field(default=None, max_length=32)
    vacation_until: str | None = Field(default=None, max_length=32)
    vacation_days_used: int = 0
    # the game waits on this seat now (its rules' `active`): its turn, or its orders
    waiting: bool = Field(default=False)


class Snapshot(SQLModel, table=True):
    """A cache of the folded state every N events, for history (the head's state
    is kept in its games row)."""

    __tablename__ = "snapshots"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    engine_version: str = Field(max_length=16)
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class Outbox(SQLModel, table=True):
    """A notice to deliver on one channel to one address (for e-mail: a mail to a
    mail address), written in the transaction of the event that calls for it."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("game_id", "seq", "kind", "seat", "topic", "channel"),
        Index(None, "status", "next_attempt_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    channel: str = Field(default="email", max_length=32)  # the adapter that delivers it
    game_id: str | None = Field(default=None, max_length=32, index=True)  # None: not a game's
    seq: int | None = None
    kind: str = Field(max_length=32)  # a pbem.service.notices.Kind
    seat: int | None = None
    # What tells two notices of one kind, seq and seat apart (a reminder's hours).
    topic: str = Field(default="", max_length=32)
    address: str = Field(max_length=320)  # where the channel delivers it
    language: str = Field(default="en", max_length=8)  # the language it is written in
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    # pending, sending, sent, failed (given up), held (for a digest), digested, or
    # skipped (moot by the time it was due: a turn already played, say)
    status: str = Field(default="pending", max_length=16)
    attempts: int = 0
    # When it is due: written, or backing off after a failure (never moved by a
    # hand-out or a claim, so a row waiting behind another knows the difference).
    next_attempt_at: str = Field(max_length=32)
    # While it is handed to a worker (pending) or being sent (sending): until when the
    # hand-out or the sender holds it. A live sender renews it; once it runs out, the
    # sweep hands the row out again (its sender died, or its task was lost).
    leased_until: str | None = Field(default=None, max_length=32)
    # The channel's id of the message (for e-mail its Message-ID), set before the
    # first attempt, so that a resend is the same message.
    delivery_id: str | None = Field(default=None, max_length=200)
    last_error: str | None = Field(default=None, max_length=2000)
    created_at: str = Field(max_length=32)
    sent_at: str | None = Field(default=None, max_length=32)


class InboundMail(SQLModel, table=True):
    """A mail received from a player: acted on once, however often it is delivered
    (its Message-ID decides), and counted for the per-sender rate limit."""

    __tablename__ = "inbound"

    message_id: str = Field(primary_key=True, max_length=500)
    sender: str = Field(max_length=320, index=True)
    game_id: str | None = Field(default=None, max_length=32)
    received_at: str = Field(max_length=32, index=True)
    status: str = Field(max_length=16)  # received, handled
    outcome: str | None = Field(default=None, max_length=32)


class SeatSession(SQLModel, table=True):
    """A browser that holds a seat: its cookie carries only a random session id, whose
    SHA-256 is the key here. Deleting the row ("Forget my seat") kills every copy of
    the cookie; a seat handed on (a new token) kills its sessions too. A session a
    sign-in opened names it, and dies with it; a sign-in opens at most one per game."""

    __tablename__ = "seat_sessions"
    __table_args__ = (UniqueConstraint("sign_in_sha256", "game_id"),)

    id_sha256: str = Field(primary_key=True, max_length=64)
    game_id: str = Field(max_length=32, index=True)
    seat: int
    token_sha256: str = Field(max_length=64)  # the seat's token when the session began
    created_at: str = Field(max_length=32)
    last_seen_at: str = Field(max_length=32)
    # The sign-in (its sign_ins.id_sha256) that opened it; None: opened by a seat link.
    sign_in_sha256: str | None = Field(default=None, max_length=64)


class SignIn(SQLModel, table=True):
    """A sign-in link mailed to an address, then (once used, within its short life)
    the session of the browser that used it: the link's nonce and the browser's
    session id are kept as SHA-256 only. Deleting the row ("Sign out") ends it."""

    __tablename__ = "sign_ins"

    id_sha256: str = Field(primary_key=True, max_length=64)  # the link's nonce
    address: str = Field(max_length=320, index=True)
    created_at: str = Field(max_length=32)
    used_at: str | None = Field(default=None, max_length=32)
    session_sha256: str | None = Field(default=None, max_length=64, index=True)


class Feed(SQLModel, table=True):
    """A deadline feed of My games. Its address is a random id, kept here only as
    its HMAC under the server's key (a database dump opens no feed, and a new key
    revokes every one); `sessions` are the SHA-256 of the seat sessions of the
    browser that made it, whose seats it lists while they last. Deleting the row
    ("New feed address", "Sign out") revokes the address."""

    __tablename__ = "feeds"

    id_hmac: str = Field(primary_key=True, max_length=64)
    sessions: list[str] = Field(sa_column=Column(JSON, nullable=False))
    created_at: str = Field(max_length=32)


class SignOutLink(SQLModel, table=True):
    """A mailed link that signs an address out everywhere: single-use and short-lived,
    its nonce kept as SHA-256 only. Using it deletes the row."""

    __tablename__ = "sign_out_links"

    id_sha256: str = Field(primary_key=True, max_length=64)  # the link's nonce
    address: str = Field(max_length=320)
    created_at: str = Field(max_length=32)


class LinkRequest(SQLModel, table=True):
    """Someone asked My games to mail a link (to sign in, or to sign out everywhere)
    to an address. Every request is one such row, whoever the address is: the
    scheduler decides whether the address plays here and whether to mail, so the
    request itself does the same work for any address."""

    __tablename__ = "link_requests"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)  # sign_in or sign_out
    address: str = Field(max_length=320)
    language: str = Field(default="en", max_length=8)  # the asking page's
    created_at: str = Field(max_length=32)


class TalkCount(SQLModel, table=True):
    """Read model: how many lines of talk (`type`: TableTalk or SpectatorTalk) a game
    holds, in all (`writer` "") and by each writer ("seat:N", or "name:" and a
    spectator's name casefolded), so that the totals a game allows cost one row."""

    __tablename__ = "talk_counts"

    game_id: str = Field(primary_key=True, max_length=32)
    type: str = Field(primary_key=True, max_length=40)
    writer: str = Field(primary_key=True, max_length=200)
    lines: int = 0


class TalkReader(SQLModel, table=True):
    """Read model: who may read a private line of table talk (a TableTalk with
    `to`), one row per seat: its sayer and each seat it was said to. A line with no
    rows is public (every line said before private lines existed)."""

    __tablename__ = "talk_readers"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    seat: int = Field(primary_key=True)


def core_table(model: type[SQLModel]) -> Table:
    """The Core table of a table model: its `__table__`, which SQLModel sets but
    does not declare to type checkers."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not a table model")
    return table


class Heartbeat(SQLModel, table=True):
    """The last sign of life of one process (`name`: "scheduler", "worker:HOST:PID",
    or a lease such as "lead:scheduler"): who (`holder`), when (`beat_at`, an ISO
    timestamp like every other), and what it said of itself (`state`). Readiness,
    `pbem doctor`, the metrics and the admin page read it; the leader lock of the
    scheduler is the row "lead:scheduler"."""

    __tablename__ = "heartbeats"

    name: str = Field(primary_key=True, max_length=200)
    holder: str = Field(max_length=200)
    beat_at: str = Field(max_length=40)
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class SweepRun(SQLModel, table=True):
    """One sweep of the scheduler: when it began, how long it took, what it found
    (`counts`: mails, time_outs, bots, reminders, failed ...) and, when it failed as a
    whole, why. The newest few hundred are kept."""

    __tablename__ = "sweep_runs"

    id: int | None = Field(default=None, primary_key=True)
    holder: str = Field(max_length=200)
    started_at: str = Field(max_length=40, index=True)
    seconds: float = 0.0
    counts: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    error: str | None = Field(default=None, max_length=2000)
