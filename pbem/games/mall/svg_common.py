"""What the mall's drawings share: the game's colours and contrast, the shape that tells
each kind apart without colour, numbers and words fitted into a cell, the accessible
`<svg>` root, and a customer's marker."""

from __future__ import annotations

import re
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from pbem.i18n import gettext as _

from .content import Content

Cell = tuple[int, int]

# The game's colours (docs/games/mall.md sections 1, 2, 7 and 8): element categories (also the
# customers' wants), the Main Entrance, bay types and attraction colours.
COLOURS: dict[str, str] = {
    "food": "#f5c518",
    "hobby": "#2563c9",
    "fashion": "#3fae5a",
    "entrance": "#7f1d1d",  # darker than hobby's blue, so the two differ in greyscale too
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
# The turn script's marks: a lit cell (a legal place), the chosen one, the focus ring;
# the mall drawing's own style paints them.
LIT, CHOSEN, FOCUS = "#0f766e", "#f0a202", "#111111"
# Inline SVG styles apply to the whole HTML page, so every rule is scoped to its drawing.
# A lit cell is opaque, so its contrast with the empty grid is its own colour's.
MALL_STYLE = (
    ".pbem-mall text{pointer-events:none}"
    ".pbem-mall .target{fill:transparent;stroke:none}"
    f".pbem-mall .target.legal{{fill:{LIT};fill-opacity:1;stroke:{LIGHT};stroke-width:2;"
    "cursor:pointer}"
    f".pbem-mall .target.legal:hover{{stroke:{FOCUS};stroke-width:3}}"
    f".pbem-mall .target.legal.chosen{{fill:{CHOSEN};stroke:{FOCUS};stroke-width:5}}"
    f".pbem-mall .target:focus{{outline:none;stroke:{FOCUS};stroke-width:4}}"
    f".pbem-mall .target.legal:focus{{stroke:{CHOSEN};stroke-width:5}}"
    f".pbem-mall .target.legal.chosen:focus{{stroke:{FOCUS}}}"
    ".pbem-mall .changed .highlight{stroke:" + HIGHLIGHT + "}"
    ".pbem-mall .ghost{fill:#ffffff;fill-opacity:.55;stroke:#111;stroke-width:2;"
    "stroke-dasharray:4 3}"
    f".pbem-mall .target.ghost-legal{{fill:{CHOSEN};fill-opacity:.75;cursor:pointer}}"
    # A footprint drawn over tiles must not take their clicks; a target keeps its own.
    ".pbem-mall .ghost:not(.target){pointer-events:none}"
)

# A kind (and a customer's want) is told by its shape as well as its colour.
SHAPES: dict[str, str] = {
    "food": "circle",
    "hobby": "triangle",
    "fashion": "square",
    "entrance": "diamond",
}
MARGIN_COLUMNS, MARGIN_FLOORS = 4, 5  # room for a new element or an overhanging attraction
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
SVG_NS = "http://www.w3.org/2000/svg"


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


def describe_element(tile_id: str, content: Content) -> str:
    """An element in words: "Y07 Burger Bar (food)", "R13 entrance (customers want
    food, hobby)"."""
    spec = content.elements.get(tile_id)
    if spec is None:
        return tile_id
    if spec.category == "entrance":
        wants = ", ".join(_(w) for w in spec.wants)
        return _("%(id)s entrance (customers want %(wants)s)", id=tile_id, wants=wants)
    name = f" {_(spec.name)}" if spec.name else ""
    return f"{tile_id}{name} ({_(spec.category)})"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def fit(text: str, chars: int, lines: int = 2) -> list[str]:
    """`text` wrapped into at most `lines` lines of at most `chars` characters, a
    word too long for a line broken after a hyphen of its own ("Burger-" / "Bar");
    what does not fit is cut with an ellipsis."""
    wrapped: list[str] = []
    glue = ""  # what joins the next piece to the last: a space, or nothing after "-"
    for piece in _pieces(text, chars):
        if wrapped and (
            len(wrapped[-1]) + len(glue) + len(piece) <= chars or len(wrapped) == lines
        ):
            wrapped[-1] += glue + piece
        else:
            wrapped.append(piece)
        glue = "" if piece.endswith("-") else " "
    return [w if len(w) <= chars else w[: chars - 1].rstrip() + "…" for w in wrapped]


def _pieces(text: str, chars: int) -> list[str]:
    """The words of `text`; one longer than `chars` in its parts after each hyphen
    ("Zero-G-Karussell": "Zero-", "G-", "Karussell")."""
    pieces: list[str] = []
    for word in text.split():
        if len(word) <= chars or "-" not in word.strip("-"):
            pieces.append(word)
        else:
            pieces += re.findall(r"[^-]+-*|-+", word)
    return pieces


def num(value: float) -> str:
    """A coordinate, short: 12, 12.5, 12.25."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def drawing_prefix(label: str, id_prefix: str | None, kind: str) -> str:
    """A prefix for the ids inside one drawing, so several drawings share a page."""
    slug = re.sub(r"[^a-z0-9]+", "-", (id_prefix or label).lower()).strip("-")
    return slug if slug[:1].isalpha() else f"{kind}-{slug}".rstrip("-")


def svg_element(
    kind: str,
    size: tuple[float, float],
    prefix: str,
    heading: tuple[str, str],
    style: str,
    body: list[str],
    *,
    controls: bool = False,
    touch_width: float | None = None,
) -> str:
    """The root element around `body`, named by its title and described by its desc
    (`heading`), with ids made unique by `prefix`. A drawing with `controls` (cells to
    press) is a group, not an image, whose children a screen reader would not reach;
    `touch_width` (CSS px) is the width a phone keeps it at (mall.css)."""
    width, height = size
    label, summary = heading
    role = "group" if controls else "img"
    # the turn script sets it as the drawing's --touch-width (no style attribute: the
    # pages' Content Security Policy allows none)
    wide = f' data-touch-width="{num(touch_width)}"' if touch_width else ""
    return "\n".join(
        [
            f'<svg xmlns="{SVG_NS}" class="pbem-{kind}" viewBox="0 0 {num(width)} {num(height)}"'
            f' width="100%" preserveAspectRatio="xMidYMid meet" role="{role}"{wide}'
            f' aria-labelledby="{prefix}-title" aria-describedby="{prefix}-desc"'
            f" font-family={quoteattr(FONT)}>",
            f'<title id="{prefix}-title">{escape(label)}</title>',
            f'<desc id="{prefix}-desc">{escape(summary)}</desc>',
            f"<style>{style}</style>",
            *body,
            "</svg>",
        ]
    )


def svg_text(
    x: float, y: float, text: str, size: float, ink: str, *, bold: bool = False, kind: str = ""
) -> str:
    weight = ' font-weight="700"' if bold else ""
    cls = f" class={quoteattr(kind)}" if kind else ""
    return (
        f'<text{cls} x="{num(x)}" y="{num(y)}" font-size="{num(size)}"{weight} fill="{ink}"'
        f' text-anchor="middle">{escape(text)}</text>'
    )


def face(
    left: float, top: float, width: float, cell: int, title: str, name: str | None, ink: str
) -> list[str]:
    """An id in bold near the top of a box `width` wide, and a name below it in at most
    two short lines; the bottom of the box stays free for customers."""
    small = cell * 0.17
    chars = int(width * 0.92 / (small * 0.56))
    return face_lines(left + width / 2, top, cell, title, fit(name, chars) if name else [], ink)


def face_lines(
    middle: float, top: float, cell: int, title: str, lines: Sequence[str], ink: str
) -> list[str]:
    parts = [svg_text(middle, top + cell * 0.3, title, cell * 0.25, ink, bold=True)]
    for i, line in enumerate(lines):
        parts.append(svg_text(middle, top + cell * (0.5 + 0.16 * i), line, cell * 0.17, ink))
    return parts


def shape(kind: str, cx: float, cy: float, r: float, paint: str) -> str:
    """The kind's shape (`SHAPES`: food a circle, hobby a triangle, fashion a square,
    an entrance a diamond) around (cx, cy), about `r` from its middle; `paint` holds
    its fill and stroke attributes."""
    form = SHAPES.get(kind, "circle")
    if form == "circle":
        return f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" {paint}/>'
    if form == "square":
        side = r * 1.7
        return (
            f'<rect x="{num(cx - side / 2)}" y="{num(cy - side / 2)}" width="{num(side)}"'
            f' height="{num(side)}" {paint}/>'
        )
    if form == "triangle":
        corners = [(cx, cy - r * 1.2), (cx + r * 1.1, cy + r * 0.8), (cx - r * 1.1, cy + r * 0.8)]
    else:  # a diamond
        corners = [(cx, cy - r * 1.2), (cx + r * 1.2, cy), (cx, cy + r * 1.2), (cx - r * 1.2, cy)]
    points = " ".join(f"{num(x)},{num(y)}" for x, y in corners)
    return f'<polygon points="{points}" {paint}/>'


def kind_mark(kind: str, left: float, top: float, cell: int, ink: str) -> str:
    """A tile's kind as its shape in the top-left corner of its cell, in the ink of its
    words, so a kind reads without its colour."""
    r = cell * 0.07
    paint = f'fill="{ink}" stroke="none"'
    return (
        f'<g class="kind-mark {SHAPES.get(kind, "circle")}">'
        f"{shape(kind, left + cell * 0.13, top + cell * 0.14, r, paint)}</g>"
    )


def customer_marker(want: str, satisfied: bool, cx: float, cy: float, r: float, edge: str) -> str:
    """A customer in its want's colour and shape (`SHAPES`): solid with a tick when
    satisfied, with a hole when waiting, so the two differ in shape as well as
    colour; the marker's middle is in its `data-cx` and `data-cy`."""
    fill = COLOURS.get(want, COLOURS["main"])
    form = SHAPES.get(want, "circle")
    paint = f'fill="{fill}" stroke="{edge}" stroke-width="{num(r * 0.3)}"'
    disc = (
        f'<g class="marker {form}" data-cx="{num(cx)}" data-cy="{num(cy)}">'
        f"{shape(want, cx, cy, r, paint)}</g>"
    )
    if satisfied:
        down, up = f"{num(r * 0.35)} {num(r * 0.4)}", f"{num(r * 0.7)} {num(-r * 0.8)}"
        tick = f"M{num(cx - r * 0.5)} {num(cy)}l{down}l{up}"
        return disc + (
            f'<path d="{tick}" fill="none" stroke="{text_colour(fill)}"'
            f' stroke-width="{num(r * 0.35)}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    hole = f'fill="{LIGHT}" stroke="{DARK}" stroke-width="{num(r * 0.12)}"'
    return disc + shape(want, cx, cy, r * 0.48, hole)
