"""SVG drawings for the web pages: a player's mall and the Dispenser 3000, scalable and
accessible, marked up with classes and data attributes that a page script can use."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ..games.mall.content import Content
from ..games.mall.mall import ATTRACTION, DOCK, MAIN, Customer, Mall, Tile

Cell = tuple[int, int]

# The game's colours (RULES.md sections 1, 2, 7 and 8): element categories (also the
# customers' wants), the Main Entrance, bay types and attraction colours.
COLOURS: dict[str, str] = {
    "food": "#f5c518",
    "hobby": "#2563c9",
    "fashion": "#3fae5a",
    "entrance": "#c62828",
    "main": "#e7e2d6",
    "grey": "#a3a9b0",
    "brown": "#8a5a34",
    "purple": "#7c4dbb",
    "pink": "#ec6fae",
    "orange": "#f28a1e",
}
DARK, LIGHT = "#1a1a1a", "#ffffff"
PAPER, EMPTY, GRID, AXIS = "#ffffff", "#f1f3f5", "#d5dae0", "#4b5563"
HIGHLIGHT = "#00e5ff"
MARGIN_COLUMNS, MARGIN_FLOORS = 4, 5  # room for a new element or an overhanging attraction
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
SVG_NS = "http://www.w3.org/2000/svg"

# Inline SVG styles apply to the whole HTML page, so every rule is scoped to its drawing.
MALL_STYLE = (
    ".pbem-mall text{pointer-events:none}"
    ".pbem-mall .target{fill:transparent;stroke:none}"
    ".pbem-mall .target.legal{fill:#14b8a6;fill-opacity:.3;stroke:#0f766e;stroke-width:2;"
    "stroke-dasharray:6 4;cursor:pointer}"
    ".pbem-mall .target.legal:hover{fill-opacity:.55}"
    ".pbem-mall .target:focus{outline:none;stroke:#111;stroke-width:3;stroke-dasharray:none}"
    ".pbem-mall .changed .highlight{stroke:" + HIGHLIGHT + "}"
    ".pbem-mall .ghost{fill:#ffffff;fill-opacity:.55;stroke:#111;stroke-width:2;"
    "stroke-dasharray:4 3}"
    ".pbem-mall .target.ghost-legal{fill:#0f766e;fill-opacity:.45;cursor:pointer}"
    # A footprint drawn over tiles must not take their clicks; a target keeps its own.
    ".pbem-mall .ghost:not(.target){pointer-events:none}"
)
DISPENSER_STYLE = (
    ".pbem-dispenser text{pointer-events:none}"
    ".pbem-dispenser .slot.legal{cursor:pointer}"
    ".pbem-dispenser .slot.legal .face{stroke:#0f766e;stroke-width:4}"
    ".pbem-dispenser .slot.selected .face,.pbem-dispenser .slot.picked .face{stroke:"
    + HIGHLIGHT
    + ";stroke-width:5}"
    ".pbem-dispenser .slot:focus{outline:none}"
    ".pbem-dispenser .slot:focus .face{stroke:#111;stroke-width:4}"
)


# -- colours and words ----------------------------------------------------------------


def tile_colour(kind_or_colour: str) -> str:
    """The fill for an element category (or want), "main", a bay type or an attraction
    colour, e.g. "food" or "purple"."""
    try:
        return COLOURS[kind_or_colour]
    except KeyError:
        known = ", ".join(COLOURS)
        raise ValueError(f"no colour for {kind_or_colour!r}; the palette has {known}") from None


def contrast_ratio(one: str, other: str) -> float:
    """WCAG contrast ratio of two "#rrggbb" colours, from 1 to 21."""
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _luminance(colour: str) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def text_colour(fill: str) -> str:
    """Dark or light ink, whichever reads better on `fill`."""
    return max((DARK, LIGHT), key=lambda ink: contrast_ratio(ink, fill))


def tile_fill(tile: Tile, content: Content) -> str:
    """A tile's colour: its category, its bay type, or its attraction's colour."""
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        return tile_colour(bay.type if bay else "grey")
    if tile.kind == ATTRACTION:
        spec = content.attractions.get(tile.id)
        return tile_colour(spec.colour if spec else "purple")
    return COLOURS.get(tile.kind, COLOURS["main"])


def describe_element(tile_id: str, content: Content) -> str:
    """An element in words: "Y07 Burger Bar (food)", "R13 entrance (customers want
    food, hobby)"."""
    spec = content.elements.get(tile_id)
    if spec is None:
        return tile_id
    if spec.category == "entrance":
        return f"{tile_id} entrance (customers want {', '.join(spec.wants)})"
    name = f" {spec.name}" if spec.name else ""
    return f"{tile_id}{name} ({spec.category})"


def describe_tile(tile: Tile, content: Content) -> str:
    """A tile in words, as its tooltip shows it."""
    if tile.kind == MAIN:
        return f"{tile.id}: Main Entrance"
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        if bay is None:
            return f"{tile.id}: docking bay"
        return f"{tile.id} {bay.name}: {bay.type} docking bay, {_plural(bay.points, 'point')}"
    if tile.kind == ATTRACTION:
        spec = content.attractions.get(tile.id)
        what = "personal attraction" if spec and spec.personal else "attraction"
        points = f", {_plural(spec.points, 'point')}" if spec else ""
        cells = " ".join(f"({x},{y})" for x, y in sorted(tile.platforms, key=_floor_first))
        return f"{tile.id}: {what}{points}; platform cells {cells or 'none'}"
    if tile.id in content.elements:
        return describe_element(tile.id, content)
    return f"{tile.id} ({tile.kind})"


def describe_customer(customer: Customer) -> str:
    """A customer in words: "R13.2 wants hobby — satisfied on B07"."""
    status = "satisfied" if customer.satisfied else "waiting"
    return f"{customer.id} wants {customer.want} — {status} on {customer.on}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _floor_first(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


def _fit(text: str, chars: int, lines: int = 2) -> list[str]:
    """`text` wrapped into at most `lines` lines of at most `chars` characters; what
    does not fit is cut with an ellipsis."""
    wrapped: list[str] = []
    for word in text.split():
        if wrapped and len(wrapped[-1]) + 1 + len(word) <= chars:
            wrapped[-1] += " " + word
        else:
            wrapped.append(word)
    if len(wrapped) > lines:
        wrapped[lines - 1 :] = [" ".join(wrapped[lines - 1 :])]
    return [w if len(w) <= chars else w[: chars - 1].rstrip() + "…" for w in wrapped]


def _n(value: float) -> str:
    """A coordinate, short: 12, 12.5, 12.25."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _id_prefix(label: str, id_prefix: str | None, kind: str) -> str:
    """A prefix for the ids inside one drawing, so several drawings share a page."""
    slug = re.sub(r"[^a-z0-9]+", "-", (id_prefix or label).lower()).strip("-")
    return slug if slug[:1].isalpha() else f"{kind}-{slug}".rstrip("-")


def _svg(
    kind: str,
    size: tuple[float, float],
    prefix: str,
    heading: tuple[str, str],
    style: str,
    body: list[str],
) -> str:
    """The root element around `body`, named by its title and described by its desc
    (`heading`), with ids made unique by `prefix`."""
    width, height = size
    label, summary = heading
    return "\n".join(
        [
            f'<svg xmlns="{SVG_NS}" class="pbem-{kind}" viewBox="0 0 {_n(width)} {_n(height)}"'
            f' width="100%" preserveAspectRatio="xMidYMid meet" role="img"'
            f' aria-labelledby="{prefix}-title" aria-describedby="{prefix}-desc"'
            f" font-family={quoteattr(FONT)}>",
            f'<title id="{prefix}-title">{escape(label)}</title>',
            f'<desc id="{prefix}-desc">{escape(summary)}</desc>',
            f"<style>{style}</style>",
            *body,
            "</svg>",
        ]
    )


def _text(
    x: float, y: float, text: str, size: float, ink: str, *, bold: bool = False, kind: str = ""
) -> str:
    weight = ' font-weight="700"' if bold else ""
    cls = f" class={quoteattr(kind)}" if kind else ""
    return (
        f'<text{cls} x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}"{weight} fill="{ink}"'
        f' text-anchor="middle">{escape(text)}</text>'
    )


# -- the mall -------------------------------------------------------------------------


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
    `rect.target` over every empty cell of the drawn area. `margins` are the spare
    columns on each side and floors above the mall (room to build, by default)."""
    frame = _Frame.around(mall, cell, margins)
    prefix = _id_prefix(label, id_prefix, "mall")
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
    return _svg("mall", frame.size, prefix, heading, MALL_STYLE, body)


def mall_summary(mall: Mall) -> str:
    """The mall in one sentence: tiles by kind, height, customers satisfied and waiting."""
    counts = Counter(tile.kind for tile in mall.tiles)
    order = [MAIN, *mall.content.categories, DOCK, ATTRACTION]
    order += sorted(set(counts) - set(order))
    kinds = ", ".join(_kind_count(kind, counts[kind]) for kind in order if counts[kind])
    height = max((y for _, y in mall.owner), default=0)
    satisfied = len(mall.satisfied)
    return (
        f"{_plural(len(mall.tiles), 'tile')} up to floor {height} ({kinds}); "
        f"{_plural(satisfied, 'customer')} satisfied, {len(mall.customers) - satisfied} waiting."
    )


def _kind_count(kind: str, n: int) -> str:
    """How many tiles of one kind, in words: "2 food", "1 docking bay"."""
    if kind == MAIN:
        return "Main Entrance" if n == 1 else _plural(n, "Main Entrance")
    if kind == DOCK:
        return _plural(n, "docking bay")
    if kind == ATTRACTION:
        return _plural(n, "attraction")
    return f"{n} {kind}"


def _backdrop(frame: _Frame) -> str:
    width, height = frame.size
    x0, y0 = frame.corner(frame.left, frame.top)
    x1, y1 = frame.corner(frame.right + 1, 0)
    lines = "".join(f"M{_n(x0)} {_n(y)}H{_n(x1)}" for y in _steps(y0, y1, frame.cell))
    lines += "".join(f"M{_n(x)} {_n(y0)}V{_n(y1)}" for x in _steps(x0, x1, frame.cell))
    return (
        f'<g class="backdrop"><rect width="{_n(width)}" height="{_n(height)}" fill="{PAPER}"/>'
        f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}"'
        f' fill="{EMPTY}"/><path d="{lines}" stroke="{GRID}" stroke-width="1" fill="none"/>'
        f'<path class="ground" d="M{_n(x0)} {_n(y1)}H{_n(x1)}" stroke="{AXIS}"'
        f' stroke-width="{_n(frame.cell / 16)}"/></g>'
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
            f'<rect class="{kind}" data-x="{x}" data-y="{y}" x="{_n(px)}" y="{_n(py)}"'
            f' width="{c}" height="{c}" fill="{fill}" stroke="{fill}"/>'
        )  # the stroke in the fill's colour hides seams between the cells of one tile
    parts += [_deck(frame, cell) for cell in sorted(tile.platforms)]
    edges = _outline(tile.cells, frame)
    if changed:
        parts.append(
            f'<path class="highlight" d="{edges}" fill="none" stroke="{HIGHLIGHT}"'
            f' stroke-width="{_n(c / 7)}" stroke-linecap="square"/>'
        )
    parts.append(
        f'<path class="outline" d="{edges}" fill="none" stroke="{DARK}"'
        f' stroke-width="{_n(max(1, c / 32))}" stroke-linecap="square"/>'
    )
    parts += _tile_labels(tile, content, frame, text_colour(fill))
    parts.append("</g>")
    return "".join(parts)


def _deck(frame: _Frame, cell: Cell) -> str:
    """A platform's deck: a striped band along the top of the cell, where an element
    may stand."""
    px, py = frame.corner(*cell)
    c = frame.cell
    y = py + c * 0.07
    band = f"M{_n(px + c * 0.06)} {_n(y)}H{_n(px + c * 0.94)}"
    return (
        f'<path class="deck" d="{band}" stroke="{DARK}" stroke-width="{_n(c * 0.12)}"/>'
        f'<path d="{band}" stroke="{LIGHT}" stroke-width="{_n(c * 0.06)}"'
        f' stroke-dasharray="{_n(c / 12)} {_n(c / 12)}"/>'
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
            edges.append(f"M{_n(px)} {_n(py)}h{c}")
        if (x, y - 1) not in own:
            edges.append(f"M{_n(px)} {_n(py + c)}h{c}")
        if (x - 1, y) not in own:
            edges.append(f"M{_n(px)} {_n(py)}v{c}")
        if (x + 1, y) not in own:
            edges.append(f"M{_n(px + c)} {_n(py)}v{c}")
    return "".join(edges)


def _tile_labels(tile: Tile, content: Content, frame: _Frame, ink: str) -> list[str]:
    """The words on a tile: attractions their initials once, on a middle cell; other
    tiles their id, then for stores, bays and the Main Entrance a name."""
    c = frame.cell
    if tile.kind == ATTRACTION:
        px, py = frame.corner(*_middle_cell(tile))
        initials = "".join(word[:1] for word in tile.id.split("-")).upper()
        return [_text(px + c / 2, py + c * 0.62, initials, c * 0.3, ink, bold=True)]
    xs = [x for x, _ in tile.cells]
    left, top = frame.corner(min(xs), max(y for _, y in tile.cells))
    width = (max(xs) - min(xs) + 1) * c
    return _face(left, top, width, c, tile.id, _tile_name(tile, content), ink)


def _tile_name(tile: Tile, content: Content) -> str | None:
    if tile.kind == MAIN:
        return "Main Entrance"
    if tile.kind == DOCK:
        bay = content.bays.get(tile.id)
        return bay.name if bay else None
    spec = content.elements.get(tile.id)
    return spec.name if spec and tile.kind != "entrance" else None


def _face(
    left: float, top: float, width: float, cell: int, title: str, name: str | None, ink: str
) -> list[str]:
    """An id in bold near the top of a box `width` wide, and a name below it in at most
    two short lines; the bottom of the box stays free for customers."""
    small = cell * 0.17
    chars = int(width * 0.92 / (small * 0.56))
    return _lines(left + width / 2, top, cell, title, _fit(name, chars) if name else [], ink)


def _lines(
    middle: float, top: float, cell: int, title: str, lines: Sequence[str], ink: str
) -> list[str]:
    parts = [_text(middle, top + cell * 0.3, title, cell * 0.25, ink, bold=True)]
    for i, line in enumerate(lines):
        parts.append(_text(middle, top + cell * (0.5 + 0.16 * i), line, cell * 0.17, ink))
    return parts


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
        f"{_marker(customer.want, customer.satisfied, cx, cy, r, edge)}</g>"
    )


def _marker(want: str, satisfied: bool, cx: float, cy: float, r: float, edge: str) -> str:
    """A customer's disc in its want's colour: solid with a tick when satisfied, a ring
    with a hole when waiting, so the two differ in shape as well as colour."""
    fill = COLOURS.get(want, COLOURS["main"])
    disc = (
        f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="{fill}" stroke="{edge}"'
        f' stroke-width="{_n(r * 0.3)}"/>'
    )
    if satisfied:
        down, up = f"{_n(r * 0.35)} {_n(r * 0.4)}", f"{_n(r * 0.7)} {_n(-r * 0.8)}"
        tick = f"M{_n(cx - r * 0.5)} {_n(cy)}l{down}l{up}"
        return disc + (
            f'<path d="{tick}" fill="none" stroke="{text_colour(fill)}"'
            f' stroke-width="{_n(r * 0.35)}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    return disc + (
        f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r * 0.48)}" fill="{LIGHT}" stroke="{DARK}"'
        f' stroke-width="{_n(r * 0.12)}"/>'
    )


def _axes(frame: _Frame) -> str:
    """Floor numbers on the left, column numbers below."""
    c = frame.cell
    size = c * 0.25
    parts = [f'<g class="axes" fill="{AXIS}" font-size="{_n(size)}">']
    for y in range(1, frame.top + 1):
        _, py = frame.corner(frame.left, y)
        parts.append(
            f'<text class="floor-label" data-y="{y}" x="{_n(frame.gutter - c * 0.12)}"'
            f' y="{_n(py + c / 2 + size * 0.35)}" text-anchor="end">{y}</text>'
        )
    for x in range(frame.left, frame.right + 1):
        px, py = frame.corner(x, 0)
        parts.append(
            f'<text class="column-label" data-x="{x}" x="{_n(px + c / 2)}"'
            f' y="{_n(py + size * 1.3)}" text-anchor="middle">{x}</text>'
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
                f'<rect class="target" data-x="{x}" data-y="{y}" x="{_n(px)}" y="{_n(py)}"'
                f' width="{c}" height="{c}" fill="transparent"/>'
            )
    parts.append("</g>")
    return "".join(parts)


# -- the Dispenser 3000 ---------------------------------------------------------------


def dispenser_svg(
    columns: Mapping[str, Sequence[str | None]],
    content: Content,
    *,
    label: str = "The Dispenser 3000",
    cell: int = 64,
    id_prefix: str | None = None,
) -> str:
    """The Dispenser as an `<svg>` element: its columns side by side, row 1 at the
    bottom, each slot a `g.slot` (`g.slot.empty` without a tile), each row's cost on
    the right. `columns` maps a column name to its tiles, bottom to top."""
    rows = max([content.rows, *(len(tiles) for tiles in columns.values())])
    gap, gutter, head = cell * 0.15, cell * 0.45, cell * 0.5
    step = cell + gap
    width = gutter + len(columns) * step + cell * 1.3
    height = head + rows * step + gap
    prefix = _id_prefix(label, id_prefix, "dispenser")
    body = [
        f'<rect class="backdrop" width="{_n(width)}" height="{_n(height)}" fill="{PAPER}"/>',
    ]
    for i, name in enumerate(columns):
        middle = gutter + i * step + cell / 2
        body.append(_text(middle, head * 0.7, name, cell * 0.25, AXIS, kind="column-label"))
    for row in range(rows, 0, -1):  # the top row first, as it reads
        top = head + (rows - row) * step
        middle = top + cell / 2 + cell * 0.07
        body.append(_text(gutter / 2, middle, str(row), cell * 0.22, AXIS, kind="row-label"))
        body.append(
            f'<text class="cost" data-row="{row}" x="{_n(gutter + len(columns) * step)}"'
            f' y="{_n(middle)}" font-size="{_n(cell * 0.2)}" fill="{AXIS}">'
            f"costs {content.cost(row)}</text>"
        )
        for i, (name, tiles) in enumerate(columns.items()):
            tile_id = tiles[row - 1] if row <= len(tiles) else None
            slot = f"{name}{row}"
            body.append(_slot(slot, tile_id, content, gutter + i * step, top, cell, row))
    heading = (label, dispenser_summary(columns))
    return _svg("dispenser", (width, height), prefix, heading, DISPENSER_STYLE, body)


def dispenser_summary(columns: Mapping[str, Sequence[str | None]]) -> str:
    """The Dispenser in one sentence, column by column, bottom to top."""
    return (
        "; ".join(
            f"column {name}, bottom to top: " + ", ".join(t or "empty" for t in tiles)
            for name, tiles in columns.items()
        )
        + "."
    )


def _slot(
    slot: str, tile_id: str | None, content: Content, left: float, top: float, cell: int, row: int
) -> str:
    cost = content.cost(row)
    box = f'x="{_n(left)}" y="{_n(top)}" width="{cell}" height="{cell}" rx="{_n(cell * 0.06)}"'
    if tile_id is None:
        return (
            f'<g class="slot empty" data-slot={quoteattr(slot)} data-cost="{cost}">'
            f"<title>{escape(slot)}: empty</title>"
            f'<rect class="face" {box} fill="{EMPTY}" stroke="{GRID}" stroke-width="2"'
            f' stroke-dasharray="5 4"/></g>'
        )
    spec = content.elements.get(tile_id)
    category = spec.category if spec else "main"
    fill = tile_colour(category)
    ink = text_colour(fill)
    title = f"{slot}: {describe_element(tile_id, content)}; costs {_plural(cost, 'note')}"
    parts = [
        f'<g class="slot" data-slot={quoteattr(slot)} data-tile={quoteattr(tile_id)}'
        f' data-cost="{cost}"><title>{escape(title)}</title>',
        f'<rect class="face" {box} fill="{fill}" stroke="{DARK}" stroke-width="1.5"/>',
    ]
    wants = spec.wants if spec else ()
    if wants:  # an entrance: the wants of the two customers it brings
        parts += _lines(left + cell / 2, top, cell, tile_id, wants, ink)
    else:
        parts += _face(left, top, cell, cell, tile_id, spec.name if spec else None, ink)
    for i, want in enumerate(wants):
        cx = left + cell * (i + 0.5) / len(wants)
        parts.append(_marker(want, False, cx, top + cell * 0.84, cell * 0.1, ink))
    parts.append("</g>")
    return "".join(parts)
