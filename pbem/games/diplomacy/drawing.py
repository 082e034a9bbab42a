"""The map as the pages and mails show it, drawn from a state document: only what
its viewer may see, so never another seat's pending orders. The current board with
the viewer's own orders, or the board the last resolution started from with every
order of that phase (public once resolved). Page-ready: the package's style replaced
by MAP_STYLE (every rule scoped to the drawing's class), ids prefixed (two maps may
share a page), no style attribute, a title for screen readers, sized by its
viewBox; on the page's map to order on, each province's shape, unit and label says
its province (`data-province`) for the page script to click."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from .position import POWERS, Position, start
from .svg import render

MAP_CLASS = "dip-map"
# The package's map style, each rule scoped to the drawing (an inline SVG's style
# applies to the whole page), the root's font size fixed (the labels are sized in
# ems), and without the rules of what the renderer never draws.
_RULES = (
    ("", "font-size:16px"),
    (
        ".labeltext24",
        "text-anchor:middle;stroke-width:0.1;stroke:black;fill:black;"
        "font-family:serif,sans-serif;font-style:italic;font-size:1.4em",
    ),
    (
        ".labeltext18",
        "text-anchor:middle;stroke-width:0.1;stroke:black;fill:black;"
        "font-family:serif,sans-serif;font-style:italic;font-size:1.1em",
    ),
    (".labeltext24 text", "cursor:default"),
    (".currentnotetext", "font-family:serif,sans-serif;font-size:1.5em;fill:black;stroke:black"),
    (".currentnoterect", "fill:#c5dfea"),
    (".currentphasetext", "font-family:serif,sans-serif;font-size:2.5em;fill:black;stroke:black"),
    (".impassable", "fill:#353433;stroke:#000000;stroke-width:1"),
    (".nopower", "fill:antiquewhite;stroke:#000000;stroke-width:1"),
    (".water", "fill:#c5dfea;stroke:#000000;stroke-width:1"),
    (".neutral", "fill:lightgray;stroke:#000000;stroke-width:1"),
    (".austria", "fill:#c48f85;stroke:#000000;stroke-width:1"),
    (".england", "fill:darkviolet;stroke:#000000;stroke-width:1"),
    (".france", "fill:royalblue;stroke:#000000;stroke-width:1"),
    (".germany", "fill:#a08a75;stroke:#000000;stroke-width:1"),
    (".italy", "fill:forestgreen;stroke:#000000;stroke-width:1"),
    (".russia", "fill:#757d91;stroke:#000000;stroke-width:1"),
    (".turkey", "fill:#b9a61c;stroke:#000000;stroke-width:1"),
    (".unitaustria", "fill:red;fill-opacity:0.85"),
    (".unitengland", "fill:mediumpurple;fill-opacity:0.85"),
    (".unitfrance", "fill:deepskyblue;fill-opacity:0.85"),
    (".unitgermany", "fill:dimgray;fill-opacity:0.85"),
    (".unititaly", "fill:olive;fill-opacity:0.85"),
    (".unitrussia", "fill:white;fill-opacity:1.0"),
    (".unitturkey", "fill:yellow;fill-opacity:0.85"),
    (".supportorder", "stroke-width:6;fill:none;stroke-dasharray:5,5"),
    (".convoyorder", "stroke-dasharray:15,5;stroke-width:6;fill:none"),
    (".shadowdash", "stroke-width:10;fill:none;stroke:black;opacity:0.45"),
    (".varwidthorder", "fill:none"),
    (".varwidthshadow", "fill:none;stroke:black"),
)
MAP_STYLE = "".join(
    f".{MAP_CLASS}{' ' + selector if selector else ''}{{{rules}}}" for selector, rules in _RULES
)
STYLED = frozenset(s.split()[0][1:] for s, _ in _RULES if s)  # the classes styled
MAIL_WIDTH = 576  # CSS pixels: a mail's 600, less its margins

_ROOT = re.compile(r"<svg\b[^>]*>")
_VIEWBOX = re.compile(r'viewBox="([\d. ]+)"')
_STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'href="#([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")
# The map's ids of the provinces whose ids are not their short names.
PROVINCE_IDS = {"NAO": "nat", "NWG": "nrg", "MAO": "mid", "LYO": "gol", "TYS": "tyn"}
_ID_PROVINCES = {map_id: province for province, map_id in PROVINCE_IDS.items()}
_PROVINCE_SHAPE = re.compile(r'\bid="_([a-z]{3})"')
_UNIT = re.compile(r'\bid="((?:dislodged_)?unit_([A-Z]{3})[^"]*)"')
_LABEL = re.compile(r"<text\b([^>]*)>([A-Z]{3})</text>")


@functools.cache
def _homes(map_name: str) -> tuple[tuple[str, ...], ...]:
    return start(map_name).homes


def position_of(map_name: str, board: Mapping[str, Any]) -> Position:
    """The position a state document's board (or its `last` board) shows: units,
    dislodged units, centres and influence per power (home centres from the map;
    nothing the renderer draws needs more)."""
    return Position(
        map=map_name,
        phase=str(board["phase"]),
        units=tuple(tuple(board["units"][p]) for p in POWERS),
        retreats=tuple(
            tuple((str(u), tuple(where)) for u, where in board["dislodged"][p].items())
            for p in POWERS
        ),
        centres=tuple(tuple(board["centres"][p]) for p in POWERS),
        homes=_homes(map_name),
        influence=tuple(tuple(board.get("influence", {}).get(p, ())) for p in POWERS),
        civil_disorder=tuple(0 for _ in POWERS),
    )


def drawn_orders(
    doc: Mapping[str, Any], seat: int | None, last: bool
) -> tuple[Mapping[str, Any] | None, dict[str, list[str]]]:
    """The board to draw and the orders on it: with `last`, the board the last
    resolution started from and every order of that phase; else the board now and
    the viewer's own pending orders (a state document has no one else's)."""
    if last:
        board = doc.get("last")
        if not board:
            return None, {}
        record = next((r for r in reversed(doc["history"]) if r["phase"] == board["phase"]), None)
        return board, dict(record["orders"]) if record else {}
    mine = doc.get("my_orders")
    power = next((p["power"] for p in doc["players"] if p["seat"] == seat), None)
    if power is None or not mine or doc["status"] != "playing":
        return doc, {}
    return doc, {power: list(mine)}


def map_svg(
    doc: Mapping[str, Any],
    seat: int | None,
    *,
    last: bool = False,
    prefix: str = "map",
    label: str = "",
    width: float | None = None,
    hooks: bool = False,
) -> str | None:
    """The map as one SVG element for a page (`width` None: as wide as its frame)
    or a mail picture (`width` CSS pixels); None with `last` before any resolution.
    With `hooks`, each province's shape, unit and label carries `data-province`."""
    board, orders = drawn_orders(doc, seat, last)
    if board is None:
        return None
    keys = ("phase", "units", "dislodged", "centres", "influence")
    shown = json.dumps([{k: board.get(k) for k in keys}, orders], sort_keys=True)
    drawn = _drawn(str(doc["map"]), shown)
    return _page_ready(hooked(drawn) if hooks else drawn, prefix, label, width)


def hooked(svg: str) -> str:
    """The drawing with each province's shape, unit (dislodged too) and label
    saying its province's short name in `data-province` (attributes only: still no
    script or handler)."""

    def shape(m: re.Match[str]) -> str:
        return f'{m[0]} data-province="{_ID_PROVINCES.get(m[1], m[1].upper())}"'

    svg = _PROVINCE_SHAPE.sub(shape, svg)
    svg = _UNIT.sub(lambda m: f'{m[0]} data-province="{m[2]}"', svg)
    return _LABEL.sub(lambda m: f'<text{m[1]} data-province="{m[2]}">{m[2]}</text>', svg)


@functools.lru_cache(maxsize=32)
def _drawn(map_name: str, shown: str) -> str:
    board, orders = json.loads(shown)
    return render(position_of(map_name, board), orders)


def _page_ready(svg: str, prefix: str, label: str, width: float | None) -> str:
    """The package's drawing with its style scoped, its ids prefixed, and a root
    that says what it shows and sizes itself by its viewBox."""
    svg = _STYLE.sub(f"<style>{MAP_STYLE}</style>", svg, count=1)
    svg = _ID.sub(lambda m: f'id="{prefix}-{m[1]}"', svg)
    svg = _HREF.sub(lambda m: f'href="#{prefix}-{m[1]}"', svg)
    svg = _URL.sub(lambda m: f"url(#{prefix}-{m[1]})", svg)
    root = _ROOT.search(svg)
    box = _VIEWBOX.search(root[0]) if root else None
    if root is None or box is None:
        raise ValueError("the renderer's map has no root with a viewBox")
    _x, _y, w, h = (float(n) for n in box[1].split())
    size = (
        ' width="100%"'
        if width is None
        else f' width="{width:g}" height="{round(width * h / w, 1):g}"'
    )
    title = f"{prefix}-title"
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        f' class="{MAP_CLASS}" viewBox="{box[1]}" preserveAspectRatio="xMinYMin"{size}'
        f' role="img" aria-labelledby="{title}"><title id="{title}">{escape(label)}</title>'
    )
    return head + svg[root.end() :]
