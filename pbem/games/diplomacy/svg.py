"""The map as SVG, drawn by the package's renderer (with the provinces' short
names): the current position with the viewer's own pending orders, or the position
the last resolution started from with every order of that phase. Self-contained: no
DOCTYPE, comments, scripts or external references."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping
from typing import Any

from diplomacy import Game as PackageGame
from diplomacy.engine.renderer import Renderer

from .position import POWERS, SEATS, Position, fresh_game
from .state import DipState, OrderSet

_DOCTYPE = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.S)
_SCRIPT = re.compile(r"<script\b.*?</script\s*>|<script\b[^>]*/>", re.S | re.I)
_HANDLER = re.compile(r"\s+on[a-z]+\s*=\s*(\"[^\"]*\"|'[^']*')", re.I)
_FOREIGN_NS = re.compile(r'\s+xmlns:jdipNS="[^"]*"')
_BETWEEN = re.compile(r">\s+<")


@functools.lru_cache(maxsize=4)
def _template(map_name: str) -> Any:
    """A renderer with the map's drawing loaded (read and parsed once per map); a
    drawing copies it and gives the copy its own game."""
    return Renderer(PackageGame(map_name=map_name))


def render(position: Position, orders: Mapping[str, OrderSet]) -> str:
    """`position` with `orders` (power -> its orders) drawn on it."""
    game = fresh_game(position)
    for power, given in orders.items():
        if given:
            game.set_orders(power, list(given))
    renderer = copy.copy(_template(position.map))
    renderer.game = game
    return clean(str(renderer.render(incl_orders=True, incl_abbrev=True)))


def clean(svg: str) -> str:
    """The drawing without what a page must not load or run, and without the
    whitespace between elements."""
    svg = _SCRIPT.sub("", _DOCTYPE.sub("", svg))
    svg = _FOREIGN_NS.sub("", _HANDLER.sub("", svg))
    return _BETWEEN.sub("><", svg).strip()


def draw_map(state: DipState, viewer: int | None, last: bool = False) -> str:
    """The current position with the viewer's own pending orders (nobody else's);
    or, with `last`, the position the last resolution started from with every
    order given in that phase (public once resolved)."""
    if last:
        if state.previous is None:
            return render(state.position, {})
        record = next(r for r in reversed(state.history) if r.phase == state.previous.phase)
        return render(state.previous, {POWERS[i]: o for i, o in enumerate(record.orders)})
    own: dict[str, OrderSet] = {}
    if viewer in SEATS and viewer is not None and not state.over:
        own[POWERS[viewer - 1]] = state.pending[viewer - 1]
    return render(state.position, own)
