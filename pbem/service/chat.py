"""Table talk: a seat's line in the players' chat (TableTalk), to everyone or, as the
game's press rules allow (press.py), to some seats only; a spectator's line in the
spectators' chat of a public game (SpectatorTalk), each one event through the unit
of work; and the lines a viewer may read, a page at a time (a private line: its
sayer and addressees alone). A chat line is checked here, whatever way it came in
(page, API, mail): one line of 1 to 500 printable characters, a few lines a minute
per seat (per game for the spectators), and no more than the totals a game's chat
and one writer may reach (settings talk_lines_per_game, talk_lines_per_writer).
Every check reads a bounded number of rows, however long the chat."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection

from pbem.events import Envelope, decode, timestamp
from pbem.events.kinds import TALK_TYPES, SpectatorTalk, TableTalk
from pbem.games import Rules, get
from pbem.i18n import gettext as _
from pbem.i18n import ngettext
from pbem.store import talk

from . import history, options, policy, press, rows
from .errors import BadRequest, Forbidden, TooMany
from .unit import Context, Tx

LONGEST = 500  # characters in a line, after trimming
SEAT_PER_MINUTE = 6  # lines one seat may say in a minute
SPECTATORS_PER_MINUTE = 20  # lines all the spectators of one game may say in a minute
SHOWN = 200  # the lines a chat panel shows at a time (the latest, or those before a seq)
LAST_SEQ = 2**31 - 1  # the largest seq stored
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
    to: tuple[int, ...] | None = None  # a private line's addressees (None: everyone)
    to_said: str = ""  # ...named for the viewer: "Ben and you"

    def told(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "seat": self.seat,
            "name": self.name,
            "text": self.text,
            "at": self.at,
            "to": None if self.to is None else list(self.to),
        }


class ChatPage(list[ChatLine]):
    """The lines one page of a chat shows, oldest first; `earlier` is the seq to
    ask for the lines before them (`before=`), None when there are none."""

    def __init__(self, lines: list[ChatLine], earlier: int | None) -> None:
        super().__init__(lines)
        self.earlier = earlier


def checked_text(text: object) -> str:
    """A chat line as stored: line breaks and tabs become one space, spaces at
    either end are trimmed, the rest is NFC; refused (BadRequest, saying why) when
    it is not text, is empty or longer than LONGEST, or shows nothing or hides
    something (`visible.check_line`: invisible, control and direction-changing
    characters outside emoji sequences, a combining mark with nothing to sit on)."""
    from . import visible  # ICU: loaded at the first text to check

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


def say(ctx: Context, game_id: str, token: str | None, text: object, to: object = None) -> Envelope:
    """The seat of `token` says `text` at the table, to everyone (`to` None) or to
    the seats listed in `to` (see `Service.say`)."""
    line = checked_text(text)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        seats = rows.seats(tx.conn, game_id)
        seat = ctx.seat_for(tx.conn, seats, token).seat
        rules_of_press = options.press(row.options)
        said_to = press.addressees(rules_of_press, row.status == "playing", to, seat, seats)
        window = SEAT_PER_MINUTE * len(seats)  # every seat's lines of the last minute
        if _said_lately(ctx, tx.conn, row.id, TableTalk, window, seat) >= SEAT_PER_MINUTE:
            raise TooMany(
                _(
                    "at most %(most)s chat lines a minute: wait a moment and say it again",
                    most=SEAT_PER_MINUTE,
                )
            )
        said = TableTalk(seat, line, said_to)
        _room(ctx, tx.conn, row.id, said)
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        event = ctx.record(tx, rules, said, f"seat:{seat}", state)
        policy.table_talk(tx, event.seq, seats, seat, said_to)
        return event


def spectator_says(ctx: Context, game_id: str, name: object, text: object) -> Envelope:
    """A spectator, by the name they give, says `text` on a public game's watch page
    (see `Service.spectator_says`)."""
    from . import visible  # ICU: loaded at the first text to check

    line = checked_text(text)
    given = _spectator_name(name)
    with ctx.transaction() as tx:
        row = ctx.open(tx, game_id)
        if not row.public:
            raise Forbidden(_("this game is private: only its players talk there"))
        if not options.spectators_talk(row.options):
            raise Forbidden(_("the spectators' chat of this game is off: its creator chose so"))
        visible.unlike(given, {s.seat: s.name for s in rows.seats(tx.conn, game_id)})
        window = SPECTATORS_PER_MINUTE
        if _said_lately(ctx, tx.conn, row.id, SpectatorTalk, window) >= SPECTATORS_PER_MINUTE:
            raise TooMany(_("the spectators' chat of this game is busy: try again in a minute"))
        _room(ctx, tx.conn, row.id, SpectatorTalk(given, line))
        rules = get(row.game)
        state = ctx.state(tx.conn, rules, row)
        return ctx.record(tx, rules, SpectatorTalk(given, line), "spectator", state)


def _spectator_name(name: object) -> str:
    """A spectator's name as a player's is kept (`visible.shown_name`: nothing
    invisible, no runs of spaces), 1 to 60 characters."""
    from . import visible  # ICU: loaded at the first text to check

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
    window: int,
    seat: int | None = None,
) -> int:
    """How many of the chat's last `window` lines of `kind` (by `seat`, for
    TableTalk) were said in the last minute. Lines come in order of time, so the
    last minute's are the last lines: `window` is as many as a minute may hold."""
    since = timestamp(ctx.clock() - timedelta(minutes=1))
    return sum(
        1
        for _, at, payload in talk.latest(conn, game_id, kind.TYPE, window)
        if at > since and (seat is None or payload.get("seat") == seat)
    )


def _room(ctx: Context, conn: Connection, game_id: str, line: TableTalk | SpectatorTalk) -> None:
    """Refuse a line (TooMany, with `detail.total`: waiting does not help) once its
    chat holds the lines a game's chat may hold, or its writer has said as many as
    one writer may: two counted rows, however long the chat."""
    payload = {"seat": line.seat} if isinstance(line, TableTalk) else {"name": line.name}
    writer = talk.writer_of(line.TYPE, payload)
    total, own = talk.counted(conn, game_id, line.TYPE, writer)
    per_game, per_writer = ctx.settings.talk_lines_per_game, ctx.settings.talk_lines_per_writer
    chat = "table" if isinstance(line, TableTalk) else "spectators"
    if total >= per_game:
        message = (
            ngettext(
                "the table talk of this game holds %(num)d line, the most a game keeps:"
                " nothing more can be said here",
                "the table talk of this game holds %(num)d lines, the most a game keeps:"
                " nothing more can be said here",
                per_game,
            )
            if chat == "table"
            else ngettext(
                "the spectators' chat of this game holds %(num)d line, the most a game"
                " keeps: nothing more can be said here",
                "the spectators' chat of this game holds %(num)d lines, the most a game"
                " keeps: nothing more can be said here",
                per_game,
            )
        )
        raise TooMany(message, {"total": per_game, "chat": chat, "of": "game"})
    if own >= per_writer:
        message = (
            ngettext(
                "you have said %(num)d line at this table, the most one seat may say in a game",
                "you have said %(num)d lines at this table, the most one seat may say in a game",
                per_writer,
            )
            if isinstance(line, TableTalk)
            else ngettext(
                "the name %(name)s has said %(num)d line here, the most one name may say in a game",
                "the name %(name)s has said %(num)d lines here, the most one name may say"
                " in a game",
                per_writer,
                name=line.name,
            )
        )
        raise TooMany(message, {"total": per_writer, "chat": chat, "of": "writer"})


def checked_before(before: object) -> int | None:
    """The seq a page of talk ends before, as asked (`?before=` on a page, the
    API's cursor): None, or a whole number from 1; BadRequest otherwise."""
    if before is None:
        return None
    if isinstance(before, str) and before.isascii() and before.isdigit() and len(before) <= 10:
        before = int(before)
    if isinstance(before, bool) or not isinstance(before, int) or not 1 <= before <= LAST_SEQ:
        raise BadRequest(_("before is a seq: a whole number from 1"))
    return before


def _page(
    conn: Connection,
    game_id: str,
    kind: type[TableTalk | SpectatorTalk],
    before: int | None,
    reader: int | None = talk.ANYONE,
) -> tuple[list[tuple[int, str, TableTalk | SpectatorTalk]], int | None]:
    """The SHOWN lines of `kind` before seq `before` (None: the latest) that `reader`
    may read (talk.latest), oldest first, each with its seq and time, and the seq to
    ask for earlier ones (None: there are none). One more line than shown is read,
    to know whether there are."""
    found = talk.latest(conn, game_id, kind.TYPE, SHOWN + 1, before, reader)
    earlier = found[-SHOWN][0] if len(found) > SHOWN else None
    lines = [(seq, at, decode(kind.TYPE, payload)) for seq, at, payload in found[-SHOWN:]]
    return [(seq, at, line) for seq, at, line in lines if isinstance(line, TALK_TYPES)], earlier


def table_talk(ctx: Context, game_id: str, viewer: int | None, before: object = None) -> ChatPage:
    """The players' chat as `viewer` (a seat, or None for a spectator) reads it: the
    SHOWN lines before seq `before` (None: the latest) of those they may read (the
    public lines, and the private lines they said or that were said to them),
    oldest first, each as it was said: a person's words are never blanked (what
    a server blanked would tell the reader which words it hides)."""
    ending = checked_before(before)
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        names = {s.seat: s.name for s in rows.seats(conn, game_id)}
        # only a game of private press holds private lines: the others' pages read
        # their lines as they always did (and skip none)
        private = options.press(row.options) == "private"
        reader = viewer if private else talk.ANYONE
        said, earlier = _page(conn, game_id, TableTalk, ending, reader)
    who = history.Who(names, viewer)
    return ChatPage(
        [
            ChatLine(
                seq,
                line.seat,
                names.get(line.seat, "?"),
                line.text,
                at,
                line.to,
                "" if line.to is None else who.everyone(line.to),
            )
            for seq, at, line in said
            if isinstance(line, TableTalk) and history.reads(line, viewer)
        ],
        earlier,
    )


def spectator_talk(
    ctx: Context, game_id: str, viewer: int | None, before: object = None
) -> ChatPage:
    """The spectators' chat: for spectators, and for the players once the game is
    over (while it runs they never read it); the SHOWN lines before seq `before`
    (None: the latest), oldest first."""
    ending = checked_before(before)
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if viewer is not None and row.status == "playing":
            return ChatPage([], None)
        said, earlier = _page(conn, game_id, SpectatorTalk, ending)
    return ChatPage(
        [
            ChatLine(seq, None, line.name, line.text, at)
            for seq, at, line in said
            if isinstance(line, SpectatorTalk)
        ],
        earlier,
    )


# -- the log file's "chat": the players' lines, each after the actions before it -----


def exported(
    ctx: Context, game_id: str, viewer: int | None, events: list[Envelope], moves: list[int]
) -> list[dict[str, object]]:
    """The players' chat for the log file, the lines the viewer may read: each with
    its seat, its text as said, `after`, how
    many of the file's actions came before it, and for a private line `to`, the
    seats it was said to. The spectators' chat is not part of the game's record."""
    lines: list[dict[str, object]] = []
    for e in events:
        line = e.event if e.type == TableTalk.TYPE else None
        if isinstance(line, TableTalk) and history.reads(line, viewer):
            after = sum(1 for seq in moves if seq < e.seq)
            told = {"after": after, "seat": line.seat, "text": line.text}
            lines.append(told if line.to is None else {**told, "to": list(line.to)})
    return lines


def imported(
    given: object, seats: int, actions: int, most: tuple[int, int]
) -> dict[int, list[TableTalk]]:
    """A log file's "chat" (optional: older files have none), checked line by line,
    as the lines to store after each number of actions (a line with `to`, the seats
    it was said to, is private); `most` is the lines a game's chat and one seat may
    hold (the settings), as for lines said."""
    if given is None:
        return {}
    if not isinstance(given, list):
        raise BadRequest('the log\'s "chat" is a list of {"after", "seat", "text"} lines')
    per_game, per_seat = most
    if len(given) > per_game:
        raise BadRequest(f'the log\'s "chat" has {len(given)} lines; a game holds {per_game}')
    said: dict[int, list[TableTalk]] = {}
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
        to = entry.get("to")  # a private line: the other seats it was said to
        if to is not None and not (_seats(to, seats) and set(to) - {seat}):
            raise BadRequest(f'chat line {number}: "to" lists other seats, 1 to {seats}')
        kept = None if to is None else tuple(sorted(set(to) - {seat}))
        said.setdefault(after, []).append(TableTalk(seat, text, kept))
    by_seat = Counter(line.seat for lines in said.values() for line in lines)
    for seat, count in sorted(by_seat.items()):
        if count > per_seat:
            raise BadRequest(
                f'the log\'s "chat" has {count} lines of seat {seat}; one seat says {per_seat}'
            )
    return said


def _seats(given: object, seats: int) -> bool:
    """Whether a log's `to` is a list of seats of a game of `seats` seats."""
    return isinstance(given, list) and all(
        isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= seats for s in given
    )


def record(
    ctx: Context, tx: Tx, rules: Rules, lines: list[TableTalk], state: Any, actor: str
) -> None:
    """Store imported chat lines (no one is mailed: the game is new)."""
    for line in lines:
        ctx.record(tx, rules, line, actor, state)
