"""Diplomacy on the web pages (the `Pages` of pbem.games.base): the map drawn from
the state document the viewer may see (their own pending orders on it, nobody
else's), the powers' centres and who has ordered, the last phase's orders and
results with their map, the orders form (a textarea, the possible orders per unit,
a draw vote), the seat-to-power table on the New game form and the rules page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.i18n import gettext as _

from .clicking import script_data
from .drawing import MAP_CLASS, MAP_STYLE, PROVINCE_IDS, map_svg
from .pages_words import (
    last_phase,
    outcome,
    rules_context,
    unit_groups,
)
from .position import POWERS
from .schema import SETUP_SCHEMA, STATE_SCHEMA

marker = f'class="{MAP_CLASS}"'
partials = {
    "board": "board.html",
    "beside": "ordered.html",
    "turn": "turn.html",
    "setup": "setup.html",
    "rules": "rules.html",
}
script: str | None = "orders.js"  # orders by clicking the map; the form does it all too
stylesheet: str | None = "diplomacy.css"
inline_styles: Sequence[str] = (MAP_STYLE,)
state_schema: Mapping[str, Any] = STATE_SCHEMA
setup_schema: Mapping[str, Any] = SETUP_SCHEMA


def _power_of(doc: Mapping[str, Any], seat: int | None) -> str | None:
    return next((p["power"] for p in doc["players"] if p["seat"] == seat), None)


def board(
    doc: Mapping[str, Any],
    seat: int | None,
    *,
    your_turn: bool = False,
    changed: Any = None,
) -> dict[str, Any]:
    """The map now (with the viewer's own orders), each power's centres, units and
    orders status by seat, the last phase's orders and results (and their map,
    unfolded on the history page at a resolution), and the outcome."""
    mine = _power_of(doc, seat)
    drawn_orders = bool(mine and doc.get("my_orders") and doc["status"] == "playing")
    label = (
        _("The map, %(phase)s, with your orders", phase=doc["phase_name"])
        if drawn_orders
        else _("The map, %(phase)s", phase=doc["phase_name"])
    )
    ordered, waiting = set(doc["ordered"]), set(doc["waiting"])
    winners = set(doc["winners"] or [])
    by_seat = {}
    for p in doc["players"]:
        power = p["power"]
        by_seat[p["seat"]] = {
            "seat": p["seat"],
            "name": p["name"],
            "power": power,
            "power_name": p["power_name"],
            "centres": len(doc["centres"][power]),
            "units": len(doc["units"][power]) + len(doc["dislodged"][power]),
            "you": p["seat"] == seat,
            "winner": p["seat"] in winners,
            "status": "ordered"
            if p["seat"] in ordered
            else "waiting"
            if p["seat"] in waiting
            else "idle",
        }
    resolved = isinstance(changed, Mapping) and bool(changed.get("resolved"))
    last = last_phase(doc)
    if last is not None:
        last["map"] = map_svg(
            doc,
            seat,
            last=True,
            prefix="last",
            label=_("The orders of %(phase)s", phase=last["phase_name"]),
        )
    return {
        "map": map_svg(doc, seat, label=label, hooks=True),
        "map_label": label,
        "by_seat": by_seat,
        "you": by_seat.get(seat) if seat is not None else None,
        "my_orders": list(doc.get("my_orders") or []) if mine else [],
        "my_draw": bool(doc.get("my_draw")) if mine else False,
        "adjust": doc["adjustments"].get(mine, 0) if mine else 0,
        "last": last,
        "open_last": resolved,
        "moved": list(changed.get("units", [])) if isinstance(changed, Mapping) else [],
        "outcome": outcome(doc),
    }


def turn(doc: Mapping[str, Any], seat: int, options: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The orders form: the seat's orders given so far (to change), its draw vote,
    and its possible orders grouped by unit (from the legal actions: each one
    order), with how many builds or disbands an adjustment asks for."""
    power = _power_of(doc, seat)
    groups = unit_groups(doc, power, options)
    examples = []
    for group in groups[:2]:  # an order of the seat's own, for the empty box
        texts = [str(o["text"]) for o in group["options"]]
        examples.append(next((t for t in texts if " - " in t), texts[0] if texts else ""))
    kind = doc["phase"][-1:]
    adjust = doc["adjustments"].get(power, 0) if power else 0
    return {
        "groups": groups,
        "example": "\n".join(e for e in examples if e) or "hold",
        "script": script_data(groups, kind, adjust),
        "orders": "\n".join(doc.get("my_orders") or []),
        "given": doc.get("my_orders") is not None,
        "draw": bool(doc.get("my_draw")),
        "adjust": adjust,
        "kind": kind,
    }


def _located(doc: Mapping[str, Any]) -> dict[str, str]:
    """unit ("A PAR") -> its power, dislodged units too."""
    found = {}
    for power in POWERS:
        for unit in [*doc["units"][power], *doc["dislodged"][power]]:
            found[unit] = power
    return found


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """Whether the event resolved a phase, and the units standing where they did
    not before (moved, retreated or built)."""
    was = _located(before)
    return {
        "resolved": len(after["history"]) > len(before["history"]),
        "units": sorted(unit for unit in _located(after) if unit not in was),
    }


def outlined(before: Mapping[str, Any], after: Mapping[str, Any], seat: int | None) -> list[str]:
    """The provinces (on the map of the page) where another power's unit stands
    now that did not before: what moved while the viewer was away."""
    was = _located(before)
    mine = _power_of(after, seat)
    found = set()
    for unit, power in _located(after).items():
        if unit not in was and power != mine:
            province = unit.split()[-1][:3]
            found.add(PROVINCE_IDS.get(province, province.lower()))
    return [f"#map-_{province}" for province in sorted(found)]


def setup(form: Mapping[str, str]) -> dict[str, Any]:
    """Nothing to choose: the standard map, seven powers by seat."""
    return {}


def rules() -> dict[str, Any]:
    """The rules page's facts, from the rules themselves: the powers by seat, the
    centres a solo victory takes, the order examples."""
    return rules_context()
