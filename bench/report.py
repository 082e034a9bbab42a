"""The figures of one run of bench/load.py, printed as Markdown."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any


def _p(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}" if seconds == seconds else "-"


def report(
    args: Any,
    players: Any,
    recorder: Any,
    sampler: Any,
    rows: list[Any],
    per_task: tuple[float, float],
    times: tuple[float, float, float, float],
) -> None:
    began, created, start, end = times
    seconds = end - start
    inside = [a for a in players.accepted if start <= a[0] < end]
    print(f"\n## {args.games:,} games, think {args.think:g} s, watching {args.watching:g}")
    print(
        f"\ngunicorn -w {args.web_workers} (threads {args.threads}), {args.workers} workers"
        f" (concurrency {args.concurrency}), {args.clients} client threads;"
        f" games made in {created - began:.0f} s; measured over {seconds:.0f} s\n"
    )
    print(f"- moves accepted: {len(inside):,}, **{len(inside) / seconds:.1f} per second**")
    print("\n| request | count | per second | p50 ms | p95 ms | p99 ms |")
    print("|---|---|---|---|---|---|")
    for what in ("move", "legal", "page", "api game", "log", "live poll", "create", "seat link"):
        timed = [t for at, t in players.latency.get(what, []) if start <= at < end]
        if not timed:
            continue
        cells = " | ".join(_ms(_p(timed, s)) for s in (0.5, 0.95, 0.99))
        print(f"| {what} | {len(timed):,} | {len(timed) / seconds:.1f} | {cells} |")
    arrived = {message_id: at for at, message_id, *_ in recorder.arrived}
    by_seq = {(row.game_id, row.seq): row for row in rows}
    waits, missing = [], Counter()
    for at, game_id, seq in inside:
        row = by_seq.get((game_id, seq))
        if row is None:
            continue  # the game ended with this move: no turn mail
        if row.delivery_id in arrived:
            waits.append(arrived[row.delivery_id] - at)
        else:
            missing[row.status] += 1
    cells = " | ".join(_ms(_p(waits, s)) for s in (0.5, 0.95, 0.99))
    print("\n| move to the next turn mail arriving | count | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|")
    print(f"| | {len(waits):,} | {cells} | {_ms(max(waits, default=float('nan')))} |")
    if missing:
        print(f"\nturn mails not arrived by the end: {dict(missing)}")
    mails = [a for a in recorder.arrived if start <= a[0] < end]
    kinds = Counter(kind for _, _, kind, *_ in mails)
    print(
        f"\n- mails arrived: {len(mails):,}, {len(mails) / seconds:.1f} per second"
        f" ({', '.join(f'{n:,} {k}' for k, n in kinds.most_common())})"
    )
    samples = [s for s in sampler.samples if start <= s["at"] <= end]
    if samples:
        backlog = [s["backlog"] for s in samples if "backlog" in s]
        connections = [s["connections"] for s in samples if "connections" in s]
        print(
            f"- outbox backlog (pending or sending), sampled every 2 s: median"
            f" {statistics.median(backlog):.0f}, most {max(backlog):.0f}; database"
            f" connections: most {max(connections):.0f}"
        )
        names = [k for k in samples[0] if k not in ("at", "backlog", "connections")]
        rate = len(inside) / seconds or float("nan")
        print("\n| process | cores, mean | cores, most | processor ms per move |")
        print("|---|---|---|---|")
        server = 0.0
        for name in sorted(names, key=lambda n: -statistics.mean(s.get(n, 0) for s in samples)):
            used = [s.get(name, 0.0) for s in samples]
            mean = statistics.mean(used)
            server += mean if name not in ("machine", "bench") else 0.0
            print(f"| {name} | {mean:.2f} | {max(used):.2f} | {mean / rate * 1000:,.0f} |")
        print(
            f"\n- the server's processes (all but the bench and the rest of the machine):"
            f" {server:.2f} cores, **{server / rate * 1000:,.0f} ms of processor time per move**"
            f" with its pages, polls and mail; 2 cores would carry {2 / (server / rate):.0f}"
            " moves a second at this mix"
        )
    print(
        f"\n- Redis memory per queued task: {per_task[0]:,.0f} bytes a delivery task"
        f" (20 outbox ids), {per_task[1]:,.0f} bytes a bot turn"
    )
    errors = Counter(what for at, what in players.errors if start <= at < end)
    if errors:
        print(f"- errors while measured: {dict(errors.most_common(8))}")
    later = Counter(what for at, what in players.errors if at >= end)
    if later:
        print(f"- errors after (while the site stopped): {sum(later.values())}")
