"""Benchmark of the rules engine: legal actions + apply over full 4-player greedy
games, fold-only replays, and the latency of legal_actions on mid-game states.

    python bench/engine.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import gc
import time

from pbem.games.mall import apply, legal_actions, setup
from pbem.games.mall.simulation import play

PASSES = 5


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed_passes(games: list, names: list[str], with_legal: bool) -> list[float]:
    """Seconds each of PASSES passes takes to fold every game from its setup, with
    legal_actions at every step or not. Several passes: this machine's timings wander
    by 20-30% from one pass to the next, so the best and the worst are reported."""
    passes = []
    for _ in range(PASSES):
        t0 = time.perf_counter()
        for game in games:
            state = setup(names, seed=game.seed)
            for _, action in game.actions:
                if with_legal:
                    legal_actions(state)
                state = apply(state, action)
        passes.append(time.perf_counter() - t0)
    return passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()

    started = time.perf_counter()
    games = [play(f"{args.seed}/{i}", ["greedy"] * 4) for i in range(args.games)]
    elapsed = time.perf_counter() - started
    print(f"{args.games} four-player greedy games recorded in {elapsed:.1f} s")
    names = [p.name for p in games[0].state.players]
    gc.collect()
    gc.freeze()  # the recorded games are the harness's, not the engine's: keep GC off them

    # (1) legal_actions + apply at every step of every game
    steps = sum(len(game.actions) for game in games)
    passes = timed_passes(games, names, with_legal=True)
    best = min(passes)
    print(f"\nlegal_actions + apply at every step, full 4-player games (best of {PASSES})")
    print(f"  actions per second     {steps / best:,.0f}")
    print(f"  ms per full game       {1000 * best / len(games):.1f}  (aim: well under 20)")
    print(f"  worst pass             {1000 * max(passes) / len(games):.1f} ms per game")
    print(f"  actions per game       {steps / len(games):.1f}")

    # (2) fold only: replay each game through apply, no legal-action generation
    passes = timed_passes(games, names, with_legal=False)
    print(f"\nfold only (setup + apply of every action, best of {PASSES})")
    print(f"  full-game replays per second  {len(games) / min(passes):,.0f}")

    # (3) legal_actions on fresh mid-game states (nothing cached yet)
    latencies = []
    for game in games:
        middle = len(game.actions) // 2
        for offset in range(-4, 4):
            state = setup(names, seed=game.seed)
            for _, action in game.actions[: middle + offset]:
                state = apply(state, action)
            t0 = time.perf_counter()
            legal_actions(state)
            latencies.append(time.perf_counter() - t0)
    print(f"\nlegal_actions on {len(latencies)} mid-game 4-player states, cold caches")
    print(f"  p50  {1e6 * percentile(latencies, 50):,.0f} µs")
    print(f"  p99  {1e6 * percentile(latencies, 99):,.0f} µs")


if __name__ == "__main__":
    main()
