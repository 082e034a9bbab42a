"""A player's mall as SVG: every tile and customer, scalable and accessible, marked
with classes and data attributes (`g.tile`, `g.customer`, `rect.target`) that the
turn script uses."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from pbem.i18n import gettext as _

from .content import Content
from .explain import attraction_name
from .mall import ATTRACTION, DOCK, MAIN, Customer, Mall, Tile
from .svg_common import (
    AXIS,
    COLOURS,
    DARK,
    EMPTY,
    GRID,
    HIGHLIGHT,
    LIGHT,
    MALL_STYLE,
    MARGIN_COLUMNS,
    MARGIN_FLOORS,
    PAPER,
    SHAPES,
    Cell,
    customer_marker,
    drawing_prefix,
    face,
    fit,
    kind_mark,
    num,
    svg_element,
    svg_text,
    text_colour,
    tile_colour,
)
from .svg_words import describe_customer, describe_tile, mall_summary

TOUCH_CELL = 44  # CSS px: a cell a thumb can hit


def tile_fill(tile: Tile, content: Content) -> str:
    """A tile's colour: its category, its bay type, or its attraction's colour."""
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        return tile_colour(bay.type if bay else "grey")
    if tile.kind == ATTRACTION:
        spec = content.attractions.get(tile.id)
        return tile_colour(spec.colour if spec else "purple")
    return COLOURS.get(tile.kind, COLOURS["main"])


@dataclass(frozen=True)
class _Frame:
    """The drawn area: columns `left`..`right`, floors 1..`top`, `cell` units a cell,
    with floor numbers in a gutter on the left and column numbers below."""

    left: int
    right: int
    top: int
    cell: int

    @classmethod
    def around(cls, mall: Mall, cell: int, margins: tuple[int, int]) -> _Frame:
        """The mall's cells with `margins` spare columns on each side and floors above."""
        columns, floors = margins
        xs = [x for x, _ in mall.owner] or [0]
        height = max((y for _, y in mall.owner), default=1)
        return cls(min(xs) - columns, max(xs) + columns, height + floors, cell)

    @property
    def gutter(self) -> float:
        return self.cell * 0.6

    @property
    def pad(self) -> float:
        return self.cell * 0.25

    @property
    def size(self) -> tuple[float, float]:
        columns = self.right - self.left + 1
        return (
            self.gutter + columns * self.cell + self.pad,
            self.pad + self.top * self.cell + self.gutter,
        )

    def corner(self, x: int, y: int) -> tuple[float, float]:
        """Top-left corner of cell (x, y)."""
        return (self.gutter + (x - self.left) * self.cell, self.pad + (self.top - y) * self.cell)

    def cells(self) -> Iterator[Cell]:
        """Every cell of the drawn area, top floor first, left to right."""
        for y in range(self.top, 0, -1):
            for x in range(self.left, self.right + 1):
                yield (x, y)


def mall_svg(
    mall: Mall,
    *,
    label: str,
    changed: frozenset[str] = frozenset(),
    targets: bool = False,
    cell: int = 48,
    id_prefix: str | None = None,
    margins: tuple[int, int] = (MARGIN_COLUMNS, MARGIN_FLOORS),
) -> str:
    """One mall as an `<svg>` element: every tile (`g.tile`) and customer
    (`g.customer`), the tiles in `changed` highlighted, and with `targets` a clickable
    `rect.target` over every empty cell of the drawn area (none of them a tab stop
    until the turn script lights it). `margins` are the spare columns on each side and
    floors above the mall (room to build, by default)."""
    frame = _Frame.around(mall, cell, margins)
    prefix = drawing_prefix(label, id_prefix, "mall")
    # Changed tiles come last so that no neighbour paints over their highlight.
    tiles = sorted(mall.tiles, key=lambda t: t.id in changed)
    body = [
        _backdrop(frame),
        '<g class="tiles">',
        *(_tile(tile, mall.content, frame, tile.id in changed) for tile in tiles),
        "</g>",
        _customers(mall, frame),
        _axes(frame),
    ]
    if targets:
        body.append(_targets(mall, frame))
    heading = (label, mall_summary(mall))
    # On a phone a mall to build in keeps cells of TOUCH_CELL CSS px (mall.css).
    wide = frame.size[0] * TOUCH_CELL / cell if targets else None
    return svg_element(
        "mall", frame.size, prefix, heading, MALL_STYLE, body, controls=targets, touch_width=wide
    )


def _backdrop(frame: _Frame) -> str:
    width, height = frame.size
    x0, y0 = frame.corner(frame.left, frame.top)
    x1, y1 = frame.corner(frame.right + 1, 0)
    lines = "".join(f"M{num(x0)} {num(y)}H{num(x1)}" for y in _steps(y0, y1, frame.cell))
    lines += "".join(f"M{num(x)} {num(y0)}V{num(y1)}" for x in _steps(x0, x1, frame.cell))
    return (
        f'<g class="backdrop"><rect width="{num(width)}" height="{num(height)}" fill="{PAPER}"/>'
        f'<rect x="{num(x0)}" y="{num(y0)}" width="{num(x1 - x0)}" height="{num(y1 - y0)}"'
        f' fill="{EMPTY}"/><path d="{lines}" stroke="{GRID}" stroke-width="1" fill="none"/>'
        f'<path class="ground" d="M{num(x0)} {num(y1)}H{num(x1)}" stroke="{AXIS}"'
        f' stroke-width="{num(frame.cell / 16)}"/></g>'
    )


def _steps(start: float, stop: float, step: int) -> list[float]:
    count = round((stop - start) / step)
    return [start + i * step for i in range(count + 1)]


def _tile(tile: Tile, content: Content, frame: _Frame, changed: bool) -> str:
    fill = tile_fill(tile, content)
    c = frame.cell
    classes = f"tile kind-{tile.kind}" + (" changed" if changed else "")
    parts = [
        f"<g class={quoteattr(classes)} data-tile={quoteattr(tile.id)}>",
        f"<title>{escape(describe_tile(tile, content))}</title>",
    ]
    for x, y in tile.cells:
        px, py = frame.corner(x, y)
        kind = "cell platform" if (x, y) in tile.platforms else "cell"
        parts.append(
            f'<rect class="{kind}" data-x="{x}" data-y="{y}" x="{num(px)}" y="{num(py)}"'
            f' width="{c}" height="{c}" fill="{fill}" stroke="{fill}"/>'
        )  # the stroke in the fill's colour hides seams between the cells of one tile
    parts += [_deck(frame, cell) for cell in sorted(tile.platforms)]
    edges = _outline(tile.cells, frame)
    if changed:
        parts.append(
            f'<path class="highlight" d="{edges}" fill="none" stroke="{HIGHLIGHT}"'
            f' stroke-width="{num(c / 7)}" stroke-linecap="square"/>'
        )
    parts.append(
        f'<path class="outline" d="{edges}" fill="none" stroke="{DARK}"'
        f' stroke-width="{num(max(1, c / 32))}" stroke-linecap="square"/>'
    )
    parts += _tile_labels(tile, content, frame, text_colour(fill))
    if tile.kind in SHAPES:
        left, top = frame.corner(min(x for x, _ in tile.cells), max(y for _, y in tile.cells))
        parts.append(kind_mark(tile.kind, left, top, c, text_colour(fill)))
    parts.append("</g>")
    return "".join(parts)


def _deck(frame: _Frame, cell: Cell) -> str:
    """A platform's deck: a striped band along the top of the cell, where an element
    may stand."""
    px, py = frame.corner(*cell)
    c = frame.cell
    y = py + c * 0.07
    band = f"M{num(px + c * 0.06)} {num(y)}H{num(px + c * 0.94)}"
    return (
        f'<path class="deck" d="{band}" stroke="{DARK}" stroke-width="{num(c * 0.12)}"/>'
        f'<path d="{band}" stroke="{LIGHT}" stroke-width="{num(c * 0.06)}"'
        f' stroke-dasharray="{num(c / 12)} {num(c / 12)}"/>'
    )


def _outline(cells: Sequence[Cell], frame: _Frame) -> str:
    """Path data along the outer edges of a tile's cells only, so that a tile of several
    cells reads as one block."""
    own = set(cells)
    c = frame.cell
    edges = []
    for x, y in sorted(own):
        px, py = frame.corner(x, y)
        if (x, y + 1) not in own:
            edges.append(f"M{num(px)} {num(py)}h{c}")
        if (x, y - 1) not in own:
            edges.append(f"M{num(px)} {num(py + c)}h{c}")
        if (x - 1, y) not in own:
            edges.append(f"M{num(px)} {num(py)}v{c}")
        if (x + 1, y) not in own:
            edges.append(f"M{num(px + c)} {num(py)}v{c}")
    return "".join(edges)


def _tile_labels(tile: Tile, content: Content, frame: _Frame, ink: str) -> list[str]:
    """The words on a tile: attractions their name once, on a middle cell; other
    tiles their id, then for stores, bays and the Main Entrance a name."""
    c = frame.cell
    if tile.kind == ATTRACTION:
        px, py = frame.corner(*_middle_cell(tile))
        size = c * 0.17
        lines = fit(attraction_name(tile.id), int(c * 0.92 / (size * 0.56)))
        top = py + c * (0.56 - 0.1 * (len(lines) - 1))
        return [
            svg_text(px + c / 2, top + i * size * 1.15, line, size, ink, bold=True)
            for i, line in enumerate(lines)
        ]
    xs = [x for x, _ in tile.cells]
    left, top = frame.corner(min(xs), max(y for _, y in tile.cells))
    width = (max(xs) - min(xs) + 1) * c
    return face(left, top, width, c, tile.id, _tile_name(tile, content), ink)


def _tile_name(tile: Tile, content: Content) -> str | None:
    if tile.kind == MAIN:
        return _("Main Entrance")
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        return _(bay.name) if bay else None
    spec = content.elements.get(tile.id)
    return _(spec.name) if spec and spec.name and tile.kind != "entrance" else None


def _middle_cell(tile: Tile) -> Cell:
    """The cell nearest the middle of the tile, a non-platform cell if possible."""
    cx = sum(x for x, _ in tile.cells) / len(tile.cells)
    cy = sum(y for _, y in tile.cells) / len(tile.cells)
    return min(
        tile.cells,
        key=lambda cell: (cell in tile.platforms, (cell[0] - cx) ** 2 + (cell[1] - cy) ** 2, cell),
    )


def _customers(mall: Mall, frame: _Frame) -> str:
    """Every customer as a marker along the bottom of the tile it stands on, side by
    side when several share a tile."""
    standing: dict[str, list[Customer]] = {}
    for customer in sorted(mall.customers, key=lambda c: c.id):
        standing.setdefault(customer.on, []).append(customer)
    c = frame.cell
    parts = ['<g class="customers">']
    for tile in mall.tiles:
        here = standing.get(tile.id, [])
        floor = min(y for _, y in tile.cells)
        xs = [x for x, y in tile.cells if y == floor]
        left, top = frame.corner(min(xs), floor)
        span = (max(xs) - min(xs) + 1) * c
        edge = text_colour(tile_fill(tile, mall.content))
        for i, customer in enumerate(here):
            cx = left + span * (i + 0.5) / len(here)
            parts.append(_customer(customer, cx, top + c * 0.83, c * 0.12, edge))
    parts.append("</g>")
    return "".join(parts)


def _customer(customer: Customer, cx: float, cy: float, r: float, edge: str) -> str:
    status = "satisfied" if customer.satisfied else "waiting"
    classes = f"customer want-{customer.want} {status}"
    return (
        f"<g class={quoteattr(classes)} data-customer={quoteattr(customer.id)}"
        f" data-on={quoteattr(customer.on)}>"
        f"<title>{escape(describe_customer(customer))}</title>"
        f"{customer_marker(customer.want, customer.satisfied, cx, cy, r, edge)}</g>"
    )


def _axes(frame: _Frame) -> str:
    """Floor numbers on the left, column numbers below."""
    c = frame.cell
    size = c * 0.25
    parts = [f'<g class="axes" fill="{AXIS}" font-size="{num(size)}">']
    for y in range(1, frame.top + 1):
        _, py = frame.corner(frame.left, y)
        parts.append(
            f'<text class="floor-label" data-y="{y}" x="{num(frame.gutter - c * 0.12)}"'
            f' y="{num(py + c / 2 + size * 0.35)}" text-anchor="end">{y}</text>'
        )
    for x in range(frame.left, frame.right + 1):
        px, py = frame.corner(x, 0)
        parts.append(
            f'<text class="column-label" data-x="{x}" x="{num(px + c / 2)}"'
            f' y="{num(py + size * 1.3)}" text-anchor="middle">{x}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def _targets(mall: Mall, frame: _Frame) -> str:
    """A transparent rect over every empty cell, above everything else, for a script to
    light up (class `legal`) and click."""
    c = frame.cell
    parts = ['<g class="targets">']
    for x, y in frame.cells():
        if (x, y) not in mall.owner:
            px, py = frame.corner(x, y)
            parts.append(
                f'<rect class="target" data-x="{x}" data-y="{y}" x="{num(px)}" y="{num(py)}"'
                f' width="{c}" height="{c}" fill="transparent"/>'
            )
    parts.append("</g>")
    return "".join(parts)
