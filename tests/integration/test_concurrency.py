"""Concurrency on a real database: 50 threads, and several processes of 50 threads,
race to play the same turn with different actions and repeated idempotency keys.
Exactly one event is stored per turn; every loser is told the game moved on (409) or,
sharing the winner's key, gets the winner's answer; the hash chain holds."""

from __future__ import annotations

import multiprocessing
import threading
from collections import Counter

from pbem.config import load_settings
from pbem.service import Accepted, Service, Stale
from pbem.store import log
from pbem.store.database import Database

from support import token, two_players

THREADS = 50
KEYS = 5


def race(
    service: Service,
    game_id: str,
    tokens: dict[int, str],
    worker: int,
    seq: int,
    seat: int,
    legal: list[str],
    barrier,
) -> list[tuple[str, object]]:
    """THREADS threads submit at once for `seat` at `seq`; what each was told."""
    results: list[tuple[str, object]] = []
    lock = threading.Lock()

    def submit(i: int) -> None:
        key = f"turn-{seq}-key-{i % KEYS}" if i % 2 == 0 else None
        action = legal[(i + worker) % len(legal)]
        barrier.wait()
        try:
            answer: object = service.submit_action(game_id, tokens[seat], action, seq, key)
        except Stale as stale:
            answer = stale
        with lock:
            results.append((key, answer))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def check_turn(results, seq: int) -> Accepted:
    winners = {a.head_hash: a for _, a in results if isinstance(a, Accepted) and not a.replayed}
    assert len(winners) == 1, f"exactly one move is stored for seq {seq}"
    (winner,) = winners.values()
    assert winner.seq == seq + 1
    winning_key = next(k for k, a in results if a is winner)
    for key, answer in results:
        if isinstance(answer, Accepted):
            assert answer.head_hash == winner.head_hash and answer.seq == winner.seq
            assert answer is winner or (answer.replayed and key == winning_key and key)
        else:
            assert isinstance(answer, Stale) and answer.status == 409
            assert answer.head == seq + 1 and answer.since[0].seq == seq + 1
    return winner


def test_fifty_threads_racing_for_each_turn_store_exactly_one_move(service):
    created = two_players(service, {"seed": "race"})
    tokens = {1: token(created, 1), 2: token(created, 2)}
    for seq in (1, 2, 3):
        seat = service.state_at(created.game_id)["turn"]
        legal = service.legal(created.game_id, seat)
        results = race(
            service, created.game_id, tokens, 0, seq, seat, legal, threading.Barrier(THREADS)
        )
        assert len(results) == THREADS
        check_turn(results, seq)
    with service.db.read() as s:
        assert [e.seq for e in log.events(s, created.game_id)] == [1, 2, 3, 4]
    assert service.verify(created.game_id) == []


def _process(
    url: str,
    game_id: str,
    tokens: dict[int, str],
    worker: int,
    seq: int,
    seat: int,
    legal: list[str],
    barrier,
    out,
) -> None:
    database = Database(url)
    service = Service(database, load_settings({}, database_url=url, secret_key="test-secret"))
    results = race(service, game_id, tokens, worker, seq, seat, legal, barrier)
    out.put([(k, a.__dict__ if isinstance(a, Accepted) else ("stale", a.head)) for k, a in results])
    database.dispose()


def test_several_processes_racing_store_exactly_one_move(service, database_url):
    created = two_players(service, {"seed": "process race"})
    tokens = {1: token(created, 1), 2: token(created, 2)}
    legal = service.legal(created.game_id, 1)
    context = multiprocessing.get_context("spawn")
    processes = 3
    barrier = context.Barrier(processes * THREADS)  # every thread of every process at once
    out = context.Queue()
    workers = [
        context.Process(
            target=_process,
            args=(database_url, created.game_id, tokens, w, 1, 1, legal, barrier, out),
        )
        for w in range(processes)
    ]
    for worker in workers:
        worker.start()
    answers = [answer for _ in workers for answer in out.get(timeout=120)]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    kinds = Counter("accepted" if isinstance(a, dict) else "stale" for _, a in answers)
    assert sum(kinds.values()) == processes * THREADS
    stored = {a["head_hash"] for _, a in answers if isinstance(a, dict)}
    assert len(stored) == 1, "one move stored for the turn, whatever process won"
    firsts = [a for _, a in answers if isinstance(a, dict) and not a["replayed"]]
    assert len(firsts) == 1
    with service.db.read() as s:
        assert [e.seq for e in log.events(s, created.game_id)] == [1, 2]
    assert service.verify(created.game_id) == []


def test_two_seats_racing_with_one_key_never_get_each_others_answer(service):
    """Seat 1 (to move) and seat 2 (not) send the same key at once, many times: seat
    1's move is stored once; seat 2 is told it is not its turn, never handed seat
    1's answer as its own."""
    from pbem.service import Illegal

    created = two_players(service)
    game_id, tokens = created.game_id, {1: token(created, 1), 2: token(created, 2)}
    barrier = threading.Barrier(THREADS)
    results: list[tuple[int, object]] = []
    lock = threading.Lock()

    def submit(i: int) -> None:
        seat = 1 + i % 2
        barrier.wait()
        try:
            answer: object = service.submit_action(game_id, tokens[seat], "money L", 1, "shared")
        except (Stale, Illegal) as refused:
            answer = refused
        with lock:
            results.append((seat, answer))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    accepted = [(seat, a) for seat, a in results if isinstance(a, Accepted)]
    assert {seat for seat, _ in accepted} == {1}
    assert len({a.head_hash for _, a in accepted}) == 1
    assert sum(not a.replayed for _, a in accepted) == 1
    for seat, answer in results:
        if seat == 2:
            assert isinstance(answer, Illegal | Stale), answer
    assert service.state_at(game_id)["seq"] == 2
