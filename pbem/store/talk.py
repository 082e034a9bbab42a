"""The lines of talk of a game, read a page at a time and counted: a chat's latest
lines before a seq (by the index on (game_id, type, seq), never the whole chat), and
the read model `talk_counts` (how many lines a chat holds, in all and by each
writer), brought up to each new line by the projection."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from pbem.events import TABLE_TALK, TALK, Envelope

from .database import Statement
from .log import EVENTS
from .tables import TalkCount, core_table

TALK_COUNTS = core_table(TalkCount)
EVERYONE = ""  # the writer of a chat's total
_NO_END = 2**31 - 1  # the largest seq an INTEGER column holds

# The latest lines of one type before a seq, newest first: an index range read
# backwards, as far as the limit.
_LATEST = Statement(
    select(EVENTS.c.seq, EVENTS.c.created_at, EVENTS.c.payload)
    .where(
        EVENTS.c.game_id == bindparam("g"),
        EVENTS.c.type == bindparam("t"),
        EVENTS.c.seq < bindparam("before"),
    )
    .order_by(EVENTS.c.seq.desc())
    .limit(bindparam("n"))
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
    conn: Connection, game_id: str, type: str, most: int, before: int | None = None
) -> list[tuple[int, str, dict[str, Any]]]:
    """The game's latest `most` lines of `type` with a seq below `before` (None: all
    lines), oldest first: seq, when, payload (as stored; the caller decodes it)."""
    found = _LATEST.rows(
        conn,
        {"g": game_id, "t": type, "before": _NO_END if before is None else before, "n": most},
    )
    return [(row.seq, row.created_at, row.payload) for row in reversed(found)]


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


def forget_all(conn: Connection) -> None:
    """Empty the read model (`pbem db rebuild` counts every line again)."""
    conn.execute(delete(TALK_COUNTS))
