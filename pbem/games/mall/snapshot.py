"""A whole State as plain JSON data and back, for snapshots (a cache of a fold; the
events stay the truth). Hidden parts are included: snapshots never leave the server."""

from __future__ import annotations

from typing import Any

from .content import load as load_content
from .mall import Customer, Mall, Tile
from .state import PlayerState, State

VERSION = 1


def dump(state: State) -> dict[str, Any]:
    """The state as JSON data: to write out (or compare), never to change, since its
    players' parts are shared with every other snapshot holding the same player
    (PlayerState.snapshot) and its tiles' rows with every one holding the same tile."""
    return {
        "v": VERSION,
        "content": state.content.name,
        "players": [p.snapshot for p in state.players],
        "dispenser": [list(column) for column in state.dispenser],
        "supply": list(state.supply),
        "bank": state.bank,
        "commons": list(state.commons),
        "turn": state.turn,
        "round": state.round,
        "end_triggered": state.end_triggered,
        "notes": list(state.notes),
        "seed": state.seed,
        "seed_sha256": state.seed_sha256,
        "rng": state.rng,
    }


def load(doc: dict[str, Any]) -> State:
    if doc.get("v") != VERSION:
        raise ValueError(f"unknown snapshot version {doc.get('v')!r}")
    content = load_content(doc["content"])
    players = tuple(
        PlayerState(
            p["seat"],
            p["name"],
            p["money"],
            p["secret"],
            Mall(
                content,
                tuple(
                    Tile(tid, kind, tuple(map(tuple, cells)), frozenset(map(tuple, pf)), mirror)
                    for tid, kind, cells, pf, mirror in p["tiles"]
                ),
                tuple(Customer(*c) for c in p["customers"]),
            ),
        )
        for p in doc["players"]
    )
    return State(
        content=content,
        players=players,
        dispenser=tuple(tuple(column) for column in doc["dispenser"]),
        supply=tuple(doc["supply"]),
        bank=doc["bank"],
        commons=tuple(doc["commons"]),
        turn=doc["turn"],
        round=doc["round"],
        end_triggered=doc["end_triggered"],
        notes=tuple(doc["notes"]),
        seed=doc["seed"],
        seed_sha256=doc["seed_sha256"],
        rng=doc["rng"],
    )
