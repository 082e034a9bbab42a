"""Signs of life: each process's heartbeat row, the leases that let one process lead
(the scheduler's leader lock), and the record of the scheduler's sweeps. Every
timestamp is the store's ISO text (pbem.events.timestamp), so rows compare as
text on SQLite and PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from pbem.events import parse_timestamp, timestamp

from .database import Database
from .tables import Heartbeat, SweepRun, core_table

HEARTBEATS = core_table(Heartbeat)
SWEEP_RUNS = core_table(SweepRun)
SWEEPS_KEPT = 500  # the newest sweeps kept in sweep_runs


@dataclass(frozen=True)
class Beat:
    """One process's last heartbeat."""

    name: str
    holder: str
    beat_at: datetime
    state: Mapping[str, Any]

    def age(self, now: datetime) -> timedelta:
        return now - self.beat_at


def beat(database: Database, name: str, holder: str, now: datetime, **state: Any) -> None:
    """Record that `name` (held by `holder`) is alive at `now`, saying `state`."""
    at = timestamp(now)
    with database.writing() as conn:
        changed = conn.execute(
            update(HEARTBEATS)
            .where(HEARTBEATS.c.name == name)
            .values(holder=holder, beat_at=at, state=state)
        ).rowcount
        if not changed:
            conn.execute(
                insert(HEARTBEATS).values(name=name, holder=holder, beat_at=at, state=state)
            )


def beats(database: Database, prefix: str = "") -> list[Beat]:
    """The heartbeats whose name starts with `prefix` (all by default), by name."""
    query = select(HEARTBEATS).order_by(HEARTBEATS.c.name)
    if prefix:
        query = query.where(HEARTBEATS.c.name.startswith(prefix, autoescape=True))
    with database.reading() as conn:
        found = conn.execute(query).all()
    return [Beat(r.name, r.holder, parse_timestamp(r.beat_at), r.state or {}) for r in found]


def last_beat(database: Database, name: str) -> Beat | None:
    """The heartbeat of `name`, or None when it never beat."""
    with database.reading() as conn:
        r = conn.execute(select(HEARTBEATS).where(HEARTBEATS.c.name == name)).first()
    return None if r is None else Beat(r.name, r.holder, parse_timestamp(r.beat_at), r.state or {})


def forget(database: Database, name: str, holder: str | None = None) -> None:
    """Remove the heartbeat of `name` (only while `holder` holds it, when given): a
    process that stops cleanly, or a lease given up."""
    condition = [HEARTBEATS.c.name == name]
    if holder is not None:
        condition.append(HEARTBEATS.c.holder == holder)
    with database.writing() as conn:
        conn.execute(delete(HEARTBEATS).where(*condition))


def take_lease(database: Database, name: str, holder: str, now: datetime, ttl: timedelta) -> bool:
    """Hold the lease `name` until `now + ttl`, if it is free, run out, or already
    `holder`'s; True when `holder` holds it now. One statement decides, so of two
    processes asking at once exactly one gets it."""
    until = timestamp(now + ttl)
    with database.writing() as conn:
        taken = conn.execute(
            update(HEARTBEATS)
            .where(
                HEARTBEATS.c.name == name,
                or_(HEARTBEATS.c.holder == holder, HEARTBEATS.c.beat_at < timestamp(now)),
            )
            .values(holder=holder, beat_at=until, state={"until": until})
        ).rowcount
        if taken:
            return True
        exists = conn.execute(select(HEARTBEATS.c.name).where(HEARTBEATS.c.name == name)).first()
        if exists is not None:
            return False
    try:
        with database.writing() as conn:
            conn.execute(
                insert(HEARTBEATS).values(
                    name=name, holder=holder, beat_at=until, state={"until": until}
                )
            )
    except IntegrityError:  # another process inserted it first: it holds the lease
        held = last_beat(database, name)
        return held is not None and held.holder == holder
    return True


def record_sweep(
    database: Database,
    holder: str,
    started: datetime,
    seconds: float,
    counts: Mapping[str, int],
    error: str | None = None,
) -> None:
    """Keep one sweep's record (and only the newest SWEEPS_KEPT)."""
    with database.writing() as conn:
        new_id = conn.execute(
            insert(SWEEP_RUNS)
            .values(
                holder=holder,
                started_at=timestamp(started),
                seconds=seconds,
                counts=dict(counts),
                error=None if error is None else error[:2000],
            )
            .returning(SWEEP_RUNS.c.id)
        ).scalar_one()
        if new_id % 50 == 0:  # now and then, not at every sweep
            conn.execute(delete(SWEEP_RUNS).where(SWEEP_RUNS.c.id <= new_id - SWEEPS_KEPT))


@dataclass(frozen=True)
class Sweep:
    """One recorded sweep."""

    id: int
    holder: str
    started_at: datetime
    seconds: float
    counts: Mapping[str, int]
    error: str | None


def sweeps(database: Database, limit: int = 50) -> list[Sweep]:
    """The newest `limit` sweeps, newest first."""
    with database.reading() as conn:
        found = conn.execute(select(SWEEP_RUNS).order_by(SWEEP_RUNS.c.id.desc()).limit(limit)).all()
    return [
        Sweep(r.id, r.holder, parse_timestamp(r.started_at), r.seconds, r.counts or {}, r.error)
        for r in found
    ]


def sweep_count(database: Database) -> int:
    """How many sweeps are on record."""
    with database.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(SWEEP_RUNS)).scalar_one())
