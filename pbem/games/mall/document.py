"""The state document (docs/design.md) as one player or a spectator may see it: the mall's
rules, section 11 decides what is left out — the supply order always, other players'
secret cards until revealed, the seed until the end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .content import AttractionSpec, Content
from .mall import ATTRACTION, Cell, Customer, Mall, Tile
from .scoring import Score, score
from .state import PlayerState, State


def view(state: State, seat: int | None = None) -> dict[str, Any]:
    """The state document for `seat` (None: a spectator). JSON-ready; carries no
    `seq`, which belongs to the event log, not to the rules."""
    standings = score(state)
    content = state.content
    return {
        "game": "mall",
        "content": content.name,
        "status": "finished" if state.finished else "playing",
        "round": state.round,
        "turn": state.turn,
        "bank": state.bank,
        "supply": len(state.supply),
        "dispenser": {name: list(state.dispenser[i]) for i, name in enumerate(content.columns)},
        "commons": [{"id": c, "built_by": state.built_by.get(c)} for c in state.commons],
        "end_triggered": state.end_triggered,
        "seed_sha256": state.seed_sha256,
        "seed": state.seed if state.finished else None,
        "players": [_player(state, p, seat, standings.scores[p.seat - 1]) for p in state.players],
        "final": standings.final,
        "winners": list(standings.winners) if state.finished else None,
    }


def secret_visible(state: State, player: PlayerState, viewer: int | None) -> bool:
    """A secret card is seen by its owner, and by everyone once the personal
    attraction is built or the game has ended."""
    return viewer == player.seat or player.statue_built or state.finished


def _player(state: State, player: PlayerState, viewer: int | None, points: Score) -> dict[str, Any]:
    return {
        "seat": player.seat,
        "name": player.name,
        "money": player.money,
        "secret": player.secret if secret_visible(state, player, viewer) else None,
        "tiles": _tiles(player.mall),
        "customers": [
            {"id": c.id, "want": c.want, "on": c.on, "satisfied": c.satisfied}
            for c in player.mall.customers
        ],
        "score": score_document(points),
    }


def _tiles(mall: Mall) -> list[dict[str, Any]]:
    return [
        {"id": t.id, "kind": t.kind, "cells": [list(cell) for cell in sorted(t.cells)]}
        for t in mall.tiles
    ]


def score_document(points: Score) -> dict[str, int]:
    return {
        **points.balloons,
        "attractions": points.attractions,
        "docks": points.docks,
        "total": points.total,
    }


def mall_of(player: dict[str, Any], content: Content) -> Mall:
    """The Mall a player entry of the state document describes, so that what is
    drawn for a viewer comes from what that viewer may see."""
    tiles = []
    for tile in player["tiles"]:
        cells = tuple(tuple(cell) for cell in tile["cells"])
        platforms: frozenset[Cell] = frozenset()
        mirror = False
        if tile["kind"] == ATTRACTION:
            platforms, mirror = _placed(content.attractions[tile["id"]], cells)
        tiles.append(Tile(tile["id"], tile["kind"], cells, platforms, mirror))
    customers = tuple(
        Customer(c["id"], c["want"], c["on"], c["satisfied"]) for c in player["customers"]
    )
    return Mall(content, tuple(tiles), customers)


def _placed(spec: AttractionSpec, cells: tuple[Cell, ...]) -> tuple[frozenset[Cell], bool]:
    """The platform cells and mirroring of an attraction standing on `cells`."""
    for shape, mirror in ((spec.shape, False), (spec.mirror_shape, True)):
        x = min(cx for cx, _ in cells) - min(c for c, _, _ in shape.cells)
        y = min(cy for _, cy in cells) - min(r for _, r, _ in shape.cells)
        if {(x + c, y + r) for c, r, _ in shape.cells} == set(cells):
            return frozenset((x + c, y + r) for c, r, k in shape.cells if k == "P"), mirror
    raise ValueError(f"{spec.id} does not fit the cells {cells}")


def standings_order(doc: Mapping[str, Any]) -> list[int]:
    """The seats of a state document by standing: highest total first, then more
    rainbow points (the winners' tie-break, section 10), then seat order."""
    ranked = sorted(
        doc["players"],
        key=lambda p: (-p["score"]["total"], -p["score"]["rainbow"], p["seat"]),
    )
    return [p["seat"] for p in ranked]
