"""What the operator looks after, read from the database: games stuck past their
deadline, mails given up on (and putting one back to be sent again, as the same
message), the sweeps and the processes' heartbeats, seats a bot took over by the
replace policy, and every game verified a chunk at a time. Each list is bounded;
nothing here shows a seat token, hidden game state or a whole reply address."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, select, update

from pbem.events import SeatReplaced, parse_timestamp, timestamp
from pbem.i18n import gettext as _
from pbem.store import heartbeats
from pbem.store.database import Database
from pbem.store.tables import Event, core_table

from . import rows
from .errors import BadRequest, NotFound
from .service import Service
from .unit import BOT

GAMES, SEATS, OUTBOX, EVENTS = rows.GAMES, rows.SEATS, rows.OUTBOX, core_table(Event)
LISTED = 100  # the most rows one section of the admin page shows at a time
CHUNK = 200  # games verified per read of their ids
# The signature of a reply address (play+GAME.SEAT.SEQ.SIGNATURE@...), should a
# mail server's error repeat one: the rest of the address stays readable.
_SIGNATURE = re.compile(r"(?i)(\+[a-z2-7]{16}\.\d{1,3}\.\d{1,12}\.)[a-z2-7]{24}(@)")


def unsigned(text: str) -> str:
    """`text` with the signature of every reply address in it hidden."""
    return _SIGNATURE.sub(r"\1[hidden]\2", text)


# -- games --------------------------------------------------------------------------


@dataclass(frozen=True)
class StuckGame:
    id: str
    game: str
    turn: int | None
    round: int
    head_seq: int
    deadline_at: datetime
    late: timedelta  # how long past its deadline


def stuck_games(
    db: Database, now: datetime, sweep_seconds: int, *, page: int = 0
) -> list[StuckGame]:
    """Games in play whose deadline passed more than one sweep ago: the sweep should
    have timed them out (it skipped them, or it is not running). Longest late first."""
    before = timestamp(now - timedelta(seconds=sweep_seconds))
    query = (
        select(
            GAMES.c.id,
            GAMES.c.game,
            GAMES.c.turn,
            GAMES.c.round,
            GAMES.c.head_seq,
            GAMES.c.deadline_at,
        )
        .where(GAMES.c.status == "playing", GAMES.c.deadline_at < before)
        .order_by(GAMES.c.deadline_at, GAMES.c.id)
        .limit(LISTED)
        .offset(page * LISTED)
    )
    with db.reading() as conn:
        found = conn.execute(query).all()
    return [
        StuckGame(
            r.id,
            r.game,
            r.turn,
            r.round,
            r.head_seq,
            parse_timestamp(r.deadline_at),
            now - parse_timestamp(r.deadline_at),
        )
        for r in found
    ]


@dataclass(frozen=True)
class ReplacedSeat:
    game_id: str
    seat: int
    name: str
    controller: str  # the bot now playing it
    timeouts: int
    replaced_at: datetime | None  # when the seat was handed to the bot


_REPLACED = (
    select(EVENTS.c.created_at, EVENTS.c.payload)
    .where(EVENTS.c.game_id == bindparam("g"), EVENTS.c.type == SeatReplaced.TYPE)
    .order_by(EVENTS.c.seq.desc())
)


def replaced_seats(db: Database, *, page: int = 0) -> list[ReplacedSeat]:
    """Seats a bot plays because their person ran out of time too often (the replace
    policy: a bot seat that timed out), the games touched last first."""
    query = (
        select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.name, SEATS.c.controller, SEATS.c.timeouts)
        .join(GAMES, GAMES.c.id == SEATS.c.game_id)
        .where(SEATS.c.controller.startswith(BOT), SEATS.c.timeouts > 0)
        .order_by(GAMES.c.updated_at.desc(), SEATS.c.game_id, SEATS.c.seat)
        .limit(LISTED)
        .offset(page * LISTED)
    )
    found = []
    with db.reading() as conn:
        for r in conn.execute(query).all():
            events = conn.execute(_REPLACED, {"g": r.game_id}).all()
            at = next((e.created_at for e in events if e.payload.get("seat") == r.seat), None)
            found.append(
                ReplacedSeat(
                    r.game_id,
                    r.seat,
                    r.name,
                    r.controller,
                    r.timeouts,
                    None if at is None else parse_timestamp(at),
                )
            )
    return found


def game_ids(db: Database, after: str = "", limit: int = CHUNK) -> list[str]:
    """The next `limit` game ids after `after`, in order: every game with a first
    event or a games row (a game missing either is one verify reports)."""
    with db.reading() as conn:
        created = conn.execute(
            select(EVENTS.c.game_id)
            .where(EVENTS.c.game_id > after, EVENTS.c.seq == 1)
            .order_by(EVENTS.c.game_id)
            .limit(limit)
        ).scalars()
        listed = conn.execute(
            select(GAMES.c.id).where(GAMES.c.id > after).order_by(GAMES.c.id).limit(limit)
        ).scalars()
        return sorted({*created, *listed})[:limit]


def game_count(db: Database) -> int:
    """How many games have a games row (what a progress bar counts towards)."""
    with db.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(GAMES)).scalar_one())


def verify_every(
    service: Service, chunk: int = CHUNK, done: Callable[[int], None] | None = None
) -> Iterator[tuple[str, list[str]]]:
    """(game id, problems) of every game that is not sound, checking `chunk` games'
    ids at a time (never every id at once); `done(n)` is told after each chunk."""
    after = ""
    while ids := game_ids(service.db, after, chunk):
        for game_id in ids:
            try:
                problems = service.verify(game_id)
            except Exception as error:  # a game so broken verify cannot read it
                problems = [f"it cannot be verified: {type(error).__name__}: {error}"]
            if problems:
                yield game_id, problems
        if done is not None:
            done(len(ids))
        after = ids[-1]


# -- mail -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FailedMail:
    id: int
    channel: str
    kind: str
    game_id: str | None
    seat: int | None
    address: str
    attempts: int
    created_at: datetime
    error: str


def failed_mails(db: Database, *, page: int = 0) -> list[FailedMail]:
    """Mails given up on, newest first, each with its last error."""
    query = (
        select(
            OUTBOX.c.id,
            OUTBOX.c.channel,
            OUTBOX.c.kind,
            OUTBOX.c.game_id,
            OUTBOX.c.seat,
            OUTBOX.c.address,
            OUTBOX.c.attempts,
            OUTBOX.c.created_at,
            OUTBOX.c.last_error,
        )
        .where(OUTBOX.c.status == "failed")
        .order_by(OUTBOX.c.id.desc())
        .limit(LISTED)
        .offset(page * LISTED)
    )
    with db.reading() as conn:
        found = conn.execute(query).all()
    return [
        FailedMail(
            r.id,
            r.channel,
            r.kind,
            r.game_id,
            r.seat,
            unsigned(r.address),
            r.attempts,
            parse_timestamp(r.created_at),
            unsigned(r.last_error or ""),
        )
        for r in found
    ]


def retry_mail(db: Database, row_id: int, now: datetime) -> None:
    """Put a failed mail back: pending, due now, its attempts counted afresh, so the
    next sweep hands it to a worker. It keeps its delivery id: the same Message-ID
    as before. Refused for a row that is not failed (one being sent, or sent)."""
    with db.writing() as conn:
        changed = conn.execute(
            update(OUTBOX)
            .where(OUTBOX.c.id == row_id, OUTBOX.c.status == "failed")
            .values(status="pending", attempts=0, next_attempt_at=timestamp(now), last_error=None)
        ).rowcount
        if changed:
            return
        status = conn.execute(select(OUTBOX.c.status).where(OUTBOX.c.id == row_id)).scalar()
    if status is None:
        raise NotFound(_("there is no mail %(id)s", id=row_id))
    raise BadRequest(
        _(
            "mail %(id)s is %(status)s, not failed: only a failed mail is sent again",
            id=row_id,
            status=status,
        )
    )


# -- processes --------------------------------------------------------------------------


def sweeps(db: Database, limit: int = 20) -> list[heartbeats.Sweep]:
    """The newest sweeps, newest first."""
    return heartbeats.sweeps(db, limit)


def skipping_sweeps(db: Database, limit: int = LISTED) -> list[heartbeats.Sweep]:
    """Of the newest `limit` sweeps, those that skipped a game they could not sweep
    (the game's id and why are in the scheduler's log)."""
    return [s for s in heartbeats.sweeps(db, limit) if s.counts.get("failed_games", 0) > 0]


def processes(db: Database) -> list[heartbeats.Beat]:
    """Every process's heartbeat and every lease, by name."""
    return heartbeats.beats(db)
