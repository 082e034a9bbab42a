"""Benchmark of the event store and service on SQLite (synchronous=FULL, WAL):

(a) submit_action per second against a raw loop of single-row INSERT + COMMIT with
    the same pragmas, the physical limit of one durable commit per move;
(b) the same append-and-reload work done with the `eventsourcing` library on the
    same SQLite, each move reloading the game and appending one event;
(c) loading a game's state at 10 and at 10,000 events (a long nim game).

    python bench/store.py [--games N] [--passes P]
"""

from __future__ import annotations

import argparse
import functools
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from pbem.config import load_settings
from pbem.games import get
from pbem.games.mall.simulation import play
from pbem.service import PlayerSpec, Service
from pbem.store import migrate
from pbem.store.database import Database


def service_on(path: Path, *, cached_states: int = 256, synchronous: str = "FULL") -> Service:
    url = f"sqlite:///{path}"
    database = Database(url, synchronous=synchronous)
    migrate.upgrade(database)
    settings = load_settings({}, database_url=url, secret_key="bench", snapshot_every=50)
    return Service(database, settings, cached_states=cached_states)


def recorded_games(count: int) -> list:
    """Two-player greedy games: the moves every contender plays."""
    return [play(f"store-bench/{i}", ["greedy", "greedy"]) for i in range(count)]


def submit_all(service: Service, games: list) -> tuple[int, float]:
    """Create each game and submit all its moves; (moves, seconds)."""
    moves, started = 0, time.perf_counter()
    rules = get("mall")
    for game in games:
        created = service.create_game([PlayerSpec("A"), PlayerSpec("B")], None, {"seed": game.seed})
        tokens = {s.seat: s.token for s in created.seats}
        for seq, (seat, action) in enumerate(game.actions, start=1):
            service.submit_action(created.game_id, tokens[seat], rules.format(action), seq)
            moves += 1
    return moves, time.perf_counter() - started


def rules_alone(games: list) -> float:
    """Seconds for the rules' share of every move, with no store at all: read the
    notation, check, perform, narrate, and write the action and the state as JSON
    (what any server must do per move before it commits)."""
    rules = get("mall")
    started = time.perf_counter()
    for game in games:
        state = rules.setup(["A", "B"], {"seed": game.seed})
        for seat, action in game.actions:
            checked = rules.check(state, rules.parse(rules.format(action)), seat)
            after = rules.perform(state, checked)
            rules.narrate(state, checked, after, None)
            rules.to_json(checked)
            rules.dump_state(after)
            state = after
    return time.perf_counter() - started


def raw_inserts(path: Path, count: int) -> float:
    """Seconds for `count` single-row INSERT + COMMIT with the same pragmas."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, game TEXT, body TEXT)")
    body = '{"seat": 1, "action": {"type": "money", "column": "L"}}'
    started = time.perf_counter()
    for _ in range(count):
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO t (game, body) VALUES (?, ?)", ("g", body))
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - started
    connection.close()
    return elapsed


@functools.cache
def _mall_game() -> type:
    """The eventsourcing aggregate of a mall game (a class may be made once only:
    the library registers it by name)."""
    from eventsourcing.domain import Aggregate, event

    rules = get("mall")

    class MallGame(Aggregate):
        @event("Created")
        def __init__(self, seed: str) -> None:
            self.seed = seed
            self.state = rules.setup(["A", "B"], {"seed": seed})

        @event("ActionTaken")
        def take(self, seat: int, action: dict) -> None:
            self.state = rules.perform(self.state, rules.parse(action))

    return MallGame


def eventsourcing_all(path: Path, games: list) -> tuple[int, float]:
    """The same games through the eventsourcing library: each move reloads the game
    aggregate from the store (its events folded through the rules) and saves one
    new event. Its defaults: no snapshots, no aggregate cache."""
    os.environ.update(PERSISTENCE_MODULE="eventsourcing.sqlite", SQLITE_DBNAME=str(path))
    from eventsourcing.application import Application

    rules, mall_game = get("mall"), _mall_game()
    app = Application()
    moves, started = 0, time.perf_counter()
    for game in games:
        aggregate = mall_game(game.seed)
        app.save(aggregate)
        for seat, action in game.actions:
            loaded = app.repository.get(aggregate.id)
            move = rules.check(loaded.state, action, seat)
            loaded.take(seat, rules.to_json(move))
            app.save(loaded)
            moves += 1
    return moves, time.perf_counter() - started


def load_times(service: Service, game_id: str, repeat: int = 200) -> float:
    """Median seconds to load the game's state document from the database."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        service.state_at(game_id)
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def nim_game(service: Service, moves: int) -> str:
    """A nim game of exactly `moves` moves (and moves + 1 events), stored by import."""
    doc = {
        "format": "pbem.nim/1",
        "setup": {"players": ["A", "B"], "pile": moves + 1},
        "actions": [{"seat": 1 + i % 2, "action": "take 1"} for i in range(moves)],
    }
    return service.import_log(doc).game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument(
        "--passes", type=int, default=3, help="each contender's best of this many passes"
    )
    args = parser.parse_args()
    games = recorded_games(args.games)
    with tempfile.TemporaryDirectory(dir=os.environ.get("PBEM_BENCH_DIR")) as folder:
        folder = Path(folder)
        # Each pass runs every contender once, on fresh files, one after the other, so
        # that a busy spell of the machine falls on all of them; the best pass counts.
        seconds = raw = off_seconds = cold_seconds = es_seconds = alone = float("inf")
        for n in range(args.passes):
            # (a) submit_action against single-row durable commits
            moves, took = submit_all(service_on(folder / f"ours{n}.sqlite3"), games)
            seconds = min(seconds, took)
            raw = min(raw, raw_inserts(folder / f"raw{n}.sqlite3", moves))
            alone = min(alone, rules_alone(games))
            unsynced = service_on(folder / f"off{n}.sqlite3", synchronous="OFF")
            off_seconds = min(off_seconds, submit_all(unsynced, games)[1])
            # (b) the same append-and-reload work with the eventsourcing library
            cold = service_on(folder / f"cold{n}.sqlite3", cached_states=0)
            cold_seconds = min(cold_seconds, submit_all(cold, games)[1])
            es_moves, took = eventsourcing_all(folder / f"es{n}.sqlite3", games)
            assert es_moves == moves
            es_seconds = min(es_seconds, took)
        print(f"(a) {moves} moves of {len(games)} two-player games, SQLite synchronous=FULL,")
        print(f"    best of {args.passes} passes each")
        print(f"    submit_action            {moves / seconds:8,.0f} per second")
        print(f"    raw INSERT + COMMIT      {moves / raw:8,.0f} per second")
        print(f"    ratio                    {raw / seconds:8.2f}  (aim: at least 0.3)")
        print(
            f"    the rules alone          {moves / alone:8,.0f} per second"
            f"  (so at best, rules + one raw commit: ratio {raw / (raw + alone):.2f})"
        )
        print(
            f"    submit_action, sync OFF  {moves / off_seconds:8,.0f} per second"
            f"  (the share that is not the disk: {off_seconds / seconds:.0%})"
        )
        print("(b) the same games, reloading the game for every move (our state cache off)")
        print(f"    pbem submit_action       {moves / cold_seconds:8,.0f} per second")
        print(f"    eventsourcing            {moves / es_seconds:8,.0f} per second")
        print(f"    ratio                    {es_seconds / cold_seconds:8.2f}  (aim: at least 2)")

        # (c) loading state: 10 events against 10,000 events
        long_games = service_on(folder / "long.sqlite3", cached_states=0)
        short = nim_game(long_games, 9)
        long = nim_game(long_games, 9_999)
        at_10, at_10000 = load_times(long_games, short), load_times(long_games, long)
        print("(c) loading a game's state (median of 200, state cache off)")
        print(f"    at 10 events             {1e6 * at_10:8,.0f} µs")
        print(f"    at 10,000 events         {1e6 * at_10000:8,.0f} µs")
        print(f"    ratio                    {at_10000 / at_10:8.2f}  (aim: at most 1.5)")


if __name__ == "__main__":
    main()
