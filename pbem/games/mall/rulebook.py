"""The mall's rules page, drawn from the content set the engine plays with: every tile
kind, the entrances' wants, the attractions with their shapes, conditions and points,
the docking bays, the balloons per player count, the founder's statue and the end.
Its words are in the reader's language; ids, colours and numbers stay as data."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.i18n import gettext as _

from .content import Content, load
from .explain import (
    attraction_name,
    balloon_rule,
    balloon_title,
    balloon_values,
    bay_requirement,
    condition_words,
    kind_words,
    said,
    title,
)
from .svg_common import tile_colour
from .svg_shape import shape_svg, shape_words


def rules(content: Content | None = None) -> dict[str, Any]:
    """The context of the mall's rules partial."""
    content = content or load()
    counts = range(content.min_players, content.max_players + 1)
    return {
        "content": content.name,
        "player_counts": list(counts),
        "kinds": _kinds(content, counts),
        "main": {
            "cells": len(content.main_cells),
            "wants": list(content.main_wants),
            "wants_said": [said(w) for w in content.main_wants],
        },
        "entrances": _entrances(content),
        "dispenser": {
            "columns": list(content.columns),
            "rows": content.rows,
            "costs": [content.cost(r) for r in range(1, content.rows + 1)],
        },
        "money": {"start": content.start_money, "bank": content.start_bank},
        "reach": content.reach,
        "in_play": {
            colour: [table[p] for p in counts]
            for colour, table in (
                ("purple", content.purple_in_play),
                ("pink", content.pink_in_play),
            )
        },
        "attractions": [_attraction(spec_id, content) for spec_id in content.commons],
        "statue": _attraction(content.personal_id, content),
        "cards": [
            {"id": card, "condition": condition_words(c, content), "rules": c.describe()}
            for card, c in content.cards.items()
        ],
        "bays": [
            {
                "id": bay.id,
                "name": _(bay.name),
                "type": bay.type,
                "type_said": said(bay.type),
                "points": bay.points,
                "requirement": bay_requirement(bay, content),
                "effect": bay.describe(),
            }
            for bay in content.bays.values()
        ],
        "balloons": [
            {
                "set": b.name,
                "title": balloon_title(b),
                "rule": balloon_rule(b),
                "colour": tile_colour("entrance" if b.ranked_by == "satisfied" else b.ranked_by),
                "values": {p: list(balloon_values(b, p)) for p in counts},
            }
            for b in content.balloons
        ],
        "supply": {
            p: len(content.tiles_for(p)) - len(content.columns) * content.rows for p in counts
        },
    }


def _kinds(content: Content, counts: range) -> list[dict[str, Any]]:
    """Each element kind: its letter, store names, and how many tiles per player count."""
    kinds = []
    for category in content.categories:
        specs = [s for s in content.elements.values() if s.category == category]
        names = list(dict.fromkeys(s.name for s in specs if s.name))
        used = {
            p: Counter(content.elements[t].category for t in content.tiles_for(p)) for p in counts
        }
        kinds.append(
            {
                "category": category,
                "words": kind_words(category),
                "title": title(category),
                "letter": specs[0].id[0],
                "ids": f"{specs[0].id}–{specs[-1].id}",
                "names": [_(name) for name in names],
                "colour": tile_colour(category),
                "used": {p: used[p][category] for p in counts},
            }
        )
    return kinds


def _entrances(content: Content) -> list[dict[str, Any]]:
    """The entrance tiles in runs with the same wants: "R01–R04: food, food"."""
    runs: list[dict[str, Any]] = []
    for spec in content.elements.values():
        if spec.category != "entrance":
            continue
        if runs and runs[-1]["wants"] == list(spec.wants):
            runs[-1]["last"] = spec.id
            runs[-1]["ids"].append(spec.id)
        else:
            wants = list(spec.wants)
            runs.append(
                {
                    "first": spec.id,
                    "last": spec.id,
                    "ids": [spec.id],
                    "wants": wants,
                    "wants_said": [said(w) for w in wants],
                }
            )
    return runs


def _attraction(spec_id: str, content: Content) -> dict[str, Any]:
    spec = content.attractions[spec_id]
    name = attraction_name(spec.id)
    return {
        "id": spec.id,
        "name": name,
        "colour": spec.colour,
        "colour_said": said(spec.colour),
        "points": spec.points,
        "condition": condition_words(spec.condition, content) if spec.condition else None,
        "rules": spec.condition.describe() if spec.condition else None,
        "shape": shape_svg(spec, name, id_prefix="rules-shape"),
        "shape_words": shape_words(spec),
        "mirrors": not spec.symmetric,
    }
