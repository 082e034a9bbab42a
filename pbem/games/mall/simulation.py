"""Whole games between bots, and the figures `pbem simulate` reports about many."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import logfile
from .actions import Action
from .bots import make_bot
from .rules import perform
from .scoring import Standings, score
from .state import State, setup


@dataclass(frozen=True)
class Played:
    """One finished bot game."""

    seed: str
    bots: tuple[str, ...]  # bot name per seat
    state: State
    actions: tuple[tuple[int, Action], ...]  # (seat, canonical action)
    standings: Standings
    seconds: float

    def log(self) -> dict[str, Any]:
        """The game as a log file document that `pbem replay` accepts."""
        names = [p.name for p in self.state.players]
        return logfile.write(names, self.actions, seed=self.seed)


def play(seed: str, bots: Sequence[str]) -> Played:
    """Play one game from `seed`, seat i played by the bot named bots[i-1]."""
    started = time.perf_counter()
    names = [f"{bot}-{seat}" for seat, bot in enumerate(bots, start=1)]
    state = setup(names, seed=seed)
    choosers = [make_bot(bot, f"{seed}/{seat}") for seat, bot in enumerate(bots, start=1)]
    actions = []
    while state.turn is not None:
        seat = state.turn
        action = choosers[seat - 1](state)
        state = perform(state, action)
        actions.append((seat, action))
    return Played(
        seed, tuple(bots), state, tuple(actions), score(state), time.perf_counter() - started
    )


@dataclass(frozen=True)
class Summary:
    games: int
    players: int
    turns_per_player: float
    satisfied_per_player: float
    score_mean: float
    score_min: int
    score_max: int
    attractions_per_game: float
    wins_by_seat: dict[int, float]  # share of games each seat won (shared wins count)
    wins_by_bot: dict[str, float]  # share of the seats a bot held that won
    seconds_per_game: float


def summarize(games: Sequence[Played]) -> Summary:
    players = len(games[0].bots)
    totals = [s.total for g in games for s in g.standings.scores]
    seat_wins: Counter[int] = Counter()
    bot_wins: Counter[str] = Counter()
    bot_seats: Counter[str] = Counter()
    for game in games:
        for seat, bot in enumerate(game.bots, start=1):
            bot_seats[bot] += 1
            if seat in game.standings.winners:
                seat_wins[seat] += 1
                bot_wins[bot] += 1
    return Summary(
        games=len(games),
        players=players,
        turns_per_player=statistics.fmean(len(g.actions) / players for g in games),
        satisfied_per_player=statistics.fmean(
            len(p.mall.satisfied) for g in games for p in g.state.players
        ),
        score_mean=statistics.fmean(totals),
        score_min=min(totals),
        score_max=max(totals),
        attractions_per_game=statistics.fmean(
            sum(1 for p in g.state.players for t in p.mall.tiles if t.kind == "attraction")
            for g in games
        ),
        wins_by_seat={s: seat_wins[s] / len(games) for s in range(1, players + 1)},
        wins_by_bot={b: bot_wins[b] / bot_seats[b] for b in sorted(bot_seats)},
        seconds_per_game=statistics.fmean(g.seconds for g in games),
    )
