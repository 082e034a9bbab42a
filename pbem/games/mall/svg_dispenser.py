"""The Dispenser 3000 as SVG: its columns side by side, each slot a `g.slot` the turn
script can pick, each row's cost beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from .content import Content
from .svg_common import (
    AXIS,
    DARK,
    EMPTY,
    GRID,
    HIGHLIGHT,
    PAPER,
    SHAPES,
    customer_marker,
    describe_element,
    drawing_prefix,
    face,
    face_lines,
    kind_mark,
    num,
    svg_element,
    svg_text,
    text_colour,
    tile_colour,
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


def dispenser_svg(
    columns: Mapping[str, Sequence[str | None]],
    content: Content,
    *,
    label: str | None = None,
    cell: int = 64,
    id_prefix: str | None = None,
) -> str:
    """The Dispenser as an `<svg>` element: its columns side by side, row 1 at the
    bottom, each slot a `g.slot` (`g.slot.empty` without a tile), each row's cost on
    the right. `columns` maps a column name to its tiles, bottom to top; `label`, its
    name, is "The Dispenser 3000" in the reader's language unless given."""
    label = label if label is not None else _("The Dispenser 3000")
    rows = max([content.rows, *(len(tiles) for tiles in columns.values())])
    gap, gutter, head = cell * 0.15, cell * 0.45, cell * 0.5
    step = cell + gap
    width = gutter + len(columns) * step + cell * 1.3
    height = head + rows * step + gap
    prefix = drawing_prefix(label, id_prefix, "dispenser")
    body = [
        f'<rect class="backdrop" width="{num(width)}" height="{num(height)}" fill="{PAPER}"/>',
    ]
    for i, name in enumerate(columns):
        middle = gutter + i * step + cell / 2
        body.append(svg_text(middle, head * 0.7, name, cell * 0.25, AXIS, kind="column-label"))
    for row in range(rows, 0, -1):  # the top row first, as it reads
        top = head + (rows - row) * step
        middle = top + cell / 2 + cell * 0.07
        body.append(svg_text(gutter / 2, middle, str(row), cell * 0.22, AXIS, kind="row-label"))
        costs = _("costs %(cost)s", cost=content.cost(row))
        body.append(
            f'<text class="cost" data-row="{row}" x="{num(gutter + len(columns) * step)}"'
            f' y="{num(middle)}" font-size="{num(cell * 0.2)}" fill="{AXIS}">'
            f"{escape(costs)}</text>"
        )
        for i, (name, tiles) in enumerate(columns.items()):
            tile_id = tiles[row - 1] if row <= len(tiles) else None
            slot = f"{name}{row}"
            body.append(_slot(slot, tile_id, content, gutter + i * step, top, cell, row))
    heading = (label, dispenser_summary(columns))
    return svg_element("dispenser", (width, height), prefix, heading, DISPENSER_STYLE, body)


def dispenser_summary(columns: Mapping[str, Sequence[str | None]]) -> str:
    """The Dispenser in one sentence, column by column, bottom to top."""
    empty = _("empty")  # a call of its own: the catalog's extractor skips nested ones
    return (
        "; ".join(
            _(
                "column %(name)s, bottom to top: %(tiles)s",
                name=name,
                tiles=", ".join(t or empty for t in tiles),
            )
            for name, tiles in columns.items()
        )
        + "."
    )


def _slot(
    slot: str, tile_id: str | None, content: Content, left: float, top: float, cell: int, row: int
) -> str:
    cost = content.cost(row)
    box = f'x="{num(left)}" y="{num(top)}" width="{cell}" height="{cell}" rx="{num(cell * 0.06)}"'
    if tile_id is None:
        empty = _("%(slot)s: empty", slot=slot)
        return (
            f'<g class="slot empty" data-slot={quoteattr(slot)} data-cost="{cost}">'
            f"<title>{escape(empty)}</title>"
            f'<rect class="face" {box} fill="{EMPTY}" stroke="{GRID}" stroke-width="2"'
            f' stroke-dasharray="5 4"/></g>'
        )
    spec = content.elements.get(tile_id)
    category = spec.category if spec else "main"
    fill = tile_colour(category)
    ink = text_colour(fill)
    title = ngettext(
        "%(slot)s: %(tile)s; costs %(num)d note",
        "%(slot)s: %(tile)s; costs %(num)d notes",
        cost,
        slot=slot,
        tile=describe_element(tile_id, content),
    )
    parts = [
        f'<g class="slot" data-slot={quoteattr(slot)} data-tile={quoteattr(tile_id)}'
        f' data-cost="{cost}"><title>{escape(title)}</title>',
        f'<rect class="face" {box} fill="{fill}" stroke="{DARK}" stroke-width="1.5"/>',
    ]
    wants = spec.wants if spec else ()
    if wants:  # an entrance: the wants of the two customers it brings
        said = [_(want) for want in wants]
        parts += face_lines(left + cell / 2, top, cell, tile_id, said, ink)
    else:
        name = _(spec.name) if spec and spec.name else None
        parts += face(left, top, cell, cell, tile_id, name, ink)
    if category in SHAPES:
        parts.append(kind_mark(category, left, top, cell, ink))
    for i, want in enumerate(wants):
        cx = left + cell * (i + 0.5) / len(wants)
        parts.append(customer_marker(want, False, cx, top + cell * 0.84, cell * 0.1, ink))
    parts.append("</g>")
    return "".join(parts)
