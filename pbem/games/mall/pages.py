"""The mall on the web pages (the `Pages` of pbem.games.base): each player's mall and
the Dispenser 3000 drawn from the state document a viewer may see, the attractions
in play, the standings with their balloons, and the turn panel's grouped actions and
script data, all in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from .content import load
from .document import mall_of
from .explain import (
    attraction_name,
    attraction_words,
    balloon_lines,
    balloon_title,
    balloon_words,
    bay_label,
    bay_words,
    customer_choices,
    said,
)
from .rulebook import rules as rules  # the "rules" partial's context
from .svg_common import MALL_STYLE
from .svg_dispenser import DISPENSER_STYLE, dispenser_svg
from .svg_mall import mall_svg
from .svg_shape import SHAPE_STYLE, shape_svg
from .turn_words import script_words

CONTENT = load()

marker = 'class="pbem-mall"'
partials = {
    "board": "board.html",
    "beside": "dispenser.html",
    "turn": "turn.html",
    "rules": "rules.html",
}
script: str | None = "play.js"
stylesheet: str | None = "mall.css"
inline_styles: Sequence[str] = (MALL_STYLE, DISPENSER_STYLE, SHAPE_STYLE)


@dataclass
class Player:
    """One player's part of the board: their drawing, notes, card and score."""

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
    built: list[dict[str, str]] = field(default_factory=list)  # bays, attractions


@dataclass
class Group:
    """Legal actions of one kind, for the list a page shows without JavaScript."""

    title: str
    options: list[Mapping[str, Any]] = field(default_factory=list)


def board(
    doc: Mapping[str, Any],
    seat: int | None,
    *,
    your_turn: bool = False,
    changed: Any = None,
) -> dict[str, Any]:
    """Every mall (the viewer's first), the Dispenser, the attractions in play and
    each player's score by seat (the page lists them in the plugin's standings
    order); `changed` maps a seat to the tiles an event changed."""
    marks: Mapping[int, frozenset[str]] = changed or {}
    players = [_player(p, doc, seat, your_turn, marks.get(p["seat"])) for p in doc["players"]]
    players.sort(key=lambda p: not p.you)  # your mall first
    names = {p.seat: p.name for p in players}
    lines = balloon_lines(doc, CONTENT)
    statue = CONTENT.attractions[CONTENT.personal_id]
    return {
        "players": players,
        "by_seat": {p.seat: p for p in players},
        "dispenser": dispenser_svg(doc["dispenser"], CONTENT, id_prefix="dispenser"),
        "commons": _commons(doc, names),
        "statue": {"name": attraction_name(statue.id), "words": attraction_words(statue, CONTENT)},
        "balloons": [
            {"set": b.name, "title": balloon_title(b), "words": balloon_words(b, len(players))}
            for b in CONTENT.balloons
        ],
        "balloon_lines": {seat: [line.text for line in found] for seat, found in lines.items()},
    }


def _player(
    p: Mapping[str, Any],
    doc: Mapping[str, Any],
    viewer: int | None,
    your_turn: bool,
    changed: frozenset[str] | None,
) -> Player:
    you = p["seat"] == viewer
    label = (
        _("%(name)s's mall (yours)", name=p["name"])
        if you
        else _("%(name)s's mall", name=p["name"])
    )
    svg = mall_svg(
        mall_of(dict(p), CONTENT),
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
        [_offer(t["id"]) for t in p["tiles"] if t["kind"] in ("dock", "attraction")],
    )


def _commons(doc: Mapping[str, Any], names: Mapping[int, str]) -> list[dict[str, Any]]:
    commons = []
    for common in doc["commons"]:
        spec = CONTENT.attractions[common["id"]]
        built_by = common["built_by"]
        commons.append(
            {
                "id": spec.id,
                "name": attraction_name(spec.id),
                "words": attraction_words(spec, CONTENT),
                "shape": shape_svg(spec, attraction_name(spec.id), id_prefix="common-shape"),
                "colour": spec.colour,
                "colour_said": said(spec.colour),
                "points": spec.points,
                "condition": spec.condition.describe() if spec.condition else "",
                "built_by": None
                if built_by is None
                else _("%(name)s (seat %(seat)s)", name=names[built_by], seat=built_by),
            }
        )
    return commons


def turn(doc: Mapping[str, Any], seat: int, options: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The turn form's data: legal actions grouped for the plain list (identical
    customer choices merged, each choice said in words), and what the page script
    needs (every option, the shapes of attractions on offer, and the names and
    explanations of the attractions and bays on offer)."""
    options = _merged(options, next(p for p in doc["players"] if p["seat"] == seat))
    groups: dict[str, Group] = {}
    for option in options:
        title = _group_title(option["action"], doc)
        groups.setdefault(title, Group(title)).options.append(option)
    offered = {o["action"]["id"] for o in options if o["action"]["type"] in ("attraction", "dock")}
    shapes = {
        spec_id: {
            "cells": [list(c) for c in CONTENT.attractions[spec_id].shape.cells],
            "mirrored": [list(c) for c in CONTENT.attractions[spec_id].mirror_shape.cells],
        }
        for spec_id in offered
        if spec_id in CONTENT.attractions
    }
    return {
        "groups": list(groups.values()),
        "script": {
            "seat": seat,
            "seq": doc["seq"],
            "options": list(options),
            "shapes": shapes,
            "names": {i: _offer_name(i) for i in sorted(offered)},
            "explain": {i: _offer_words(i) for i in sorted(offered)},
            "words": script_words(),
        },
    }


def _merged(
    options: Sequence[Mapping[str, Any]], player: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    """The options with the customer choices of each cell said in words and the
    identical ones (the same want, waiting on the same tile) kept once."""
    by_cell: dict[tuple[str, int, int], list[Mapping[str, Any]]] = {}
    for option in options:
        action = option["action"]
        if action["type"] == "build" and action.get("customer"):
            by_cell.setdefault((action["slot"], action["x"], action["y"]), []).append(option)
    words = {
        choice.option: choice.words
        for found in by_cell.values()
        for choice in customer_choices(found, player, CONTENT)
    }
    kept: list[Mapping[str, Any]] = []
    for option in options:
        action = option["action"]
        if action["type"] == "build" and action.get("customer"):
            if option["text"] not in words:
                continue  # the same choice as one kept before it
            option = {**option, "words": words[option["text"]]}
        kept.append(option)
    return kept


def _offer_name(offer_id: str) -> str:
    """An attraction or bay on its button: its name, points and (bays) requirement."""
    if offer_id in CONTENT.bays:
        return _("Bay %(bay)s", bay=bay_label(CONTENT.bays[offer_id], CONTENT))
    spec = CONTENT.attractions[offer_id]
    return _(
        "Attraction %(name)s, %(points)s points", name=attraction_name(offer_id), points=spec.points
    )


def _offer(offer_id: str) -> dict[str, str]:
    """A bay or attraction by name, with its explanation."""
    bay = CONTENT.bays.get(offer_id)
    name = f"{_(bay.name)} ({bay.id})" if bay else attraction_name(offer_id)
    return {"id": offer_id, "name": name, "words": _offer_words(offer_id)}


def _offer_words(offer_id: str) -> str:
    if offer_id in CONTENT.bays:
        return bay_words(CONTENT.bays[offer_id], CONTENT)
    return attraction_words(CONTENT.attractions[offer_id], CONTENT)


def _group_title(action: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    kind = action["type"]
    if kind == "money":
        return _("Take money: a bottom tile becomes notes")
    if kind == "build":
        slot = action["slot"]
        tile = doc["dispenser"][slot[0]][int(slot[1:]) - 1]
        spec = CONTENT.elements[tile]
        wants = _(" and ").join(said(w) for w in spec.wants)
        what = _(spec.name) if spec.name else _("entrance, %(wants)s", wants=wants)
        cost = int(slot[1:]) - 1
        return ngettext(
            "Build %(tile)s (%(what)s) from %(slot)s, costs %(num)d note",
            "Build %(tile)s (%(what)s) from %(slot)s, costs %(num)d notes",
            cost,
            tile=tile,
            what=what,
            slot=slot,
        )
    if kind == "attraction":
        points = CONTENT.attractions[action["id"]].points
        name = attraction_name(action["id"])
        return _("Build the attraction %(name)s (%(points)s points)", name=name, points=points)
    if kind == "dock":
        bay = CONTENT.bays[action["id"]]
        return _(
            "Build the docking bay %(name)s (%(id)s, %(type)s, %(points)s points)",
            name=_(bay.name),
            id=bay.id,
            type=said(bay.type),
            points=bay.points,
        )
    return _("Pass")


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[int, frozenset[str]]:
    """Per seat, the tiles in `after` that were not in `before` (or moved customers'
    stores): what an event changed."""
    marks = {}
    for old, new in zip(before["players"], after["players"], strict=True):
        tiles = {t["id"] for t in new["tiles"]} - {t["id"] for t in old["tiles"]}
        was = {c["id"]: c["on"] for c in old["customers"]}
        moved = {c["on"] for c in new["customers"] if was.get(c["id"], c["on"]) != c["on"]}
        marks[new["seat"]] = frozenset(tiles | moved)
    return marks


def outlined(before: Mapping[str, Any], after: Mapping[str, Any], seat: int | None) -> list[str]:
    """The tiles built (and stores a customer moved to) in the others' malls between
    two state documents: what the page outlines as new since the viewer's last visit."""
    marks = changed(before, after)
    tiles = sorted(tile for s, tiles in marks.items() if s != seat for tile in tiles)
    return [f'[data-tile="{_quoted(tile)}"]' for tile in tiles]


def _quoted(text: str) -> str:
    """`text` inside a CSS string in double quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def setup(form: Mapping[str, str]) -> dict[str, Any]:
    """The New game form deals a mall game at random: nothing to read."""
    return {}


# -- the JSON API's schema of the mall's state document and setup ------------------

_SCORE = {
    "type": "object",
    "required": ["rainbow", "yellow", "blue", "green", "attractions", "docks", "total"],
    "properties": {
        k: {"type": "integer"}
        for k in ("rainbow", "yellow", "blue", "green", "attractions", "docks", "total")
    },
}
_KINDS = ["main", "food", "hobby", "fashion", "entrance", "dock", "attraction"]
_PLAYER = {
    "type": "object",
    "required": ["seat", "name", "money", "secret", "tiles", "customers", "score"],
    "properties": {
        "seat": {"type": "integer"},
        "name": {"type": "string"},
        "money": {"type": "integer"},
        "secret": {"type": ["string", "null"]},
        "tiles": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "kind", "cells"],
                "properties": {
                    "id": {"type": "string"},
                    "kind": {"enum": _KINDS},
                    "cells": {
                        "type": "array",
                        "items": {"type": "array", "items": {"type": "integer"}},
                    },
                },
            },
        },
        "customers": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "want", "on", "satisfied"],
                "properties": {
                    "id": {"type": "string"},
                    "want": {"enum": ["food", "hobby", "fashion"]},
                    "on": {"type": "string"},
                    "satisfied": {"type": "boolean"},
                },
            },
        },
        "score": _SCORE,
    },
}
state_schema: Mapping[str, Any] = {
    "required": ["bank", "supply", "dispenser", "commons", "end_triggered", "players"],
    "properties": {
        "bank": {"type": "integer"},
        "supply": {"type": "integer"},
        "dispenser": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": ["string", "null"]}},
        },
        "commons": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "built_by"],
                "properties": {
                    "id": {"type": "string"},
                    "built_by": {"type": ["integer", "null"]},
                },
            },
        },
        "end_triggered": {"type": "boolean"},
        "players": {"type": "array", "items": _PLAYER},
    },
}
_ID_LIST = {"type": "array", "maxItems": 120, "items": {"type": "string", "maxLength": 40}}
setup_schema: Mapping[str, Any] = {
    "seed": {"type": ["string", "integer"], "maxLength": 200},
    "supply": _ID_LIST,
    "commons": _ID_LIST,
    "secrets": {
        "type": "object",
        "maxProperties": 4,
        "additionalProperties": {"type": "string", "maxLength": 40},
    },
}
