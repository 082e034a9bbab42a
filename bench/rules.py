"""Benchmark of the mall rules' share of a stored move, call by call: the notation
read and written, check, perform, the narration (in English and in German), the
action's JSON and the state's snapshot, over recorded two-player greedy games, with
no store at all (bench/store.py's "rules alone" is their sum). Then the turn options
of every position of those games (what a "your turn" mail previews: every legal
action written, performed, narrated and as JSON), each position read afresh from its
snapshot as the mail worker reads a game's head.

    python bench/rules.py [--games N] [--passes P]

This machine's timings wander by 30-70% from run to run: compare code against code
side by side and alternately (PYTHONPATH=<other checkout>), best and median."""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from pbem.games import get
from pbem.games.mall.simulation import play
from pbem.i18n import speaking
from pbem.service.queries import turn_options_in

CALLS = ("format", "parse", "check", "perform", "narrate", "to_json", "dump_state")


def recorded_games(count: int) -> list:
    return [play(f"store-bench/{i}", ["greedy", "greedy"]) for i in range(count)]


def one_pass(games: list) -> tuple[dict[str, float], int]:
    """Seconds spent in each call over every move of every game, and the moves."""
    rules = get("mall")
    spent = dict.fromkeys(CALLS, 0.0)
    moves = 0
    clock = time.perf_counter
    for game in games:
        state = rules.setup(["A", "B"], {"seed": game.seed})
        for seat, action in game.actions:
            t0 = clock()
            text = rules.format(action)
            t1 = clock()
            parsed = rules.parse(text)
            t2 = clock()
            checked = rules.check(state, parsed, seat)
            t3 = clock()
            after = rules.perform(state, checked)
            t4 = clock()
            rules.narrate(state, checked, after, None)
            t5 = clock()
            rules.to_json(checked)
            t6 = clock()
            rules.dump_state(after)
            t7 = clock()
            for call, took in zip(
                CALLS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6), strict=True
            ):
                spent[call] += took
            state = after
            moves += 1
    return spent, moves


def positions(games: list) -> list:
    """The snapshot of every position of the games with a seat to move."""
    rules = get("mall")
    found = []
    for game in games:
        state = rules.setup(["A", "B"], {"seed": game.seed})
        for _seat, action in game.actions:
            found.append(rules.dump_state(state))
            state = rules.perform(state, action)
    return found


def options_pass(snapshots: list) -> float:
    """Seconds spent on the turn options of every position, each read afresh."""
    rules = get("mall")
    states = [rules.load_state(doc) for doc in snapshots]
    clock = time.perf_counter
    t0 = clock()
    for state in states:
        turn_options_in(rules, state, state.turn)
    return clock() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args()
    games = recorded_games(args.games)
    gc.collect()
    gc.freeze()  # the recorded games are the harness's: keep the collector off them
    for language in ("en", "de"):
        with speaking(language):
            passes = [one_pass(games) for _ in range(args.passes)]
        moves = passes[0][1]
        totals = sorted(sum(spent.values()) for spent, _ in passes)
        print(f"\nnarration in {language}: {moves} moves, best of {args.passes} passes")
        print(
            f"  moves per second   best {moves / totals[0]:,.0f}"
            f"  median {moves / statistics.median(totals):,.0f}"
        )
        for call in CALLS:
            best = min(spent[call] for spent, _ in passes)
            print(f"  {call:<11} {1e6 * best / moves:6.1f} µs")
    snapshots = positions(games)
    for language in ("en", "de"):
        with speaking(language):
            took = sorted(options_pass(snapshots) for _ in range(args.passes))
        print(
            f"\nturn options per position ({language}, {len(snapshots)} positions):"
            f" best {1e6 * took[0] / len(snapshots):,.0f} µs"
            f"  median {1e6 * statistics.median(took) / len(snapshots):,.0f} µs"
        )


if __name__ == "__main__":
    main()
