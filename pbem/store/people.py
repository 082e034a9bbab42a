"""The tables of the people around the games rather than of the games themselves:
public profiles, open tables and their join links, the devices told by Web Push,
and how far each seat's page has shown its person the game. The shared metadata
(and its naming convention) is pbem.store.tables'; importing this module adds its
tables to it (pbem.store.migrate and the migrations' env do)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field

from .tables import SQLModel


class Profile(SQLModel, table=True):
    """A person's public record, which they turned on (signed in to My games): the
    address it is of, the name it shows and the random `slug` of its page. Turning
    it off deletes the row, and the page answers 404 from then on."""

    __tablename__ = "profiles"

    address: str = Field(primary_key=True, max_length=320)
    slug: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=200)
    created_at: str = Field(max_length=32)


class OpenTable(SQLModel, table=True):
    """A game waiting for players, listed on the open tables page: not a game yet.
    `seats` are the seats taken (name, email, bot, language; the creator's first),
    `wanted` how many seats the game has; `version` moves at every change, so two
    people taking the last seat at once cannot both have it. Once full (or filled
    with bots) the game is made and `game_id` names it."""

    __tablename__ = "open_tables"
    __table_args__ = (Index(None, "status", "expires_at"),)

    id: str = Field(primary_key=True, max_length=32)
    game: str = Field(max_length=32)
    options: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    setup: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    seats: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    wanted: int
    creator: str = Field(max_length=320, index=True)  # the creator's address, lowercase
    status: str = Field(max_length=16)  # open, started or cancelled
    game_id: str | None = Field(default=None, max_length=32)
    version: int = 0
    created_at: str = Field(max_length=32)
    expires_at: str = Field(max_length=32)


class OpenJoin(SQLModel, table=True):
    """A mailed link that takes a seat at an open table: single-use and short-lived,
    its nonce kept as SHA-256 only, with the name and address it was asked for."""

    __tablename__ = "open_joins"

    id_sha256: str = Field(primary_key=True, max_length=64)  # the link's nonce
    table_id: str = Field(max_length=32, index=True)
    name: str = Field(max_length=200)
    address: str = Field(max_length=320)
    language: str = Field(default="en", max_length=8)
    created_at: str = Field(max_length=32)
    used_at: str | None = Field(default=None, max_length=32)


class PushSubscription(SQLModel, table=True):
    """A browser's Web Push subscription: where the push service takes pushes for it
    (`endpoint`) and the keys its pushes are encrypted to. It is for one seat, as
    long as the holder who asked holds it (`game_id`, `seat`, `holder`: the seat
    token's hash then), or for every seat of a signed-in address (`address`, in
    lower case). `scope` names the one of the two, and an endpoint is kept once per
    scope (by its SHA-256). It lasts as long as the browser's session that asked
    (`session_sha256`: the seat session's, or the sign-in's): "Forget my seat",
    signing out, or the sign-in's end stops it. Deleting the row ends it too."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("scope", "endpoint_sha256"),
        Index(None, "game_id", "seat"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(max_length=400, index=True)  # "seat:GAME:SEAT" or "address:ADDRESS"
    game_id: str | None = Field(default=None, max_length=32)
    seat: int | None = None
    holder: str | None = Field(default=None, max_length=64)
    address: str | None = Field(default=None, max_length=320, index=True)
    endpoint: str = Field(max_length=1024)
    endpoint_sha256: str = Field(max_length=64)
    p256dh: str = Field(max_length=100)  # base64url, as the browser gave it
    auth: str = Field(max_length=40)
    session_sha256: str = Field(max_length=64)  # seat_sessions.id_sha256, sign_ins.id_sha256
    created_at: str = Field(max_length=32)


class SeatSeen(SQLModel, table=True):
    """How far a seat's person has seen their game (`seq`): the last event their
    own page showed them, recorded when the page of the seat's session was shown
    or polled, never beyond the game's head, never going back. `holder` is the
    seat's holder it was seen by (their token's hash): a seat handed on starts
    unseen. A notice of what the seat has seen already is not sent."""

    __tablename__ = "seats_seen"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    holder: str = Field(max_length=64)
    seq: int = 0
    seen_at: str = Field(max_length=32)
