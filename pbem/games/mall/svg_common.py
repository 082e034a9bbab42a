"""What the mall's drawings share: the game's colours and contrast, numbers and words
fitted into a cell, the accessible `<svg>` root, and a customer's marker."""

from __future__ import annotations

import re
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from .content import Content

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
        return f"{tile_id} entrance (customers want {', '.join(spec.wants)})"
    name = f" {spec.name}" if spec.name else ""
    return f"{tile_id}{name} ({spec.category})"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def fit(text: str, chars: int, lines: int = 2) -> list[str]:
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
) -> str:
    """The root element around `body`, named by its title and described by its desc
    (`heading`), with ids made unique by `prefix`."""
    width, height = size
    label, summary = heading
    return "\n".join(
        [
            f'<svg xmlns="{SVG_NS}" class="pbem-{kind}" viewBox="0 0 {num(width)} {num(height)}"'
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


def customer_marker(want: str, satisfied: bool, cx: float, cy: float, r: float, edge: str) -> str:
    """A customer's disc in its want's colour: solid with a tick when satisfied, a ring
    with a hole when waiting, so the two differ in shape as well as colour."""
    fill = COLOURS.get(want, COLOURS["main"])
    disc = (
        f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" fill="{fill}" stroke="{edge}"'
        f' stroke-width="{num(r * 0.3)}"/>'
    )
    if satisfied:
        down, up = f"{num(r * 0.35)} {num(r * 0.4)}", f"{num(r * 0.7)} {num(-r * 0.8)}"
        tick = f"M{num(cx - r * 0.5)} {num(cy)}l{down}l{up}"
        return disc + (
            f'<path d="{tick}" fill="none" stroke="{text_colour(fill)}"'
            f' stroke-width="{num(r * 0.35)}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    return disc + (
        f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r * 0.48)}" fill="{LIGHT}" stroke="{DARK}"'
        f' stroke-width="{num(r * 0.12)}"/>'
    )
