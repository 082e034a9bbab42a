"""The pictures the mall's mails show, drawn to be read at a mail's width (600 px,
576 inside its margins): a turn mail's is what its reader chooses from, the
Dispenser and their own mall, side by side when both fit and one above the other
when not; the game-over mail's is every final mall. Each is drawn from what
everyone may see (tiles and customers: no secret card, no tile of the supply)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

from pbem.i18n import gettext as _

from .content import load
from .document import mall_of
from .svg_dispenser import dispenser_svg
from .svg_mall import mall_svg

CONTENT = load()
WIDTH = 576  # CSS pixels: a mail's 600, less its margins
MALL_CELL = 66  # CSS pixels a cell of a mall: its smallest words (0.17 of a cell) 11 px
DISPENSER_CELL = 66  # CSS pixels a slot of the Dispenser, for the same words
GAP = 16  # CSS pixels between the two drawings
TITLE = 22  # CSS pixels above each drawing for its title
_VIEWBOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')


def turn_picture(doc: Mapping[str, Any], seat: int) -> str | None:
    """What `seat` chooses from on its turn, as one SVG document: the Dispenser (its
    public slots, as everyone sees them) and the seat's own mall, each under its
    title, drawn large enough to read at a mail's width."""
    mine = next((p for p in doc["players"] if p["seat"] == seat), None)
    if mine is None or not doc.get("dispenser"):
        return None
    dispenser = dispenser_svg(doc["dispenser"], CONTENT, id_prefix="mail-dispenser", cell=64)
    mall = mall_svg(
        mall_of({"tiles": mine["tiles"], "customers": mine["customers"]}, CONTENT),
        label=_("Your mall"),
        id_prefix="mail-mall",
        margins=(1, 1),  # a column each side and a floor above: where it may grow
    )
    drawings = [
        (_("The Dispenser 3000"), dispenser, DISPENSER_CELL / 64),
        (_("Your mall"), mall, MALL_CELL / 48),
    ]
    sized = [s for s in (_sized(t, svg, scale) for t, svg, scale in drawings) if s is not None]
    if len(sized) != len(drawings):
        return None
    (_t, _d, dw, dh), (_t, _m, mw, mh) = sized
    if dw + GAP + mw <= WIDTH:  # side by side
        spots = [(0.0, 0.0), (dw + GAP, 0.0)]
        width, height = dw + GAP + mw, max(dh, mh) + TITLE
    else:  # one above the other
        spots = [(0.0, 0.0), (0.0, dh + TITLE + GAP)]
        width, height = max(dw, mw), dh + mh + 2 * TITLE + GAP
    placed: list[str] = []
    for (title, svg, w, h), (x, y) in zip(sized, spots, strict=True):
        placed.append(_title(title, x, y))
        placed.append(_placed(svg, x, y + TITLE, w, h))
    return _document(width, height, placed)


def _sized(title: str, svg: str, scale: float) -> tuple[str, str, float, float] | None:
    """A drawing and its size in CSS pixels at `scale` (shrunk to fit WIDTH)."""
    found = _VIEWBOX.search(svg)
    if found is None:
        return None
    width, height = float(found[1]), float(found[2])
    scale = min(scale, WIDTH / width)
    return title, svg, width * scale, height * scale


def _title(text: str, x: float, y: float) -> str:
    return (
        f'<text x="{x + 2:g}" y="{y + TITLE - 6:g}" font-size="15" font-weight="bold"'
        f' font-family="sans-serif" fill="#222222">{escape(text)}</text>'
    )


def _placed(svg: str, x: float, y: float, w: float, h: float) -> str:
    """A drawing's root element placed at (x, y) at `w` by `h` CSS pixels."""
    place = f' x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}"'
    svg = svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)
    return svg.replace(' width="100%"', place, 1)


def _document(width: float, height: float, placed: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}"'
        f' viewBox="0 0 {width:g} {height:g}">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(placed)}</svg>'
    )
