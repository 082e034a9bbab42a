"""Scoring (docs/games/mall.md section 10): balloons with their tie rules, attraction and bay
points, and the winners. The same computation gives the end-of-round standings."""

from __future__ import annotations

from dataclasses import dataclass

from .content import BalloonSet
from .mall import ATTRACTION, DOCK, Mall
from .state import State


@dataclass(frozen=True, slots=True)
class Score:
    seat: int
    balloons: dict[str, int]  # balloon set name -> points, e.g. {"rainbow": 12, ...}
    attractions: int
    docks: int  # bay points and their end bonuses

    @property
    def total(self) -> int:
        return sum(self.balloons.values()) + self.attractions + self.docks


@dataclass(frozen=True, slots=True)
class Standings:
    scores: tuple[Score, ...]  # by seat
    winners: tuple[int, ...]  # seats sharing the best result
    final: bool  # False: provisional, as if the game ended now


def score(state: State) -> Standings:
    """Every player's score as if the game ended now; final once it has."""
    malls = [p.mall for p in state.players]
    awarded = [_award(state, balloon, malls) for balloon in state.content.balloons]
    scores = tuple(
        Score(
            seat=seat,
            balloons={
                b.name: points[seat]
                for b, points in zip(state.content.balloons, awarded, strict=True)
            },
            attractions=_attraction_points(state, mall),
            docks=_bay_points(state, mall),
        )
        for seat, mall in enumerate(malls, start=1)
    )
    rainbow = next(b.name for b in state.content.balloons if b.ranked_by == "satisfied")
    return Standings(scores, _winners(scores, rainbow), state.finished)


def ranking_key(balloon: BalloonSet, mall: Mall) -> tuple[int, int] | None:
    """(measure, tie-break) a player is ranked by for a balloon set, or None when the
    player takes none of its balloons."""
    if balloon.ranked_by == "satisfied":
        if not mall.satisfied:
            return None
        highest = max(mall.tile[c.on].floor for c in mall.customers)
        return (len(mall.satisfied), highest)
    if mall.counts[balloon.ranked_by] == 0:
        return None
    return mall.largest_cluster(balloon.ranked_by)


def _award(state: State, balloon: BalloonSet, malls: list[Mall]) -> dict[int, int]:
    """Points of one balloon set per seat: places in ranking order; players still tied
    share the values of the places they occupy, rounded down."""
    values = balloon.values[: len(malls) - 1]
    keyed = []
    for seat, mall in enumerate(malls, start=1):
        key = ranking_key(balloon, mall)
        if key is not None:
            keyed.append((key, seat))
    keyed.sort(key=lambda item: item[0], reverse=True)
    points = dict.fromkeys(range(1, len(malls) + 1), 0)
    place = 0
    while place < len(keyed):
        tied = [seat for key, seat in keyed if key == keyed[place][0]]
        pool = sum(values[place + i] for i in range(len(tied)) if place + i < len(values))
        for seat in tied:
            points[seat] = pool // len(tied)
        place += len(tied)
    return points


def _attraction_points(state: State, mall: Mall) -> int:
    specs = state.content.attractions
    return sum(specs[t.id].points for t in mall.tiles if t.kind == ATTRACTION)


def _bay_points(state: State, mall: Mall) -> int:
    total = 0
    for tile in mall.tiles:
        if tile.kind != DOCK:
            continue
        bay = state.content.bays[tile.id]
        total += bay.points
        if bay.bonus_per == "satisfied":
            total += min(len(mall.satisfied), bay.bonus_max)
        elif bay.bonus_per is not None:
            total += min(mall.counts[bay.bonus_per], bay.bonus_max)
    return total


def _winners(scores: tuple[Score, ...], rainbow: str) -> tuple[int, ...]:
    """Highest total; then more rainbow points; then a shared victory."""
    best = max((s.total, s.balloons[rainbow]) for s in scores)
    return tuple(s.seat for s in scores if (s.total, s.balloons[rainbow]) == best)
