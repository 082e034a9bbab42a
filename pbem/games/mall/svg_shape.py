"""An attraction's footprint as a small SVG: base-plate, platform and other cells in
the attraction's colour, each marked by a letter as well, for the rules page and the
game page's explanations."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.i18n import gettext as _

from .content import AttractionSpec
from .svg_common import DARK, LIGHT, num, svg_element, svg_text, text_colour, tile_colour

SHAPE_STYLE = ".pbem-shape text{pointer-events:none}"
CELL = 20
# What each letter of a shape stands for, as the drawing's legend says it.
CELL_WORDS = {"B": N_("base plate"), "P": N_("platform"), "X": N_("attraction")}


def shape_words(spec: AttractionSpec) -> str:
    """The footprint in words, top row first: "PP / BB: a platform, ..."."""
    rows = " / ".join(spec.shape.rows)
    counts = [
        f"{sum(1 for _c, _r, k in spec.shape.cells if k == letter)} {_(word)}"
        for letter, word in CELL_WORDS.items()
        if any(k == letter for _c, _r, k in spec.shape.cells)
    ]
    return _(
        "%(rows)s (%(counts)s cells; may be mirrored, never turned)",
        rows=rows,
        counts=", ".join(counts),
    )


def shape_svg(spec: AttractionSpec, name: str, id_prefix: str = "shape") -> str:
    """The shape as drawn on the rules page: B cells with a thick bottom edge (they
    stand on the mall), P cells with a striped top (an element may stand on them)."""
    shape = spec.shape
    fill = tile_colour(spec.colour)
    ink = text_colour(fill)
    pad = 2
    body = []
    for column, row, kind in shape.cells:
        x = pad + column * CELL
        y = pad + (shape.height - 1 - row) * CELL
        body.append(
            f'<rect class="shape-cell kind-{kind}" x="{x}" y="{y}" width="{CELL}" height="{CELL}"'
            f' fill="{fill}" stroke="{DARK}" stroke-width="1"/>'
        )
        if kind == "P":
            body.append(
                f'<path d="M{x + 2} {y + 2}H{x + CELL - 2}" stroke="{LIGHT}" stroke-width="3"'
                ' stroke-dasharray="2 2"/>'
            )
        if kind == "B":
            body.append(
                f'<path d="M{x} {y + CELL - 1}H{x + CELL}" stroke="{DARK}" stroke-width="3"/>'
            )
        body.append(svg_text(x + CELL / 2, y + CELL * 0.68, kind, CELL * 0.5, ink, bold=True))
    size = (pad * 2 + shape.width * CELL, pad * 2 + shape.height * CELL)
    heading = (_("Shape of the %(name)s", name=name), shape_words(spec))
    svg = svg_element("shape", size, f"{id_prefix}-{spec.id}", heading, SHAPE_STYLE, body)
    # A small drawing: its own size, not the page's width.
    return svg.replace(' width="100%"', f' width="{num(size[0])}" height="{num(size[1])}"', 1)
