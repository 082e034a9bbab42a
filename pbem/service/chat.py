"""Table talk: a seat's line in the players' chat (TableTalk), a spectator's line in
the spectators' chat of a public game (SpectatorTalk), each one event through the
unit of work; and the lines a viewer may read. A chat line is checked here, whatever
way it came in (page, API, mail): one line of 1 to 500 printable characters, and a
few lines a minute per seat (per game for the spectators)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, select

from pbem.games import Game as Rules
from pbem.games import get
from pbem.i18n import gettext as _
from pbem.store.events import Envelope, decode, timestamp
from pbem.store.events.kinds import TALK_TYPES, SpectatorTalk, TableTalk
from pbem.store.log import EVENTS

from . import policy, queries, rows, visible
from .errors import BadRequest, Forbidden, TooMany
from .unit import Context, Tx

LONGEST = 500  # characters in a line, after trimming
SEAT_PER_MINUTE = 6  # lines one seat may say in a minute
SPECTATORS_PER_MINUTE = 20  # lines all the spectators of one game may say in a minute
SHOWN = 200  # the latest lines a chat panel shows
_BREAKS = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")


@dataclass(frozen=True)
class ChatLine:
    """One line as a viewer reads it: who said it (a seat's name, or a spectator's
    given name), when, and the text (blanked where it names what the viewer may not
    see)."""

    seq: int
    seat: int | None  # None: a spectator
    name: str
    text: str
    at: str

    def told(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "seat": self.seat,
            "name": self.name,
            "text": self.text,
            "at": self.at,
        }


def checked_text(text: object) -> str:
    """A chat line as stored: line breaks and tabs become one space, spaces at
    either end are trimmed, the rest is NFC; refused (BadRequest, saying why) when
    it is not text, is empty or longer than LONGEST, or shows nothing or hides
    something (`visible.check_line`: invisible, control and direction-changing
    characters outside emoji sequences, a combining mark with nothing to sit on)."""
    if not isinstance(text, str):
        raise BadRequest(_("a chat line is text"))
    line = " ".join(_BREAKS.sub(" ", unicodedata.normalize("NFC", text)).split(" ")).strip()
    line = re.sub(r" {2,}", " ", line)
    if not line:
        raise BadRequest(_("a chat line needs some text"))
    if len(line) > LONGEST:
        raise BadRequest(
            _(
                "a chat line is at most %(most)s characters; this one has %(length)s",
                most=LONGEST,
                length=len(line),
            )
        )
    visible.check_line(line)  # after the length: a long line is refused at once
    return line


def say(ctx: Context, game_id: str, token: str | None, text: object) -> Envelope:
    """The seat of `token` says `text` at the table (see `Service.say`)."""
    line = checked_text(text)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        said = _said_lately(ctx, tx.conn, row.id, TableTalk, seat)
        if said >= SEAT_PER_MINUTE:
            raise TooMany(
                _(
                    "at most %(most)s chat lines a minute: wait a moment and say it again",
                    most=SEAT_PER_MINUTE,
                )
            )
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        event = ctx.record(tx, rules, TableTalk(seat, line), f"seat:{seat}", state)
        policy.table_talk(tx, event.seq, seats, seat)
        return event


def spectator_says(ctx: Context, game_id: str, name: object, text: object) -> Envelope:
    """A spectator, by the name they give, says `text` on a public game's watch page
    (see `Service.spectator_says`)."""
    line = checked_text(text)
    given = _spectator_name(name)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        if not row.public:
            raise Forbidden(_("this game is private: only its players talk there"))
        visible.unlike(given, {s.seat: s.name for s in rows.seats(tx.conn, game_id)})
        said = _said_lately(ctx, tx.conn, row.id, SpectatorTalk, None)
        if said >= SPECTATORS_PER_MINUTE:
            raise TooMany(_("the spectators' chat of this game is busy: try again in a minute"))
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        return ctx.record(tx, rules, SpectatorTalk(given, line), "spectator", state)


def _spectator_name(name: object) -> str:
    """A spectator's name as a player's is kept (`visible.shown_name`: nothing
    invisible, no runs of spaces), 1 to 60 characters."""
    if not isinstance(name, str):
        raise BadRequest(_("a spectator gives a name to chat"))
    kept = visible.shown_name(name)
    if not 1 <= len(kept) <= 60:
        raise BadRequest(_("a spectator's name is 1 to 60 characters"))
    return kept


def _said_lately(
    ctx: Context,
    conn: Connection,
    game_id: str,
    kind: type[TableTalk | SpectatorTalk],
    seat: int | None,
) -> int:
    """How many lines of `kind` (by `seat`, for TableTalk) were said in the last minute."""
    since = timestamp(ctx.clock() - timedelta(minutes=1))
    lines = _lines(conn, game_id, kind, since)
    return sum(1 for _, _, line in lines if seat is None or getattr(line, "seat", None) == seat)


def _lines(
    conn: Connection, game_id: str, kind: type[TableTalk | SpectatorTalk], since: str = ""
) -> list[tuple[int, str, TableTalk | SpectatorTalk]]:
    """The game's lines of `kind` said after `since` (a stored timestamp), oldest
    first: seq, when, and the typed line. Only these rows are read, not the log."""
    found = conn.execute(
        select(EVENTS.c.seq, EVENTS.c.created_at, EVENTS.c.payload)
        .where(
            EVENTS.c.game_id == game_id,
            EVENTS.c.type == kind.TYPE,
            EVENTS.c.created_at > since,
        )
        .order_by(EVENTS.c.seq)
    ).all()
    lines = [(seq, at, decode(kind.TYPE, payload)) for seq, at, payload in found]
    return [(seq, at, line) for seq, at, line in lines if isinstance(line, TALK_TYPES)]


def table_talk(ctx: Context, game_id: str, viewer: int | None) -> list[ChatLine]:
    """The players' chat as `viewer` (a seat, or None for a spectator) reads it: the
    latest SHOWN lines, oldest first, each blanking what the viewer may not see."""
    censor = queries.censor(ctx, game_id, viewer)
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        names = {s.seat: s.name for s in rows.seats(conn, game_id)}
        said = _lines(conn, game_id, TableTalk)
    return [
        ChatLine(seq, line.seat, names.get(line.seat, "?"), censor(line.text), at)
        for seq, at, line in said[-SHOWN:]
        if isinstance(line, TableTalk)
    ]


def spectator_talk(ctx: Context, game_id: str, viewer: int | None) -> list[ChatLine]:
    """The spectators' chat: for spectators, and for the players once the game is
    over (while it runs they never read it); the latest SHOWN lines, oldest first."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if viewer is not None and row.status == "playing":
            return []
        said = _lines(conn, game_id, SpectatorTalk)
    return [
        ChatLine(seq, None, line.name, line.text, at)
        for seq, at, line in said[-SHOWN:]
        if isinstance(line, SpectatorTalk)
    ]


# -- the log file's "chat": the players' lines, each after the actions before it -----


def exported(
    ctx: Context, game_id: str, viewer: int | None, events: list[Envelope], moves: list[int]
) -> list[dict[str, object]]:
    """The players' chat for the log file: each line with its seat, its text (blanked
    for the viewer as the pages blank it) and `after`, how many of the file's actions
    came before it. The spectators' chat is not part of the game's record."""
    censor = queries.censor(ctx, game_id, viewer)
    return [
        {
            "after": sum(1 for seq in moves if seq < e.seq),
            "seat": e.payload["seat"],
            "text": censor(e.payload["text"]),
        }
        for e in events
        if e.type == TableTalk.TYPE
    ]


def imported(given: object, seats: int, actions: int) -> dict[int, list[TableTalk]]:
    """A log file's "chat" (optional: older files have none), checked line by line,
    as the lines to store after each number of actions."""
    if given is None:
        return {}
    if not isinstance(given, list):
        raise BadRequest('the log\'s "chat" is a list of {"after", "seat", "text"} lines')
    talk: dict[int, list[TableTalk]] = {}
    for number, entry in enumerate(given, start=1):
        entry = entry if isinstance(entry, dict) else {}
        after, seat = entry.get("after"), entry.get("seat")
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= actions:
            raise BadRequest(f'chat line {number}: "after" is a number of actions, 0 to {actions}')
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
            raise BadRequest(f'chat line {number}: "seat" is a seat, 1 to {seats}')
        try:
            text = checked_text(entry.get("text"))
        except BadRequest as error:
            raise BadRequest(f"chat line {number}: {error.message}") from None
        talk.setdefault(after, []).append(TableTalk(seat, text))
    return talk


def record(
    ctx: Context, tx: Tx, rules: Rules, lines: list[TableTalk], state: Any, actor: str
) -> None:
    """Store imported chat lines (no one is mailed: the game is new)."""
    for line in lines:
        ctx.record(tx, rules, line, actor, state)
