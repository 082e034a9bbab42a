"""The metrics read from the database when Prometheus scrapes (a custom collector,
so every web process answers alike): games by status, the outbox's backlog by kind,
channel and status, the last sweep (its seconds, what it found, whether it failed),
the scheduler's heartbeat age and the workers alive by whether they reach their
broker. A few small grouped queries; labels are words from fixed sets, never a
game id or an address."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import datetime

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Connection, func, select

from pbem.events import parse_timestamp
from pbem.metrics import word
from pbem.store.database import Database
from pbem.store.heartbeats import HEARTBEATS, SWEEP_RUNS

from .health import worker_alive
from .rows import GAMES, OUTBOX

log = logging.getLogger(__name__)

# The outbox's rows still to go somewhere: due or retrying, being sent, held for a
# digest, or given up on (until someone looks).
BACKLOG = ("pending", "sending", "held", "failed")


class StoreGauges(Collector):
    """The database's gauges, read at each scrape."""

    def __init__(
        self, database: Database, clock: Callable[[], datetime], heartbeat_seconds: int = 15
    ) -> None:
        self.database = database
        self.clock = clock
        self.worker_alive = worker_alive(heartbeat_seconds)

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "pbem_database_up", "Whether the database answered this scrape's queries."
        )
        try:
            with self.database.engine.connect() as connection:
                found = list(self._read(connection, self.clock()))
        except Exception as error:
            log.warning("metrics: the database cannot be read: %s", type(error).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from found

    def _read(self, conn: Connection, now: datetime) -> Iterator[Metric]:
        games = GaugeMetricFamily(
            "pbem_games", "Games by game and status.", labels=["game", "status"]
        )
        for game, status, count in conn.execute(
            select(GAMES.c.game, GAMES.c.status, func.count()).group_by(
                GAMES.c.game, GAMES.c.status
            )
        ):
            games.add_metric([word(game), word(status)], count)
        yield games

        backlog = GaugeMetricFamily(
            "pbem_outbox_backlog",
            "Outbox notices not yet delivered (or given up on), by kind, channel and status.",
            labels=["kind", "channel", "status"],
        )
        for kind, channel, status, count in conn.execute(
            select(OUTBOX.c.kind, OUTBOX.c.channel, OUTBOX.c.status, func.count())
            .where(OUTBOX.c.status.in_(BACKLOG))
            .group_by(OUTBOX.c.kind, OUTBOX.c.channel, OUTBOX.c.status)
        ):
            backlog.add_metric([word(kind), word(channel), word(status)], count)
        yield backlog

        yield from _last_sweep(conn)
        yield from _heartbeats(conn, now, self.worker_alive)


def _last_sweep(conn: Connection) -> Iterator[Metric]:
    last = conn.execute(
        select(
            SWEEP_RUNS.c.started_at, SWEEP_RUNS.c.seconds, SWEEP_RUNS.c.counts, SWEEP_RUNS.c.error
        )
        .order_by(SWEEP_RUNS.c.id.desc())
        .limit(1)
    ).first()
    if last is None:
        return
    yield GaugeMetricFamily(
        "pbem_sweep_last_duration_seconds", "How long the last sweep took.", value=last.seconds
    )
    yield GaugeMetricFamily(
        "pbem_sweep_last_started_timestamp_seconds",
        "When the last sweep began (Unix time).",
        value=parse_timestamp(last.started_at).timestamp(),
    )
    yield GaugeMetricFamily(
        "pbem_sweep_last_failed",
        "1 when the last sweep failed as a whole.",
        value=0 if last.error is None else 1,
    )
    found = GaugeMetricFamily(
        "pbem_sweep_last_found", "What the last sweep found, by what.", labels=["what"]
    )
    for what, count in sorted((last.counts or {}).items()):
        if isinstance(count, int) and not isinstance(count, bool):
            found.add_metric([word(what)], count)
    yield found


def _heartbeats(conn: Connection, now: datetime, alive_seconds: int) -> Iterator[Metric]:
    rows = conn.execute(
        select(HEARTBEATS.c.name, HEARTBEATS.c.beat_at, HEARTBEATS.c.state).where(
            (HEARTBEATS.c.name == "scheduler")
            | HEARTBEATS.c.name.startswith("worker:", autoescape=True)
        )
    ).all()
    workers = {"ok": 0, "unreachable": 0}
    for name, beat_at, state in rows:
        age = (now - parse_timestamp(beat_at)).total_seconds()
        if name == "scheduler":
            yield GaugeMetricFamily(
                "pbem_scheduler_heartbeat_age_seconds",
                "Seconds since the scheduler's last heartbeat (it beats after every sweep).",
                value=age,
            )
        elif age <= alive_seconds:
            workers["ok" if (state or {}).get("broker") == "ok" else "unreachable"] += 1
    alive = GaugeMetricFamily(
        "pbem_workers",
        "Workers that beat lately (4 heartbeats, a minute at least), by whether they "
        "reach their broker.",
        labels=["broker"],
    )
    for broker, count in workers.items():
        alive.add_metric([broker], count)
    yield alive
