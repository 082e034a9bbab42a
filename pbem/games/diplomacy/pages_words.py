"""What the Diplomacy pages say beside the map, in the reader's language, from a
state document: the possible orders grouped by unit, the last phase's orders and
results, the outcome, and the rules page's facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from .position import POWERS, SEATS, victory
from .words import listing, power_name

# Examples of each kind of order, as the rules page and the mails show them.
EXAMPLES = (
    ("A PAR H", "hold"),
    ("A PAR - BUR", "move"),
    ("A MUN S A BER - SIL", "support"),
    ("F NTH C A LON - NWY", "convoy"),
    ("A LON - NWY VIA", "via"),
    ("A MUN R BOH", "retreat"),
    ("A MUN D", "disband"),
    ("F STP/NC B", "build"),
    ("WAIVE", "waive"),
)


def example_words(kind: str) -> str:
    said = {
        "hold": _("the army in Paris holds"),
        "move": _("it moves to Burgundy"),
        "support": _("the army in Munich supports the army moving from Berlin to Silesia"),
        "convoy": _("the fleet in the North Sea carries the army from London to Norway"),
        "via": _("the army goes by convoy"),
        "retreat": _("a dislodged army retreats to Bohemia"),
        "disband": _("a unit is disbanded (a retreat or an adjustment)"),
        "build": _("a fleet is built in St Petersburg, on its north coast"),
        "waive": _("a build left out"),
    }
    return said[kind]


def _unit_at(doc: Mapping[str, Any], power: str, loc: str) -> str | None:
    units = [*doc["dislodged"][power], *doc["units"][power]]
    return next((u for u in units if u.split()[1][:3] == loc), None)


def unit_groups(
    doc: Mapping[str, Any], power: str | None, options: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The seat's possible orders by location (each a unit, or a centre it may
    build in), each order one of the legal actions (`options`: one order each)."""
    if power is None:
        return []
    by_text = {str(o["text"]): o for o in options}
    dislodged = set(doc["dislodged"][power])
    groups = []
    for loc, orders in sorted(doc.get("possible", {}).items()):
        unit = _unit_at(doc, power, loc)
        if doc["phase"].endswith("A") and doc["adjustments"][power] > 0:
            title = _("Build in %(loc)s", loc=loc)
        elif unit in dislodged:
            title = _("%(unit)s (dislodged)", unit=unit)
        else:
            title = unit or loc
        listed = [by_text.get(o, {"text": o, "action": o, "preview": ""}) for o in orders]
        groups.append({"title": title, "loc": loc, "options": listed})
    return groups


def _records(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The phases the last resolution went through (from the one it resolved)."""
    history = list(doc["history"])
    last = doc.get("last")
    if not history or not last:
        return history[-1:]
    starts = [i for i, r in enumerate(history) if r["phase"] == last["phase"]]
    return history[starts[-1] :] if starts else history[-1:]


def last_phase(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The last resolved phase: its name, every power's orders (public once
    resolved), each unit's results, and the phases it went on through where
    nobody had anything to order; None before the first resolution."""
    records = _records(doc)
    if not records:
        return None
    first = records[0]
    orders = [
        {"power": power, "power_name": power_name(power), "orders": list(given)}
        for power in POWERS
        if (given := first["orders"].get(power)) is not None
    ]
    results = [
        {"unit": unit, "results": said} for unit, said in sorted(first["results_said"].items())
    ]
    return {
        "phase": first["phase"],
        "phase_name": first["phase_name"],
        "orders": orders,
        "results": results,
        "then": [r["phase_name"] for r in records[1:]],
    }


def outcome(doc: Mapping[str, Any]) -> str | None:
    """The end in words (a solo victory, or a draw among whom), None while playing."""
    if doc["status"] != "finished" or not doc["winners"]:
        return None
    names = {p["seat"]: p for p in doc["players"]}
    powers = listing(
        _("%(power)s (%(name)s)", power=names[s]["power_name"], name=names[s]["name"])
        for s in doc["winners"]
    )
    if doc["drawn"]:
        return _("The game ended in a draw among %(powers)s.", powers=powers)
    seat = doc["winners"][0]
    centres = len(doc["centres"][names[seat]["power"]])
    return ngettext(
        "%(powers)s won alone, with %(num)d supply centre.",
        "%(powers)s won alone, with %(num)d supply centres.",
        centres,
        powers=powers,
    )


def rules_context() -> dict[str, Any]:
    """The rules page's facts, from the rules: the powers by seat, the centres a
    solo victory takes, the orders' examples."""
    return {
        "powers": [{"seat": s, "power_name": power_name(POWERS[s - 1])} for s in SEATS],
        "victory": victory("standard"),
        "examples": [{"order": order, "words": example_words(kind)} for order, kind in EXAMPLES],
    }
