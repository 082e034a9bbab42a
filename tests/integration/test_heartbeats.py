"""Heartbeats, leases and the sweep record, on SQLite and PostgreSQL: a beat is kept
and replaced, a lease goes to one holder until it runs out, and only the newest
sweeps are kept."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from pbem.store import heartbeats

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_a_beat_is_kept_and_replaced(database):
    assert heartbeats.last_beat(database, "scheduler") is None
    heartbeats.beat(database, "scheduler", "host:1", NOW, swept=3)
    heartbeats.beat(database, "scheduler", "host:2", NOW + timedelta(seconds=10), swept=4)
    heartbeats.beat(database, "worker:a", "a", NOW)
    found = heartbeats.last_beat(database, "scheduler")
    assert found is not None
    assert (found.holder, found.beat_at, dict(found.state)) == (
        "host:2",
        NOW + timedelta(seconds=10),
        {"swept": 4},
    )
    assert found.age(NOW + timedelta(seconds=15)) == timedelta(seconds=5)
    assert [b.name for b in heartbeats.beats(database, "worker:")] == ["worker:a"]
    assert [b.name for b in heartbeats.beats(database)] == ["scheduler", "worker:a"]
    heartbeats.forget(database, "worker:a", holder="someone else")
    assert heartbeats.last_beat(database, "worker:a") is not None
    heartbeats.forget(database, "worker:a", holder="a")
    assert heartbeats.last_beat(database, "worker:a") is None


def test_a_lease_has_one_holder_until_it_runs_out(database):
    ttl = timedelta(seconds=30)
    assert heartbeats.take_lease(database, "lead:scheduler", "one", NOW, ttl)
    assert not heartbeats.take_lease(database, "lead:scheduler", "two", NOW, ttl)
    # the holder renews it; the other waits
    assert heartbeats.take_lease(
        database, "lead:scheduler", "one", NOW + timedelta(seconds=20), ttl
    )
    assert not heartbeats.take_lease(
        database, "lead:scheduler", "two", NOW + timedelta(seconds=40), ttl
    )
    # the holder stopped renewing: once the lease ran out, the other takes it
    assert heartbeats.take_lease(
        database, "lead:scheduler", "two", NOW + timedelta(seconds=51), ttl
    )
    assert not heartbeats.take_lease(
        database, "lead:scheduler", "one", NOW + timedelta(seconds=52), ttl
    )


def test_of_many_asking_at_once_one_gets_the_lease(database):
    got: list[str] = []
    start = threading.Barrier(6)

    def ask(name: str) -> None:
        start.wait()
        if heartbeats.take_lease(database, "lead:x", name, NOW, timedelta(seconds=30)):
            got.append(name)

    threads = [threading.Thread(target=ask, args=(f"p{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 1


def test_only_the_newest_sweeps_are_kept(database, monkeypatch):
    monkeypatch.setattr(heartbeats, "SWEEPS_KEPT", 20)
    for n in range(100):
        heartbeats.record_sweep(
            database,
            "h",
            NOW + timedelta(seconds=n),
            0.01,
            {"mails": n},
            "boom" if n == 99 else None,
        )
    newest = heartbeats.sweeps(database, limit=3)
    assert [s.counts["mails"] for s in newest] == [99, 98, 97]
    assert newest[0].error == "boom" and newest[1].error is None
    assert newest[0].started_at == NOW + timedelta(seconds=99)
    assert 20 <= heartbeats.sweep_count(database) < 70
