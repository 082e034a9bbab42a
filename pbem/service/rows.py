"""The service's reads and writes of the read models and the outbox, as prebuilt
Core statements (the hot path of every move)."""

from __future__ import annotations

from typing import Any, TypeAlias

from sqlalchemy import Connection, Row, bindparam, insert, select

from pbem.events.jsontext import json_text
from pbem.store.database import Statement
from pbem.store.tables import Game, Outbox, Seat, core_table

from .notices import Kind, kind_of

# A row read through Core: its columns by attribute, however many the query selects.
Record: TypeAlias = "Row[*tuple[Any, ...]]"

GAMES, SEATS, OUTBOX = core_table(Game), core_table(Seat), core_table(Outbox)
_GAME = select(*(c for c in GAMES.c if c.name != "state")).where(GAMES.c.id == bindparam("g"))
_GAME_LOCKED = _GAME.with_for_update()
_SEATS = select(SEATS).where(SEATS.c.game_id == bindparam("g")).order_by(SEATS.c.seat)
_ALL_GAMES = select(*(c for c in GAMES.c if c.name != "state")).order_by(GAMES.c.created_at)
_ADD_MAIL = insert(OUTBOX).returning(OUTBOX.c.id, sort_by_parameter_order=True)
_HOLDER = select(SEATS.c.token_sha256, SEATS.c.controller).where(
    SEATS.c.game_id == bindparam("g"), SEATS.c.seat == bindparam("s")
)
_LANGUAGE = select(SEATS.c.language).where(
    SEATS.c.game_id == bindparam("g"), SEATS.c.seat == bindparam("s")
)
# Every move reads these two: prebuilt, run on the driver connection (see Statement).
_GAME_ROW, _GAME_LOCKED_ROW, _SEAT_ROWS = (
    Statement(_GAME),
    Statement(_GAME_LOCKED),
    Statement(_SEATS),
)
_TOKEN_ELSEWHERE = select(SEATS.c.game_id).where(
    SEATS.c.token_sha256 == bindparam("digest"), SEATS.c.game_id != bindparam("g")
)


def game(conn: Connection, game_id: str, lock: bool = False) -> Record | None:
    """The game's row (without its state); `lock` serialises this game's writers."""
    found: Record | None = (_GAME_LOCKED_ROW if lock else _GAME_ROW).first(conn, {"g": game_id})
    return found


def seats(conn: Connection, game_id: str) -> list[Record]:
    """The game's seats in order (each row's columns by attribute)."""
    return _SEAT_ROWS.rows(conn, {"g": game_id})


def games(conn: Connection) -> list[Record]:
    return list(conn.execute(_ALL_GAMES).all())


def add_mails(conn: Connection, mails: list[dict[str, Any]]) -> list[int]:
    """Insert outbox rows; their ids, in order. The rows of `new_mail` (a move's
    notices) go one by one through a prebuilt statement, any other through Core."""
    if not mails:
        return []
    if all(mail.keys() == _MAIL_KEYS for mail in mails):
        return [
            _ADD_ONE_MAIL.rows(conn, {**mail, "payload": json_text(mail["payload"])})[0].id
            for mail in mails
        ]
    return list(conn.execute(_ADD_MAIL, mails).scalars())


def token_elsewhere(conn: Connection, digest: str, game_id: str) -> bool:
    """Whether a token with this hash opens a seat of another game."""
    return conn.execute(_TOKEN_ELSEWHERE, {"digest": digest, "g": game_id}).first() is not None


def new_mail(
    game_id: str | None,
    seq: int | None,
    kind: str,
    seat: int | None,
    to: str,
    payload: dict[str, Any],
    now: str,
    *,
    channel: str = "email",
    language: str = "en",
) -> dict[str, Any]:
    """An outbox row of a notice, due now: `kind` is a Kind (ValueError for any
    other, here where it is written, not at delivery), `to` the address on
    `channel`, written in `language`. A reminder carries its hours in the payload
    (`{"hours": h}`); they are its topic too, which tells two reminders of one turn
    apart."""
    checked = kind_of(kind)
    topic = ""
    if checked is Kind.REMINDER:
        hours = payload.get("hours")
        if isinstance(hours, bool) or not isinstance(hours, int | float):
            raise ValueError(f"a reminder's payload has its hours, not {hours!r}")
        topic = f"{hours:g}"
    return {  # the keys of _MAIL_KEYS
        "channel": channel,
        "game_id": game_id,
        "seq": seq,
        "kind": checked.value,
        "seat": seat,
        "topic": topic,
        "address": to,
        "language": language,
        "payload": payload,
        "status": "pending",
        "attempts": 0,
        "created_at": now,
        "next_attempt_at": now,
    }


_MAIL_KEYS = new_mail(None, None, "digest", None, "", {}, "").keys()
_ADD_ONE_MAIL = Statement(
    insert(OUTBOX).values({key: bindparam(key) for key in _MAIL_KEYS}).returning(OUTBOX.c.id)
)


def holder(conn: Connection, game_id: str, seat: int) -> str | None:
    """Who holds the seat now, as its token's hash (None for a bot, or no such seat):
    a mail records it, so that a link goes only to the holder it was written for."""
    found = conn.execute(_HOLDER, {"g": game_id, "s": seat}).first()
    if found is None or found.controller != "human":
        return None
    digest: str = found.token_sha256
    return digest


def language(conn: Connection, game_id: str, seat: int) -> str:
    """The language the seat's person reads their mails in ("en" for no such seat)."""
    found = conn.execute(_LANGUAGE, {"g": game_id, "s": seat}).scalar()
    return str(found) if found else "en"


def mail_exists(conn: Connection, mail: dict[str, Any]) -> bool:
    """Whether the outbox already has this notice: the same channel, game, kind,
    seq, seat and topic (the unique key)."""
    found = conn.execute(
        select(OUTBOX.c.id).where(
            OUTBOX.c.channel == mail.get("channel", "email"),
            OUTBOX.c.game_id == mail["game_id"],
            OUTBOX.c.seq == mail["seq"],
            OUTBOX.c.kind == mail["kind"],
            OUTBOX.c.seat == mail["seat"],
            OUTBOX.c.topic == mail.get("topic", ""),
        )
    ).first()
    return found is not None
