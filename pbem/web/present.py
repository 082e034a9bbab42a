"""What a game page shows, gathered from the service for one viewer: the state
document (already redacted for that viewer), the drawings made from it, the legal
actions with previews, standings and the log. Templates only lay this out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pbem.games.mall.content import load
from pbem.games.mall.document import mall_of
from pbem.service import Happened, Service, ServiceError

from .svg import COLOURS, dispenser_svg, mall_svg

CONTENT = load()


@dataclass
class Player:
    seat: int
    name: str
    money: int
    secret: str | None
    secret_text: str | None
    score: dict[str, int]
    svg: str
    you: bool
    to_move: bool
    statue_built: bool


@dataclass
class Group:
    """Legal actions of one kind, for the list a page shows without JavaScript."""

    title: str
    options: list[dict[str, Any]] = field(default_factory=list)


def game_page(
    service: Service,
    game_id: str,
    seat: int | None,
    *,
    seq: int | None = None,
    changed: dict[int, frozenset[str]] | None = None,
) -> dict[str, Any]:
    """The context of a game page at `seq` (default: now) for `seat` (None: a
    spectator). `changed` marks tiles per seat (the history page)."""
    doc = service.state_at(game_id, seq, seat)
    your_turn = seq is None and seat is not None and doc["turn"] == seat
    undo: dict[str, Any] | None = None
    if seq is None and seat is not None and doc["status"] == "playing":
        try:
            undo = {"plan": service.undo_plan(game_id, seat)}
        except ServiceError as error:
            undo = {"refused": error.message}
    players = [
        _player(p, doc, seat, your_turn, (changed or {}).get(p["seat"])) for p in doc["players"]
    ]
    players.sort(key=lambda p: not p.you)  # your mall first
    names = {p.seat: p.name for p in players}
    return {
        "game_id": game_id,
        "doc": doc,
        "seat": seat,
        "names": names,
        "players": players,
        "you": next((p for p in players if p.you), None),
        "dispenser": dispenser_svg(doc["dispenser"], CONTENT, id_prefix="dispenser"),
        "commons": _commons(doc, names),
        "standings": _standings(players),
        "your_turn": your_turn,
        "palette": COLOURS,
        "undo": undo,
        "setup_chosen": service.setup_chosen(game_id),
        # log sentences of moves an undo took back may name a tile hidden again
        "censor": service.censor(game_id, seat),
    }


def _player(
    p: dict[str, Any],
    doc: dict[str, Any],
    viewer: int | None,
    your_turn: bool,
    changed: frozenset[str] | None,
) -> Player:
    you = p["seat"] == viewer
    mall = mall_of(p, CONTENT)
    label = f"{p['name']}'s mall" + (" (yours)" if you else "")
    svg = mall_svg(
        mall,
        label=label,
        changed=changed or frozenset(),
        targets=you and your_turn,
        id_prefix=f"mall{p['seat']}",
    )
    secret = p["secret"]
    text = CONTENT.cards[secret].describe() if secret else None
    built = any(t["id"] == CONTENT.personal_id for t in p["tiles"])
    return Player(
        p["seat"],
        p["name"],
        p["money"],
        secret,
        text,
        p["score"],
        svg,
        you,
        doc["turn"] == p["seat"],
        built,
    )


def _commons(doc: dict[str, Any], names: dict[int, str]) -> list[dict[str, Any]]:
    commons = []
    for common in doc["commons"]:
        spec = CONTENT.attractions[common["id"]]
        built_by = common["built_by"]
        commons.append(
            {
                "id": spec.id,
                "colour": spec.colour,
                "points": spec.points,
                "condition": spec.condition.describe() if spec.condition else "",
                "built_by": None if built_by is None else f"{names[built_by]} (seat {built_by})",
            }
        )
    return commons


def _standings(players: list[Player]) -> list[Player]:
    return sorted(players, key=lambda p: (-p.score["total"], -p.score["rainbow"], p.seat))


def turn(service: Service, game_id: str, seat: int, doc: dict[str, Any]) -> dict[str, Any]:
    """The turn form's data: legal actions grouped for the plain list, and what the
    page script needs (every option, and the shapes of attractions on offer)."""
    options = service.turn_options(game_id, seat)
    groups: dict[str, Group] = {}
    for option in options:
        title = _group_title(option["action"], doc)
        groups.setdefault(title, Group(title)).options.append(option)
    offered = {o["action"]["id"] for o in options if o["action"]["type"] == "attraction"}
    shapes = {
        spec_id: {
            "cells": [list(c) for c in CONTENT.attractions[spec_id].shape.cells],
            "mirrored": [list(c) for c in CONTENT.attractions[spec_id].mirror_shape.cells],
        }
        for spec_id in offered
    }
    return {
        "groups": list(groups.values()),
        "script": {"seat": seat, "seq": doc["seq"], "options": options, "shapes": shapes},
    }


def _group_title(action: dict[str, Any], doc: dict[str, Any]) -> str:
    kind = action["type"]
    if kind == "money":
        return "Take money: a bottom tile becomes notes"
    if kind == "build":
        slot = action["slot"]
        tile = doc["dispenser"][slot[0]][int(slot[1:]) - 1]
        spec = CONTENT.elements[tile]
        what = spec.name or "entrance, " + " and ".join(spec.wants)
        cost = int(slot[1:]) - 1
        return f"Build {tile} ({what}) from {slot}, costs {cost} note{'' if cost == 1 else 's'}"
    if kind == "attraction":
        return f"Build the attraction {action['id']}"
    if kind == "dock":
        bay = CONTENT.bays[action["id"]]
        return f"Build the docking bay {bay.id} {bay.name} ({bay.type}, {bay.points} points)"
    return "Pass"


def log(events: Iterable[Happened]) -> list[dict[str, Any]]:
    """The game log with a marker where each round begins."""
    entries: list[dict[str, Any]] = []
    current = 1
    for event in events:
        if event.round != current and event.type != "GameCreated":
            entries.append({"marker": f"Round {event.round}"})
            current = event.round
        entries.append({"seq": event.seq, "text": event.text, "closes": event.closes_round})
    return entries


def changed_tiles(before: dict[str, Any], after: dict[str, Any]) -> dict[int, frozenset[str]]:
    """Per seat, the tiles in `after` that were not in `before` (or moved customers'
    stores): what an event changed."""
    changed = {}
    for old, new in zip(before["players"], after["players"], strict=True):
        tiles = {t["id"] for t in new["tiles"]} - {t["id"] for t in old["tiles"]}
        was = {c["id"]: c["on"] for c in old["customers"]}
        moved = {c["on"] for c in new["customers"] if was.get(c["id"], c["on"]) != c["on"]}
        changed[new["seat"]] = frozenset(tiles | moved)
    return changed
