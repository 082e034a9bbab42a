"""Appending to and reading a game's event log inside a transaction, and checking
its hash chain."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from .events import GAME_CREATED, GENESIS, VERSIONS, Envelope, event_hash, upcast
from .tables import Event


def append(
    session: Session,
    game_id: str,
    after: tuple[int, str],
    type: str,
    payload: dict[str, Any],
    actor: str,
    created_at: str,
    idempotency_key: str | None = None,
) -> Envelope:
    """Add the event that follows `after` = (seq, hash) of the current head. Two
    writers racing for the same seq cannot both succeed: (game_id, seq) is unique."""
    seq, prev_hash = after
    payload = {**payload, "v": VERSIONS[type]}
    digest = event_hash(prev_hash, seq + 1, type, payload, actor, created_at)
    session.add(
        Event(
            game_id=game_id,
            seq=seq + 1,
            type=type,
            payload=payload,
            actor=actor,
            created_at=created_at,
            idempotency_key=idempotency_key,
            prev_hash=prev_hash,
            hash=digest,
        )
    )
    session.flush()
    return Envelope(
        game_id, seq + 1, type, payload, actor, created_at, idempotency_key, prev_hash, digest
    )


def start(
    session: Session, game_id: str, payload: dict[str, Any], actor: str, created_at: str
) -> Envelope:
    """The GameCreated event, seq 1."""
    return append(session, game_id, (0, GENESIS), GAME_CREATED, payload, actor, created_at)


def _envelope(row: Event, created: dict[str, Any]) -> Envelope:
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
    )


def created(session: Session, game_id: str) -> Envelope | None:
    row = session.get(Event, (game_id, 1))
    return None if row is None else _envelope(row, row.payload)


def events(
    session: Session, game_id: str, *, after: int = 0, upto: int | None = None
) -> list[Envelope]:
    """The game's events with after < seq <= upto, in order, payloads upcast."""
    query = select(Event).where(Event.game_id == game_id, Event.seq > after)
    if upto is not None:
        query = query.where(Event.seq <= upto)
    rows = session.exec(query.order_by(col(Event.seq))).all()
    first = rows[0].payload if rows and rows[0].seq == 1 else None
    if first is None:
        head = created(session, game_id)
        first = head.payload if head else {}
    return [_envelope(row, first) for row in rows]


def by_idempotency_key(session: Session, game_id: str, key: str) -> Envelope | None:
    row = session.exec(
        select(Event).where(Event.game_id == game_id, Event.idempotency_key == key)
    ).first()
    if row is None:
        return None
    first = created(session, game_id)
    return _envelope(row, first.payload if first else {})


def chain_problems(session: Session, game_id: str) -> list[str]:
    """What is wrong with the stored chain: gaps, broken links, hashes that do not
    match the stored fields. Empty when the log is intact."""
    rows = session.exec(
        select(Event).where(Event.game_id == game_id).order_by(col(Event.seq))
    ).all()
    problems = []
    prev = GENESIS
    for number, row in enumerate(rows, start=1):
        if row.seq != number:
            problems.append(f"seq {number} is missing (found {row.seq})")
            break
        if row.prev_hash != prev:
            problems.append(f"seq {row.seq}: prev_hash does not match the hash of seq {number - 1}")
        digest = event_hash(
            row.prev_hash, row.seq, row.type, row.payload, row.actor, row.created_at
        )
        if digest != row.hash:
            problems.append(f"seq {row.seq}: the stored hash does not match its contents")
        prev = row.hash
    return problems
