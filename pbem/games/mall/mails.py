"""The mall's part of the mails: its notation help and the words the game-neutral
mails take from it; its partials (the turn block, the standings with every balloon,
what the end shows) are in templates/mail/."""

from __future__ import annotations

PARTIALS = ("_turn", "_standings", "_game_over")
TAGLINE = "the mall-building tile game"
NOTATION = "money L, build L2 at 1,3, attraction haunted-hotel at -1,2 mirror, pass"
HELP = (
    "  money L             take the bottom tile of column L as money",
    "  build L2 at 1,3     build the tile in slot L2 on cell (1,3) of your mall",
    "  build L2 at 1,3 for M1.2    ... and say which customer moves, when several can",
    "  attraction haunted-hotel at -1,2 mirror    build an attraction (mirrored)",
    "  dock GD2 at 2       build a docking bay",
    "  pass                only when nothing else is legal",
)
