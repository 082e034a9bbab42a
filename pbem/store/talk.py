"""The lines of talk of a game, read a page at a time and counted: a chat's latest
lines before a seq (by the index on (game_id, type, seq), never the whole chat),
all of them or those one reader may read; the read model `talk_counts` (how many
lines a chat holds, in all and by each writer) and `talk_readers` (who may read a
private line), brought up to each new line by the projection."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, delete, exists, insert, or_, select, update
from sqlalchemy.sql.elements import ColumnElement

from pbem.events import TABLE_TALK, TALK, Envelope

from .database import Statement
from .log import EVENTS
from .tables import TalkCount, TalkReader, core_table

TALK_COUNTS = core_table(TalkCount)
TALK_READERS = core_table(TalkReader)
EVERYONE = ""  # the writer of a chat's total
ANYONE = -1  # `latest`'s reader of every line, private or not (the service's own counts)
_SPECTATOR = 0  # no seat: a spectator reads the public lines alone
_NO_END = 2**31 - 1  # the largest seq an INTEGER column holds


def readable(game_id: Any, seq: Any, reader: Any) -> ColumnElement[bool]:
    """SQL: whether the line at (`game_id`, `seq`) is one `reader` (a seat, 0 for a
    spectator) may read: a public line (no readers' rows), or a private one that
    has a row for that seat. Two steps down the primary key of `talk_readers`."""
    private = exists().where(TALK_READERS.c.game_id == game_id, TALK_READERS.c.seq == seq)
    theirs = exists().where(
        TALK_READERS.c.game_id == game_id,
        TALK_READERS.c.seq == seq,
        TALK_READERS.c.seat == reader,
    )
    return or_(~private, theirs)


# The latest lines of one type before a seq, newest first: an index range read
# backwards, as far as the limit; and the same of the lines one reader may read.
_LATEST_WHERE = (
    EVENTS.c.game_id == bindparam("g"),
    EVENTS.c.type == bindparam("t"),
    EVENTS.c.seq < bindparam("before"),
)
_LATEST = Statement(
    select(EVENTS.c.seq, EVENTS.c.created_at, EVENTS.c.payload)
    .where(*_LATEST_WHERE)
    .order_by(EVENTS.c.seq.desc())
    .limit(bindparam("n"))
)
_LATEST_READ = Statement(
    select(EVENTS.c.seq, EVENTS.c.created_at, EVENTS.c.payload)
    .where(*_LATEST_WHERE, readable(bindparam("g"), EVENTS.c.seq, bindparam("r")))
    .order_by(EVENTS.c.seq.desc())
    .limit(bindparam("n"))
)
_READERS = Statement(
    select(TALK_READERS.c.seq, TALK_READERS.c.seat)
    .where(TALK_READERS.c.game_id == bindparam("g"))
    .order_by(TALK_READERS.c.seq, TALK_READERS.c.seat)
)
_COUNTS = Statement(
    select(TALK_COUNTS.c.writer, TALK_COUNTS.c.lines).where(
        TALK_COUNTS.c.game_id == bindparam("g"),
        TALK_COUNTS.c.type == bindparam("t"),
        TALK_COUNTS.c.writer.in_([bindparam("everyone"), bindparam("w")]),
    )
)
_ONE_MORE = Statement(
    update(TALK_COUNTS)
    .where(
        TALK_COUNTS.c.game_id == bindparam("g"),
        TALK_COUNTS.c.type == bindparam("t"),
        TALK_COUNTS.c.writer == bindparam("w"),
    )
    .values(lines=TALK_COUNTS.c.lines + 1)
)
_FIRST = Statement(
    insert(TALK_COUNTS).values(
        game_id=bindparam("g"), type=bindparam("t"), writer=bindparam("w"), lines=1
    )
)
_HAS = Statement(
    select(TALK_COUNTS.c.writer).where(
        TALK_COUNTS.c.game_id == bindparam("g"),
        TALK_COUNTS.c.type == bindparam("t"),
        TALK_COUNTS.c.writer.in_([bindparam("everyone"), bindparam("w")]),
    )
)


def writer_of(type: str, payload: dict[str, Any]) -> str:
    """Who said a line, as `talk_counts` keys it: "seat:N" for a seat's line, "name:"
    and the name casefolded for a spectator's (Zoe and ZOE are one writer)."""
    if type == TABLE_TALK:
        return f"seat:{payload['seat']}"
    return "name:" + " ".join(str(payload["name"]).split()).casefold()


def latest(
    conn: Connection,
    game_id: str,
    type: str,
    most: int,
    before: int | None = None,
    reader: int | None = ANYONE,
) -> list[tuple[int, str, dict[str, Any]]]:
    """The game's latest `most` lines of `type` with a seq below `before` (None: all
    lines), oldest first: seq, when, payload (as stored; the caller decodes it). Of
    the lines `reader` may read: a seat, None for a spectator (the public lines),
    or ANYONE (every line)."""
    params = {"g": game_id, "t": type, "before": _NO_END if before is None else before, "n": most}
    if reader == ANYONE:
        found = _LATEST.rows(conn, params)
    else:
        chosen = _SPECTATOR if reader is None else reader
        found = _LATEST_READ.rows(conn, {**params, "r": chosen})
    return [(row.seq, row.created_at, row.payload) for row in reversed(found)]


def last_read(conn: Connection, game_id: str, reader: int | None) -> int:
    """The seq of the last line of table talk `reader` (a seat, None for a
    spectator) may read; 0 when there is none."""
    found = latest(conn, game_id, TABLE_TALK, 1, reader=reader)
    return found[-1][0] if found else 0


def counted(conn: Connection, game_id: str, type: str, writer: str) -> tuple[int, int]:
    """How many lines of `type` the game holds: in all, and by `writer`."""
    found = {
        row.writer: row.lines
        for row in _COUNTS.rows(conn, {"g": game_id, "t": type, "everyone": EVERYONE, "w": writer})
    }
    return found.get(EVERYONE, 0), found.get(writer, 0)


def count(conn: Connection, event: Envelope) -> None:
    """One more line of talk (`event`) in its chat's total and its writer's. The
    caller holds the game (its transaction appended the event), so no other writer
    adds a first row meanwhile."""
    if event.type not in TALK:
        return
    writer = writer_of(event.type, event.payload)
    params = {"g": event.game_id, "t": event.type, "everyone": EVERYONE, "w": writer}
    there = {row.writer for row in _HAS.rows(conn, params)}
    for who in (EVERYONE, writer):
        step = _ONE_MORE if who in there else _FIRST
        step.run(conn, {"g": event.game_id, "t": event.type, "w": who})


def note_readers(conn: Connection, event: Envelope) -> None:
    """A private line of table talk (`to` in its payload): a row for its sayer and
    for each seat it was said to. A public line, or any other event, writes none."""
    if event.type != TABLE_TALK or event.payload.get("to") is None:
        return
    seats = sorted({event.payload["seat"], *event.payload["to"]})
    conn.execute(
        insert(TALK_READERS),
        [{"game_id": event.game_id, "seq": event.seq, "seat": seat} for seat in seats],
    )


def readers(conn: Connection, game_id: str) -> dict[int, tuple[int, ...]]:
    """The game's private lines: each one's seq, and the seats that may read it."""
    found: dict[int, tuple[int, ...]] = {}
    for row in _READERS.rows(conn, {"g": game_id}):
        found[row.seq] = (*found.get(row.seq, ()), row.seat)
    return found


def forget_readers(conn: Connection, game_id: str) -> None:
    """Drop the game's rows of `talk_readers` (verify projects its events again)."""
    conn.execute(delete(TALK_READERS).where(TALK_READERS.c.game_id == game_id))


def forget_all(conn: Connection) -> None:
    """Empty the read models (`pbem db rebuild` counts every line again)."""
    conn.execute(delete(TALK_COUNTS))
    conn.execute(delete(TALK_READERS))
