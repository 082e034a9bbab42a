"""What a seat's person has seen, and the notices that would tell them nothing new.
The seat's own page (its session's) records how far it showed the game; when a
notice is claimed for delivery it is moot, and skipped, when the person has seen
what it tells on the page already (a chat line read live, a round's scores, an
undo request, a vacation, a turn played for them), except the turn notice of a
person who chose every turn; and every notice of a finished game is moot but its
game-over notice (and what is always sent: invitations, answers to a person's own
mail). Decided at delivery: the rows are written before the page is seen."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, and_, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.expression import Insert

from pbem.events import TABLE_TALK, mail_choices
from pbem.i18n import gettext as _
from pbem.store import talk
from pbem.store.log import EVENTS
from pbem.store.people import SeatSeen
from pbem.store.tables import core_table

from . import rows
from .errors import BadRequest
from .notices import Kind
from .rows import Record
from .unit import Context

SEEN = core_table(SeatSeen)
MOST = 2**31 - 1  # the largest seq an INTEGER column holds

# Told what the page shows: moot once the seat has seen the row's seq.
SHOWN_ON_THE_PAGE = frozenset(
    {
        Kind.YOUR_TURN,
        Kind.ROUND_SCORED,
        Kind.UNDO_REQUEST,
        Kind.UNDO_LAPSED,
        Kind.VACATION,
        Kind.TIMED_OUT,
    }
)
# What still goes once the game is over: its end, answers to a person's own mail,
# the resignation that ended it (written with the end) and a rematch offered after.
AFTER_THE_END = frozenset(
    {Kind.GAME_OVER, Kind.INVITATION, Kind.ANSWER, Kind.RESIGNED, Kind.REMATCH_OFFER}
)

_SEEN_BY = select(SEEN.c.seq).where(
    SEEN.c.game_id == bindparam("g"),
    SEEN.c.seat == bindparam("s"),
    SEEN.c.holder == bindparam("h"),
)
_STATE = select(
    rows.GAMES.c.status,
    rows.SEATS.c.mail,
    SEEN.c.seq.label("seen"),
).select_from(
    rows.GAMES.outerjoin(
        rows.SEATS,
        and_(rows.SEATS.c.game_id == rows.GAMES.c.id, rows.SEATS.c.seat == bindparam("s")),
    ).outerjoin(
        SEEN,
        and_(
            SEEN.c.game_id == rows.GAMES.c.id,
            SEEN.c.seat == bindparam("s"),
            SEEN.c.holder == bindparam("h"),
        ),
    )
)
_OTHERS_SAID = select(func.count()).where(
    EVENTS.c.game_id == bindparam("g"),
    EVENTS.c.type == TABLE_TALK,
    EVENTS.c.seq > bindparam("after"),
    EVENTS.c.actor != bindparam("speaker"),
    talk.readable(EVENTS.c.game_id, EVENTS.c.seq, bindparam("reader")),  # theirs to read
)


def saw(ctx: Context, game_id: str, token: str | None, seq: object) -> int:
    """The page of the seat of `token` showed its person the game up to `seq`:
    recorded for the seat's holder of now, never beyond the game's head (a larger
    seq is cut to it) and never going back. A seq that is no whole number from 0
    is refused; a token that opens no seat here is Forbidden. The seq recorded."""
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MOST:
        raise BadRequest(_("a seq is a whole number from 0"))
    with ctx.db.writing() as conn:
        row = ctx.row(conn, game_id)
        seat = ctx.seat_for(conn, rows.seats(conn, game_id), token)
        upto = min(seq, int(row.head_seq))
        params = {"g": game_id, "s": seat.seat, "h": seat.token_sha256}
        before = conn.execute(_SEEN_BY, params).scalar()
        if before is not None and before >= upto:
            return int(before)
        values = {
            "game_id": game_id,
            "seat": seat.seat,
            "holder": seat.token_sha256,
            "seq": upto,
            "seen_at": ctx.time(),
        }
        conn.execute(_upsert(conn), values)
    return upto


def _upsert(conn: Connection) -> Insert:
    """An INSERT of a seat's seen row that, where the seat has one, replaces it when
    its holder changed or its seq is lower (two pages at once never go back)."""
    made: Any = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert(SEEN)
    new = made.excluded
    keep = (SEEN.c.holder != new.holder) | (SEEN.c.seq < new.seq)
    statement: Insert = made.on_conflict_do_update(
        index_elements=[SEEN.c.game_id, SEEN.c.seat],
        set_={"holder": new.holder, "seq": new.seq, "seen_at": new.seen_at},
        where=keep,
    )
    return statement


def seen_by(conn: Connection, game_id: str, seat: int, holder: str | None) -> int:
    """How far the seat's holder `holder` (a token's hash) has seen the game on its
    page: a seq, 0 when not at all (or when the seat has changed hands since)."""
    if holder is None:
        return 0
    found = conn.execute(_SEEN_BY, {"g": game_id, "s": seat, "h": holder}).scalar()
    return int(found or 0)


def moot(conn: Connection, row: Record) -> str | None:
    """Why a claimed notice tells its reader nothing new (None: it goes): its game
    is over and it is not the game-over notice (nor one always sent), or the
    seat's page has shown what it tells. A turn notice goes when its reader chose
    every turn, whatever the page showed."""
    if row.game_id is None or row.kind not in Kind.__members__.values():
        return None  # not a game's notice, or one its channel refuses to write
    kind = Kind(row.kind)
    if kind in AFTER_THE_END:
        return None
    seat = row.seat if row.seat is not None else (row.payload or {}).get("seat")
    holder = (row.payload or {}).get("holder")
    state = conn.execute(_STATE.where(rows.GAMES.c.id == row.game_id), {"s": seat, "h": holder})
    found = state.first()
    if found is None:
        return None
    if found.status != "playing":
        return "the game is over: only its game-over notice goes"
    seen = int(found.seen or 0)
    if kind is Kind.CHAT:
        after = max(seen, int(row.seq or 0) - 1)
        params = {"g": row.game_id, "after": after, "speaker": f"seat:{seat}", "reader": seat}
        if not conn.execute(_OTHERS_SAID, params).scalar():
            return "the seat's page has shown every line this mail would carry"
        return None
    if kind not in SHOWN_ON_THE_PAGE or row.seq is None or seen < row.seq:
        return None
    if kind is Kind.YOUR_TURN and _every_turn(found.mail):
        return None
    return "the seat's page has shown what this notice tells"


def _every_turn(mail: str | None) -> bool:
    """Whether the seat's person chose a mail for every turn."""
    return mail_choices(mail or "every")["turn"] == "every"
