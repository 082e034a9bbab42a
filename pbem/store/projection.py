"""The read models (games, seats, talk counts and readers) and checkpoint snapshots
as a function of the events: the service runs each new event through `project`, and
`rebuild` runs all of them, so both write the same rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from pbem.events import (
    CHAIN_V2,
    GAME_CREATED,
    LANGUAGE_CHOSEN,
    MAIL_PREFERENCE,
    MOVES,
    SEAT_REPLACED,
    SEAT_RESIGNED,
    TURN_TIMED_OUT,
    UNDO_ANSWERED,
    UNDO_DONE,
    UNDO_LAPSED,
    UNDO_REQUESTED,
    VACATION,
    Envelope,
    MailPreferenceChanged,
    parse_timestamp,
    timestamp,
)
from pbem.games import Rules, get

from . import log, talk
from .database import Statement, state_text
from .states import Folder, checkpoint, initial_state
from .tables import Game, Seat, Snapshot, core_table

GAMES, SEATS, SNAPSHOTS = core_table(Game), core_table(Seat), core_table(Snapshot)
_HEAD_COLUMNS = (
    "status",
    "turn",
    "round",
    "head_seq",
    "head_hash",
    "updated_at",
    "undo_request_seq",
    "engine_version",
    "state",
    "turn_started_at",
    "deadline_at",
)
_UPDATE_HEAD = Statement(
    update(GAMES)
    .where(GAMES.c.id == bindparam("g"))
    .values({name: bindparam(f"v_{name}") for name in _HEAD_COLUMNS})
)
_INSERT_GAME = insert(GAMES)
_INSERT_SEAT = insert(SEATS)
_SEAT = (SEATS.c.game_id == bindparam("g")) & (SEATS.c.seat == bindparam("s"))
_COUNT_TIMEOUT = update(SEATS).where(_SEAT).values(timeouts=SEATS.c.timeouts + 1)
_VACATION = Statement(select(SEATS.c.vacation_from, SEATS.c.vacation_until).where(_SEAT))
_AWAY = Statement(
    select(SEATS.c.seat, SEATS.c.vacation_from, SEATS.c.vacation_until).where(
        SEATS.c.game_id == bindparam("g"), SEATS.c.vacation_until.is_not(None)
    )
)
_WAITED = Statement(select(SEATS.c.seat).where(SEATS.c.game_id == bindparam("g"), SEATS.c.waiting))


Vacations = dict[int, tuple[str | None, str | None]]  # seat -> (vacation_from, vacation_until)


@dataclass
class Before:
    """What `project` needs of the game's row as it was before the event. `vacations`:
    the seats' vacations as the caller read them in this transaction, for the next
    event only (None: read them)."""

    options: dict[str, Any] = field(default_factory=dict)
    turn: int | None = None
    turn_started_at: str | None = None
    undo_request_seq: int | None = None
    vacations: Vacations | None = None
    # the seats the game waited on (seats.waiting), None when not known: written then
    waiting: frozenset[int] | None = None

    def after(self, head: dict[str, Any]) -> Before:
        return Before(
            self.options,
            head["turn"],
            head["turn_started_at"],
            head["undo_request_seq"],
            waiting=head["waiting"],
        )


def next_before(before: Before, event: Envelope, head: dict[str, Any]) -> Before:
    """The game's row as `event` left it (`head`, what `project` wrote), for the next
    event of the same transaction: a new game's options come with its creation."""
    if event.type == GAME_CREATED:
        before = Before(dict(event.payload["options"]))
    return before.after(head)


def project(
    conn: Connection, rules: Rules, event: Envelope, state: Any, *, before: Before, every: int
) -> dict[str, Any]:
    """Bring the game's rows up to `event`, whose resulting rules state is `state`;
    `before` is the game's row as it was. Returns the head columns written."""
    payload = event.payload
    if event.type == GAME_CREATED:
        before = Before(payload["options"])
        conn.execute(
            _INSERT_SEAT,
            [
                {
                    "game_id": event.game_id,
                    "seat": p["seat"],
                    "name": p["name"],
                    "email": p.get("email"),
                    "token_sha256": p["token_sha256"],
                    "token_nonce": p["token_nonce"],
                    "controller": p.get("controller", "human"),
                    "timeouts": 0,
                    "mail": "every",
                    "language": "en",
                    "vacation_days_used": 0,
                }
                for p in payload["players"]
            ],
        )
    else:
        _project_seat(conn, event)
        talk.count(conn, event)
        talk.note_readers(conn, event)
    turn = rules.to_move(state)
    waiting = rules.active(state)
    waited = before.waiting
    if waited is None and turn is None and waiting and event.type != GAME_CREATED:
        # several at once, and the caller did not know on whom the game waited: the
        # seats' rows say (the phase's clock must not start again at each move)
        waited = frozenset(r.seat for r in _WAITED.rows(conn, {"g": event.game_id}))
    if waiting != waited:
        _wait_on(conn, event.game_id, waiting)
    if turn is not None or not waiting:  # one seat at a time: every move starts a turn
        restarted = event.type in (GAME_CREATED, *MOVES, UNDO_DONE) or turn != before.turn
    else:  # several at once: the clock starts when a seat is newly waited on
        restarted = event.type in (GAME_CREATED, UNDO_DONE) or not waiting <= (
            waited or frozenset()
        )
    started = None if not waiting else event.created_at if restarted else before.turn_started_at
    head = {
        "status": "finished" if rules.over(state) else "playing",
        "turn": turn,
        "round": rules.round(state),
        "head_seq": event.seq,
        "head_hash": event.hash,
        "updated_at": event.created_at,
        "undo_request_seq": _undo_request(event, before.undo_request_seq),
        "engine_version": rules.version,
        "state": rules.dump_state(state),
        "turn_started_at": started,
        "deadline_at": _deadline(conn, event.game_id, turn, started, before, bool(waiting)),
    }
    if event.type == GAME_CREATED:
        conn.execute(
            _INSERT_GAME,
            {
                "id": event.game_id,
                "game": payload["game"],
                "created_at": event.created_at,
                "public": bool(payload["options"].get("public", False)),
                "options": payload["options"],
                "chain": 1 if event.salt is None else CHAIN_V2,
                "name": payload.get("name"),
                **head,
            },
        )
    else:
        values = {f"v_{k}": v for k, v in head.items()}
        _UPDATE_HEAD.run(conn, {"g": event.game_id, **values, "v_state": state_text(head["state"])})
    if event.seq % every == 0:
        checkpoint(conn, rules, event.game_id, event.seq, state)
    return {**head, "waiting": waiting}


def _wait_on(conn: Connection, game_id: str, waiting: frozenset[int]) -> None:
    """Mark the seats the game waits on now (seats.waiting), and only them."""
    now = SEATS.c.seat.in_(sorted(waiting))
    conn.execute(update(SEATS).where(SEATS.c.game_id == game_id).values(waiting=now))


def _project_seat(conn: Connection, event: Envelope) -> None:
    """What an event changes of one seat's row."""
    payload = event.payload
    changes: dict[str, Any] = {}
    if event.type == SEAT_REPLACED:
        fields = ("controller", "name", "email", "token_sha256", "token_nonce")
        changes = {k: payload[k] for k in fields if k in payload}
    elif event.type == SEAT_RESIGNED and payload["replaced_by"]:
        changes = {"controller": payload["replaced_by"]}
    elif event.type == MAIL_PREFERENCE:
        chosen = event.event
        assert isinstance(chosen, MailPreferenceChanged)
        changes = {"mail": chosen.column()}
    elif event.type == LANGUAGE_CHOSEN:
        changes = {"language": payload["language"]}
    elif event.type == VACATION:
        changes = {
            "vacation_from": event.created_at,
            "vacation_until": payload["until"],
            "vacation_days_used": SEATS.c.vacation_days_used + payload["days"],
        }
    elif event.type == TURN_TIMED_OUT:
        conn.execute(_COUNT_TIMEOUT, {"g": event.game_id, "s": payload["seat"]})
    if changes:
        seat = {"g": event.game_id, "s": payload["seat"]}
        conn.execute(update(SEATS).where(_SEAT).values(changes), seat)


def _deadline(
    conn: Connection,
    game_id: str,
    turn: int | None,
    started: str | None,
    before: Before,
    waiting: bool,
) -> str | None:
    """When the seat to move runs out of time: `hours_per_turn` after its turn
    started, plus however long its vacation stops the clock. In a phase of several
    seats at once (no `turn`) the phase has one clock for all of them, and any
    seat's vacation during it stops that clock: the deadline moves on by the
    longest stop, for everyone, and does not move back when the seat away orders
    early. None when there is no deadline, or one too far off to be written as a
    date (a game stored before its options had bounds): a move must never fail on
    its clock."""
    hours = before.options.get("hours_per_turn")
    if not waiting or hours is None or started is None:
        return None
    start = _moment(started)
    try:
        deadline = start + timedelta(hours=hours)
        if turn is None:
            aways = list(_vacations(conn, game_id, before).values())
        elif before.vacations is not None and turn in before.vacations:
            aways = [before.vacations[turn]]
        else:
            row = _VACATION.first(conn, {"g": game_id, "s": turn})
            aways = [] if row is None else [(row.vacation_from, row.vacation_until)]
        stops = [timedelta()]
        for paused_at, resumed_at in aways:
            if paused_at is None or resumed_at is None:
                continue
            paused, resumed = _moment(paused_at), _moment(resumed_at)
            if paused < deadline and resumed > start:
                stops.append(resumed - max(paused, start))
        return timestamp(deadline + max(stops))
    except (OverflowError, TypeError, ValueError):
        return None


def _vacations(conn: Connection, game_id: str, before: Before) -> Vacations:
    """Every seat's vacation (the caller's reading, else the seats' rows)."""
    if before.vacations is not None:
        return before.vacations
    return {r.seat: (r.vacation_from, r.vacation_until) for r in _AWAY.rows(conn, {"g": game_id})}


def _moment(text: str) -> datetime:
    """A stored timestamp (canonical UTC text, `timestamp`) as a moment: what
    `parse_timestamp` reads, fifty times faster."""
    if len(text) != 27 or not text.endswith("Z") or text[10] != "T":
        return parse_timestamp(text)  # not canonical: the strict reading, or its error
    return datetime.fromisoformat(text)


def _undo_request(event: Envelope, pending: int | None) -> int | None:
    """An undo request waits from its event until a refusal, the undo, its lapse
    (UndoLapsed) or a move (older logs have no lapse before the move); a mail
    preference, a vacation or a new holder of a seat leave it waiting."""
    if event.type == UNDO_REQUESTED:
        return event.seq
    if event.type == UNDO_ANSWERED:
        return pending if event.payload["agree"] else None
    if event.type in (*MOVES, UNDO_DONE, UNDO_LAPSED):
        return None
    return pending


def rebuild(conn: Connection, every: int) -> int:
    """Drop every read model and snapshot and recreate them from the events alone.
    The outbox is left as it is: recreating it would send every mail again.
    Returns the number of games rebuilt."""
    for table in (SNAPSHOTS, SEATS, GAMES):
        conn.execute(delete(table))
    talk.forget_all(conn)
    game_ids = (
        conn.execute(select(log.EVENTS.c.game_id).where(log.EVENTS.c.seq == 1)).scalars().all()
    )
    for game_id in game_ids:
        events = log.events(conn, game_id)
        rules = get(events[0].payload["game"])
        folder = Folder(rules, 1, initial_state(rules, events[0].payload))
        before = Before(events[0].payload["options"])
        for event in events:
            state = folder.push(event) if event.seq > 1 else folder.state
            head = project(conn, rules, event, state, before=before, every=every)
            before = next_before(before, event, head)
    return len(game_ids)
