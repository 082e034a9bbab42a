"""My games across games: the seats of an address, each game's clock (whose turn,
until when) for a seat, and the daily clean-up of what can no longer be used.
Signing in and out is `signing`; the deadline feeds are `feeds`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from pbem.events import TableTalk
from pbem.games.names import said_name
from pbem.store import log, talk

from . import history, joining, naming, options, queries, rows
from .addresses import address_key
from .feeds import prune as prune_feeds
from .sessions import prune as prune_sessions
from .signing import prune_links
from .tokens import seat_token
from .unit import Context


@dataclass(frozen=True)
class HeldSeat:
    """A seat of a person: the game, the seat and its current token."""

    game_id: str
    seat: int
    token: str


def seats_of(ctx: Context, address: str) -> list[HeldSeat]:
    """Every seat a person with this address holds now, oldest game first."""
    with ctx.reading() as conn:
        found = conn.execute(
            select(rows.SEATS.c.game_id, rows.SEATS.c.seat, rows.SEATS.c.token_nonce)
            .join(rows.GAMES, rows.GAMES.c.id == rows.SEATS.c.game_id)
            .where(
                func.lower(rows.SEATS.c.email) == address_key(address),
                rows.SEATS.c.controller == "human",
            )
            .order_by(rows.GAMES.c.created_at, rows.SEATS.c.seat)
        ).all()
    return [
        HeldSeat(r.game_id, r.seat, seat_token(ctx.key, r.game_id, r.seat, r.token_nonce))
        for r in found
    ]


def prune(ctx: Context) -> dict[str, int]:
    """Forget what can no longer be used, in one transaction: seat sessions that
    cannot open their seat (or whose sign-in ended), sign-ins that are over, stale
    sign-out links and requests, stale links to join a table, and the feeds left with
    no seat session. How many
    of each went."""
    now = ctx.clock()
    with ctx.db.writing() as conn:
        sessions = prune_sessions(conn, now)
        links = prune_links(conn, now)
        joins = joining.prune(conn, now)
        return {"seat_sessions": sessions, **links, "open_joins": joins, "feeds": prune_feeds(conn)}


def clock_of(ctx: Context, game_id: str, viewer: int | None = None) -> dict[str, Any]:
    """The game's status, seat to move (`waiting`: every seat the game waits on, of
    several at once too) and its deadline (UTC text or None), and `seq` and `tag`,
    the last event worth showing `viewer` (a seat, or None for a spectator): not a
    seat's private choices (so a poll tells no one else that one was made), nor,
    while the game is on, the spectators' chat on a player's page, nor a private
    line of table talk the viewer may not read."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        waiting = [s.seat for s in rows.seats(conn, game_id) if s.waiting]
        ignored = history.PRIVATE
        if viewer is not None and row.status == "playing":
            ignored = (*ignored, *history.OFF_THE_LOG)
        if options.press(row.options) != "private":  # a game with no private line
            shown = log.last_but(conn, game_id, ignored)
        else:
            shown = log.last_but(conn, game_id, (*ignored, TableTalk))
            shown = max(shown, talk.last_read(conn, game_id, viewer))
    return {
        "tag": f"seq-{shown}",
        "seq": shown,
        "status": row.status,
        "turn": row.turn,
        "waiting": waiting if row.status == "playing" else [],
        "round": row.round,
        "deadline": row.deadline_at if row.status == "playing" else None,
    }


def seat_summary(ctx: Context, game_id: str, seat: int) -> dict[str, Any]:
    """One game as the dashboard shows it to `seat`: whose turn, until when, the
    others' names, and the latest event the seat may be told of."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
    names = {s.seat: said_name(s.name) for s in seats}
    told = queries.history_of(ctx, game_id, seat)
    playing = row.status == "playing"
    return {
        "game_id": game_id,
        "game": row.game,
        "seat": seat,
        "name": names.get(seat, ""),
        "called": naming.label(row.name, names, seat),
        "opponents": [name for s, name in sorted(names.items()) if s != seat],
        "status": row.status,
        "round": row.round,
        "seq": row.head_seq,
        "turn": row.turn if playing else None,
        "turn_name": names.get(row.turn) if playing and row.turn is not None else None,
        "waiting": [s.seat for s in seats if s.waiting] if playing else [],
        "yours": playing and any(s.seat == seat and s.waiting for s in seats),
        "deadline": row.deadline_at if playing else None,
        "last": told[-1].text if told else "",
        "last_seq": told[-1].seq if told else 1,  # the last event the seat may be told of
    }


def urgency(summary: dict[str, Any]) -> tuple[int, str]:
    """The dashboard's order: my turn first, then games running, finished last;
    within each, the least time left first (no deadline after any deadline)."""
    rank = 0 if summary["yours"] else 1 if summary["status"] == "playing" else 2
    return rank, summary["deadline"] or "~"
