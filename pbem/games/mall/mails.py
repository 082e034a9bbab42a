"""The mall's part of the mails: its notation help, the words the game-neutral
mails take from it, what its game-over mail shows beyond the standings, and its
pictures (drawn by mail_pictures: the Dispenser and the reader's mall for a turn,
every mall for the end); its partials (the turn block, the standings with every
balloon, what the end shows) are in templates/mail/. The words are marked for the
catalog and translated where they are shown (`gettext(TAGLINE)`, each line of
HELP, PICTURE_ALT); the notation in them stays as it is. The pictures' words (names
on tiles, each mall's title) are in the language of the moment, and the cache
keeps one drawing per language."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from html import escape
from typing import Any

from pbem import i18n
from pbem.i18n import N_
from pbem.i18n import gettext as _

from .content import load
from .document import mall_of
from .explain import attraction_name
from .mail_pictures import turn_picture
from .svg_mall import mall_svg

PARTIALS = ("_turn", "_standings", "_game_over")
TAGLINE = N_("the mall-building tile game")
NOTATION = "money L, build L2 at 1,3, attraction haunted-hotel at -1,2 mirror, pass"
HELP = (
    N_("  money L             take the bottom tile of column L as money"),
    N_("  build L2 at 1,3     build the tile in slot L2 on cell (1,3) of your mall"),
    N_("  build L2 at 1,3 for M1.2    ... and say which customer moves, when several can"),
    N_("  attraction haunted-hotel at -1,2 mirror    build an attraction (mirrored)"),
    N_("  dock GD2 at 2       build a docking bay"),
    N_("  pass                only when nothing else is legal"),
)

CONTENT = load()
PICTURE_ALT = N_("The malls as they stand (the position in words is in this mail's text part)")
TURN_PICTURE_ALT = N_(
    "The Dispenser 3000 and your mall (the position in words is in this mail's text part)"
)
FINAL_PICTURE_ALT = N_("The malls at the end of the game")
PICTURE_WIDTH = 576  # CSS pixels at most (a mail's 600 less its margins); drawn at twice that
PICTURE_CELL = 66  # CSS pixels a cell of the mall: its smallest words 11 px
GAP = 16  # CSS pixels between two malls
NAME_HEIGHT = 22  # CSS pixels above each mall for its player's name
__all__ = ["game_over", "picture", "turn_picture"]


def game_over(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the game-over partial shows beyond the standings: each seat's attractions
    by name, in the reader's language ("Space Elevator", "Weltraumlift")."""
    return {
        "attractions": {
            p["seat"]: [attraction_name(t["id"]) for t in p["tiles"] if t["kind"] == "attraction"]
            for p in doc["players"]
        }
    }


_VIEWBOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')


def picture(doc: Mapping[str, Any]) -> str | None:
    """Every player's mall, one under the other, as one SVG document: the same
    drawing the game page shows, of its public parts only (tiles and customers:
    no secret, whoever's view `doc` is). The same malls are drawn once."""
    malls = [
        {"name": p["name"], "tiles": p["tiles"], "customers": p["customers"]}
        for p in doc["players"]
    ]
    return _picture(json.dumps(malls, sort_keys=True), i18n.language()) if malls else None


@lru_cache(maxsize=256)
def _picture(malls_json: str, language: str) -> str | None:
    """The picture of the malls in `language` (a key of the cache: the words differ)."""
    with i18n.speaking(language):
        return _drawn(malls_json)


def _drawn(malls_json: str) -> str | None:
    """The malls side by side at PICTURE_CELL pixels a cell, each under its
    player's name, in rows at most PICTURE_WIDTH wide (a mall wider than that is
    shrunk to fit)."""
    placed: list[str] = []
    x = y = row_height = width = 0.0
    for number, mall in enumerate(json.loads(malls_json), start=1):
        svg = mall_svg(
            mall_of(mall, CONTENT),
            label=_("%(name)s's mall", name=mall["name"]),
            id_prefix=f"mail-mall{number}",
            margins=(1, 1),  # a column each side and a floor above: less empty grid
        )
        found = _VIEWBOX.search(svg)
        if found is None:
            return None
        scale = min(PICTURE_CELL / 48, PICTURE_WIDTH / float(found[1]))
        w, h = float(found[1]) * scale, float(found[2]) * scale
        if x and x + w > PICTURE_WIDTH:  # the next row
            x, y, row_height = 0.0, y + row_height + GAP, 0.0
        place = f' x="{x:g}" y="{y + NAME_HEIGHT:g}" width="{w:g}" height="{h:g}"'
        placed.append(
            f'<text x="{x + 4:g}" y="{y + NAME_HEIGHT - 6:g}" font-size="15" font-weight="bold"'
            f' font-family="sans-serif" fill="#222222">{escape(_fit(mall["name"], w))}</text>'
        )
        placed.append(_without_root_xmlns(svg.replace(' width="100%"', place, 1)))
        h += NAME_HEIGHT
        x += w + GAP
        row_height = max(row_height, h)
        width = max(width, x - GAP)
    height = y + row_height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}"'
        f' viewBox="0 0 {width:g} {height:g}">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(placed)}</svg>'
    )


def _fit(name: str, width: float) -> str:
    """The name, cut short (with an ellipsis) to what fits `width` pixels at 15 px."""
    most = max(int(width / 10), 4)
    return name if len(name) <= most else name[: most - 1] + "…"


def _without_root_xmlns(svg: str) -> str:
    return svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)
