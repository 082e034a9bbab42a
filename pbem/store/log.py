"""Appending to and reading a game's event log inside a transaction, and checking
its hash chain."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, text

from pbem.events import (
    BY_TYPE,
    CHAIN,
    CHAIN_V2,
    GAME_CREATED,
    GENESIS,
    MOVES,
    RESOLVED,
    UNDO_DONE,
    VERSIONS,
    Envelope,
    EventError,
    chain_hash,
    new_salt,
    upcast,
)
from pbem.events import Event as Kind
from pbem.events.jsontext import json_text

from .database import Statement
from .tables import Event, core_table

EVENTS = core_table(Event)
BY_TYPE_INDEX = "ix_events_game_id_type_seq"  # (game_id, type, seq), see tables.Event
_INSERT = Statement(insert(EVENTS).values({c.name: bindparam(c.name) for c in EVENTS.c}))
# The reads of every history, mail and answer: prebuilt (see Statement).
_ONE = Statement(
    select(EVENTS).where(EVENTS.c.game_id == bindparam("g"), EVENTS.c.seq == bindparam("seq"))
)
_RANGE = Statement(
    select(EVENTS)
    .where(
        EVENTS.c.game_id == bindparam("g"),
        EVENTS.c.seq > bindparam("after"),
        EVENTS.c.seq <= bindparam("upto"),
    )
    .order_by(EVENTS.c.seq)
)
_BY_KEY = Statement(
    select(EVENTS).where(
        EVENTS.c.game_id == bindparam("g"), EVENTS.c.idempotency_key == bindparam("key")
    )
)
# Asked at every telling of a game's history, and most games have no undo: the seqs
# alone are read from the (game_id, type, seq) index (asked for whole rows, SQLite
# would walk the game's log by its primary key), and the few events by their seqs.
_UNDO_SEQS = Statement(
    select(EVENTS.c.seq).where(EVENTS.c.game_id == bindparam("g"), EVENTS.c.type == UNDO_DONE)
)


@functools.cache
def _of_types(types: tuple[str, ...]) -> Statement:
    """The events of these types, prebuilt once for each set of types asked."""
    return Statement(
        select(EVENTS)
        .where(
            EVENTS.c.game_id == bindparam("g"),
            EVENTS.c.type.in_([bindparam(f"t{n}", t) for n, t in enumerate(types)]),
        )
        .order_by(EVENTS.c.seq)
    )


@functools.cache
def _but(types: tuple[str, ...], dialect: str) -> Statement:
    """The events after..upto of every type this server knows but these, by the
    index on (game_id, type, seq): the events of the types left out are not read,
    however many there are. Each planner is led to that index, as it would rather
    walk the game's whole range by the primary key (already in seq order) and skip
    them one by one: SQLite is told the index (INDEXED BY, which Core does not write
    for it); PostgreSQL reads each type kept on its own (a plan made once for every
    game, the generic plan of a prepared statement, cannot tell the types apart)."""
    names = sorted(set(BY_TYPE) - set(types))
    if not all(name.isidentifier() for name in names):  # the code's names: never quoted
        raise ValueError(f"event types are names: {names}")
    columns = ", ".join(c.name for c in EVENTS.c)
    rest = "AND seq > :after AND seq <= :upto"
    if dialect == "sqlite":
        kept = ", ".join(f"'{name}'" for name in names)
        sql = (
            f"SELECT {columns} FROM events INDEXED BY {BY_TYPE_INDEX}"
            f" WHERE game_id = :g AND type IN ({kept}) {rest}"
        )
    else:
        sql = " UNION ALL ".join(
            f"SELECT {columns} FROM events WHERE game_id = :g AND type = '{name}' {rest}"
            for name in names
        )
    return Statement(text(f"{sql} ORDER BY seq").columns(*EVENTS.c))


_NO_END = 2**31 - 1  # the largest seq an INTEGER column holds


def append(
    conn: Connection,
    game_id: str,
    after: tuple[int, str],
    type: str,
    payload: dict[str, Any],
    actor: str,
    created_at: str,
    idempotency_key: str | None = None,
    *,
    chain: int = CHAIN,
) -> Envelope:
    """Add the event that follows `after` = (seq, hash) of the current head, hashed
    by the game's `chain` rule (version 2: with a fresh salt). Two writers racing
    for the same seq cannot both succeed: (game_id, seq) is unique."""
    seq, prev_hash = after
    payload = {**payload, "v": VERSIONS[type]}
    salt = new_salt() if chain == CHAIN_V2 else None
    digest = chain_hash(prev_hash, seq + 1, type, payload, actor, created_at, salt)
    event = Envelope(
        game_id, seq + 1, type, payload, actor, created_at, idempotency_key, prev_hash, digest, salt
    )
    _INSERT.run(conn, {**_row(event), "payload": json_text(event.payload)})
    return event


def start(
    conn: Connection,
    game_id: str,
    payload: dict[str, Any],
    actor: str,
    created_at: str,
    *,
    chain: int = CHAIN,
) -> Envelope:
    """The GameCreated event, seq 1: it sets the game's chain version for good."""
    at = (0, GENESIS)
    return append(conn, game_id, at, GAME_CREATED, payload, actor, created_at, chain=chain)


def _row(event: Envelope) -> dict[str, Any]:
    return {
        "game_id": event.game_id,
        "seq": event.seq,
        "type": event.type,
        "payload": event.payload,
        "actor": event.actor,
        "created_at": event.created_at,
        "idempotency_key": event.idempotency_key,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
        "salt": event.salt,
    }


def _envelope(row: Any, created: dict[str, Any]) -> Envelope:
    return Envelope(
        row.game_id,
        row.seq,
        row.type,
        upcast(row.type, row.payload, created),
        row.actor,
        row.created_at,
        row.idempotency_key,
        row.prev_hash,
        row.hash,
        row.salt,
    )


def created(conn: Connection, game_id: str) -> Envelope | None:
    row = _ONE.first(conn, {"g": game_id, "seq": 1})
    return None if row is None else _envelope(row, row.payload)


def created_payload(conn: Connection, game_id: str) -> dict[str, Any]:
    """The GameCreated payload of a game that has events."""
    event = created(conn, game_id)
    if event is None:
        raise LookupError(f"game {game_id} has no GameCreated event (seq 1)")
    return event.payload


def events(
    conn: Connection,
    game_id: str,
    *,
    after: int = 0,
    upto: int | None = None,
    but: tuple[str, ...] = (),
) -> list[Envelope]:
    """The game's events with after < seq <= upto, in order, payloads upcast; with
    `but`, leaving out the events of those types without reading them (and any of a
    type this server does not know)."""
    read = _but(tuple(sorted(but)), conn.dialect.name) if but else _RANGE
    rows = read.rows(
        conn, {"g": game_id, "after": after, "upto": _NO_END if upto is None else upto}
    )
    if not rows:
        return []
    first = rows[0].payload if rows[0].seq == 1 else created_payload(conn, game_id)
    return [_envelope(row, first) for row in rows]


def as_stored(conn: Connection, game_id: str) -> list[tuple[Any, Envelope | None]]:
    """Every event of the game in order, each as its stored row (the payload as
    hashed, not upcast) and as read back (None when this server cannot read it)."""
    rows = _RANGE.rows(conn, {"g": game_id, "after": 0, "upto": _NO_END})
    if not rows:
        return []
    first = rows[0].payload
    out: list[tuple[Any, Envelope | None]] = []
    for row in rows:
        try:
            out.append((row, _envelope(row, first)))
        except (EventError, LookupError, TypeError, ValueError):
            out.append((row, None))
    return out


def of_kinds(conn: Connection, game_id: str, kinds: tuple[type[Kind], ...]) -> list[Envelope]:
    """The game's events of these kinds only, in order, payloads upcast (a whole log
    read and decoded would cost a long game more than every move before it)."""
    rows = _of_types(tuple(k.TYPE for k in kinds)).rows(conn, {"g": game_id})
    if not rows:
        return []
    first = rows[0].payload if rows[0].seq == 1 else created_payload(conn, game_id)
    return [_envelope(row, first) for row in rows]


@functools.cache
def _last_of(types: tuple[str, ...], dialect: str) -> Statement:
    """The seq of the game's last event of these types (NULL when none): the
    largest of each type's last, one step down the (game_id, type, seq) index each,
    however many events of other types (talk) came after them. SQLite is told the
    index: it would rather walk the primary key back from the game's last event
    until one of the type, all the way when there is none."""
    if not all(name.isidentifier() for name in types):  # the code's names: never quoted
        raise ValueError(f"event types are names: {types}")
    table = f"events INDEXED BY {BY_TYPE_INDEX}" if dialect == "sqlite" else "events"
    lasts = " UNION ALL ".join(
        f"SELECT max(seq) AS seq FROM {table} WHERE game_id = :g AND type = '{name}'"
        for name in types
    )
    return Statement(text(f"SELECT max(seq) AS seq FROM ({lasts}) AS lasts").columns(EVENTS.c.seq))


def turn_began(conn: Connection, game_id: str, phase: bool = False) -> int:
    """The seq of the event the game's current turn began with: its start, the last
    move or the last undo (as the games row's `turn_started_at`). Events after it
    that leave the turn as it was (table talk, a mail preference, a vacation, an
    undo request) do not make another turn. With `phase` (a game of several seats
    at once), the last of the game's own resolutions: the seats' orders in between
    start nothing. 0 for a game with no events."""
    kinds = (RESOLVED,) if phase else MOVES
    began = _last_of((GAME_CREATED, *kinds, UNDO_DONE), conn.dialect.name)
    row = began.first(conn, {"g": game_id})
    return (row.seq if row is not None else None) or 0


def last_but(conn: Connection, game_id: str, kinds: tuple[type[Kind], ...]) -> int:
    """The seq of the game's last event of any kind this server knows but these (0
    when none): what a page that ignores these kinds last has to show."""
    kept = tuple(sorted(set(BY_TYPE) - {k.TYPE for k in kinds}))
    row = _last_of(kept, conn.dialect.name).first(conn, {"g": game_id})
    return (row.seq if row is not None else None) or 0


def undos(conn: Connection, game_id: str) -> list[Envelope]:
    """The game's UndoDone events, in order: what history must not show again."""
    seqs = [row.seq for row in _UNDO_SEQS.rows(conn, {"g": game_id})]
    if not seqs:
        return []
    found = conn.execute(
        select(EVENTS)
        .where(EVENTS.c.game_id == game_id, EVENTS.c.seq.in_(seqs))
        .order_by(EVENTS.c.seq)
    ).all()
    first = created_payload(conn, game_id)
    return [_envelope(row, first) for row in found]


def by_idempotency_key(conn: Connection, game_id: str, key: str) -> Envelope | None:
    row = _BY_KEY.first(conn, {"g": game_id, "key": key})
    if row is None:
        return None
    return _envelope(row, created_payload(conn, game_id))


def chain_version(conn: Connection, game_id: str) -> int:
    """The game's chain rule, as its events say: version 2 when its GameCreated has
    a salt, else 1 (0 for a game with no events)."""
    row = _ONE.first(conn, {"g": game_id, "seq": 1})
    return 0 if row is None else 1 if row.salt is None else CHAIN_V2


def chain_problems(conn: Connection, game_id: str) -> list[str]:
    """What is wrong with the stored chain: gaps, broken links, hashes that do not
    match the stored fields, an event salted against its chain's version (the
    version is its GameCreated's: salted is 2). Empty when the log is intact."""
    rows = _RANGE.rows(conn, {"g": game_id, "after": 0, "upto": _NO_END})
    problems = []
    prev = GENESIS
    salted = bool(rows) and rows[0].salt is not None
    for number, row in enumerate(rows, start=1):
        if row.seq != number:
            problems.append(f"seq {number} is missing (found {row.seq})")
            break
        if row.prev_hash != prev:
            problems.append(f"seq {row.seq}: its prev_hash is not the hash of seq {number - 1}")
        if (row.salt is not None) != salted:
            version = CHAIN_V2 if salted else 1
            problems.append(f"seq {row.seq}: its salt does not fit a version {version} chain")
        fields = (row.prev_hash, row.seq, row.type, row.payload, row.actor, row.created_at)
        if chain_hash(*fields, row.salt) != row.hash:
            problems.append(f"seq {row.seq}: the stored hash does not match its contents")
        prev = row.hash
    return problems
