"""The words of a mall's drawing, in the reader's language: each tile's and customer's
tooltip, and the whole mall in one sentence (the drawing's description)."""

from __future__ import annotations

from collections import Counter

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from .content import Content
from .explain import attraction_tile_words, bay_tile_words
from .mall import ATTRACTION, DOCK, MAIN, Customer, Mall, Tile
from .svg_common import Cell, describe_element


def describe_tile(tile: Tile, content: Content) -> str:
    """A tile in words, as its tooltip shows it."""
    if tile.kind == MAIN:
        return _("%(id)s: Main Entrance", id=tile.id)
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        return bay_tile_words(bay) if bay else _("%(id)s: docking bay", id=tile.id)
    if tile.kind == ATTRACTION:
        cells = " ".join(f"({x},{y})" for x, y in sorted(tile.platforms, key=_floor_first))
        words = attraction_tile_words(tile.id, content)
        return _("%(words)s; platform cells %(cells)s", words=words, cells=cells or _("none"))
    if tile.id in content.elements:
        return describe_element(tile.id, content)
    return f"{tile.id} ({tile.kind})"


def describe_customer(customer: Customer) -> str:
    """A customer in words: "R13.2 wants hobby — satisfied on B07"."""
    want, on = _(customer.want), customer.on
    if customer.satisfied:
        return _("%(id)s wants %(want)s — satisfied on %(on)s", id=customer.id, want=want, on=on)
    return _("%(id)s wants %(want)s — waiting on %(on)s", id=customer.id, want=want, on=on)


def _floor_first(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


# -- the mall -------------------------------------------------------------------------


def mall_summary(mall: Mall) -> str:
    """The mall in one sentence: tiles by kind, height, customers satisfied and waiting."""
    counts = Counter(tile.kind for tile in mall.tiles)
    order = [MAIN, *mall.content.categories, DOCK, ATTRACTION]
    order += sorted(set(counts) - set(order))
    kinds = ", ".join(kind_count(kind, counts[kind]) for kind in order if counts[kind])
    height = max((y for _, y in mall.owner), default=0)
    satisfied = len(mall.satisfied)
    tiles = ngettext(
        "%(num)d tile up to floor %(height)s (%(kinds)s);",
        "%(num)d tiles up to floor %(height)s (%(kinds)s);",
        len(mall.tiles),
        height=height,
        kinds=kinds,
    )
    customers = ngettext(
        "%(num)d customer satisfied, %(waiting)s waiting.",
        "%(num)d customers satisfied, %(waiting)s waiting.",
        satisfied,
        waiting=len(mall.customers) - satisfied,
    )
    return f"{tiles} {customers}"


def kind_count(kind: str, n: int) -> str:
    """How many tiles of one kind, in words: "2 food", "1 docking bay"."""
    if kind == MAIN:
        return (
            _("Main Entrance")
            if n == 1
            else ngettext("%(num)d Main Entrance", "%(num)d Main Entrances", n)
        )
    if kind == DOCK:
        return ngettext("%(num)d docking bay", "%(num)d docking bays", n)
    if kind == ATTRACTION:
        return ngettext("%(num)d attraction", "%(num)d attractions", n)
    return f"{n} {_(kind)}"
