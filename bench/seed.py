"""Games stored in bulk for the sweep benchmark: real games made through the service
as templates, then copied straight into the read models (games, seats), the event
log (each game in play keeps its GameCreated event, which a reminder reads) and the
outbox, with new ids, new seat tokens and their own deadlines. PostgreSQL takes the
rows by COPY, SQLite by executemany, a batch at a time.

The mix of the games in play (fractions of `playing`):

| share | what | the sweep |
|---|---|---|
| 64% | idle: a person to move, deadline 25 to 72 hours away | finds nothing |
| 30% | reminded: deadline 1 to 24 hours away, its reminder already sent | nothing new |
| 1% | a reminder due and not sent yet | queues it (the first sweep) |
| 2% | past their deadline | a timeout each |
| 3% | a bot to move | a bot turn each |

and 0.5% of them have a turn mail due in the outbox. Each game in play has its
invitations and first turn mail as sent rows; a finished game has two seats, no
deadline and four sent outbox rows (its events are left out: the sweep never reads
a finished game's log)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text

from pbem.config import load_settings
from pbem.events import timestamp
from pbem.service import PlayerSpec, Service
from pbem.store import log
from pbem.store.database import Database

BATCH = 20_000
MIX = (  # (share of the games in play, kind)
    (0.64, "idle"),
    (0.30, "reminded"),
    (0.01, "remind"),
    (0.02, "due"),
    (0.03, "bot"),
)
MAIL_DUE = 0.005


@dataclass
class Template:
    game: dict[str, Any]
    seats: list[dict[str, Any]]
    events: list[dict[str, Any]]
    outbox: list[dict[str, Any]]
    began: int  # the seq the turn began with (a reminder's seq)


def _rows(conn: Any, table: str, game_id: str) -> list[dict[str, Any]]:
    key = "id" if table == "games" else "game_id"
    found = conn.execute(text(f"SELECT * FROM {table} WHERE {key} = :g"), {"g": game_id})
    return [dict(r) for r in found.mappings()]


def templates(database: Database, now: datetime) -> dict[str, Template]:
    """Two real games (two people; a greedy bot to move, then a person), made by the
    service at `now`, whose rows the copies start from."""
    settings = load_settings({}, database_url=database.url, secret_key="bench-secret")
    service = Service(database, settings, lambda: now)
    made = {
        "human": service.create_game(
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
        ),
        "bot": service.create_game(
            [PlayerSpec("Robo", bot="greedy"), PlayerSpec("Ann", "ann@example.com")]
        ),
    }
    found = {}
    with database.engine.connect() as conn:
        for name, created in made.items():
            game_id = created.game_id
            found[name] = Template(
                *(_rows(conn, t, game_id) for t in ("games", "seats", "events", "outbox")),
                began=log.turn_began(conn, game_id),
            )
            found[name].game = found[name].game[0]
    return found


class Seeder:
    """Writes copies of the templates, `playing` in the mix above plus `finished`."""

    def __init__(self, database: Database, now: datetime, seed: int = 1) -> None:
        self.db = database
        self.now = now
        self.random = random.Random(seed)
        self.templates = templates(database, now)
        self.counts = {"games": 0, "seats": 0, "events": 0, "outbox": 0}

    def _at(self, hours: float) -> str:
        return timestamp(self.now + timedelta(hours=hours))

    def _kinds(self, playing: int) -> Iterator[str]:
        shares = [share for share, _ in MIX]
        kinds = [kind for _, kind in MIX]
        for _ in range(playing):
            yield self.random.choices(kinds, shares)[0]

    def add(self, prefix: str, playing: int = 0, finished: int = 0) -> None:
        """`playing` games in the mix and `finished` games, ids starting `prefix`."""
        games: list[dict[str, Any]] = []
        seats: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        outbox: list[dict[str, Any]] = []

        def flush(force: bool = False) -> None:
            if force or len(games) >= BATCH:
                self._write(games, seats, events, outbox)
                for batch in (games, seats, events, outbox):
                    batch.clear()

        kinds = list(self._kinds(playing)) + ["finished"] * finished
        for n, kind in enumerate(kinds):
            game_id = f"{prefix}{n:010d}"
            self._game(game_id, n, kind, games, seats, events, outbox)
            flush()
        flush(True)

    def _game(
        self,
        game_id: str,
        n: int,
        kind: str,
        games: list[dict[str, Any]],
        seats: list[dict[str, Any]],
        events: list[dict[str, Any]],
        outbox: list[dict[str, Any]],
    ) -> None:
        t = self.templates["bot" if kind == "bot" else "human"]
        hours = {
            "idle": self.random.uniform(25, 72),
            "reminded": self.random.uniform(1, 23.5),
            "remind": self.random.uniform(1, 23.5),
            "due": -self.random.uniform(0.01, 48),
            "bot": self.random.uniform(1, 72),
            "finished": None,
        }[kind]
        started = self._at(-self.random.uniform(0, 48))
        game = {**t.game, "id": game_id, "created_at": started, "updated_at": started}
        if hours is None:
            game.update(status="finished", turn=None, deadline_at=None, turn_started_at=None)
        else:
            game.update(deadline_at=self._at(hours), turn_started_at=started)
        games.append(game)
        for seat in t.seats:
            token = f"{n:032x}{seat['seat']:08x}{game_id[:4].encode().hex():>24}"[:64]
            seats.append({**seat, "game_id": game_id, "token_sha256": token})
        if hours is not None:
            events.extend({**e, "game_id": game_id} for e in t.events)
        mails = [dict(m) for m in t.outbox]
        for mail in mails:
            mail.update(status="sent", sent_at=started, created_at=started)
            mail.update(next_attempt_at=started, attempts=1, delivery_id=f"<{game_id}.x@bench>")
        if kind == "finished":
            mails.append({**mails[-1], "kind": "game_over", "seq": 99})
        if kind == "reminded":
            ann = mails[-1]
            mails.append({**ann, "kind": "reminder", "topic": "24", "seq": t.began})
        if kind != "finished" and self.random.random() < MAIL_DUE:
            mails[-1].update(status="pending", next_attempt_at=started, attempts=0)
        for mail in mails:
            mail.pop("id", None)
            outbox.append({**mail, "game_id": game_id})

    def _write(self, *batches: list[dict[str, Any]]) -> None:
        for table, rows in zip(("games", "seats", "events", "outbox"), batches, strict=True):
            if rows:
                self.counts[table] += len(rows)
                if self.db.dialect == "postgresql":
                    _copy(self.db, table, rows)
                else:
                    _insert(self.db, table, rows)


def _plain(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, dict | list) else value


def _copy(database: Database, table: str, rows: list[dict[str, Any]]) -> None:
    columns = list(rows[0])
    raw = database.engine.raw_connection()
    try:
        copying = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        with raw.cursor() as cursor, cursor.copy(copying) as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row([_plain(row[c]) for c in columns])
        raw.commit()
    finally:
        raw.close()


def _insert(database: Database, table: str, rows: Iterable[dict[str, Any]]) -> None:
    rows = list(rows)
    columns = list(rows[0])
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    raw = database.engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("BEGIN")  # one transaction (pbem's SQLite connections say BEGIN)
        cursor.executemany(sql, [[_plain(row[c]) for c in columns] for row in rows])
        raw.commit()
    finally:
        raw.close()
