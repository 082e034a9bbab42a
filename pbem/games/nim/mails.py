"""Nim's part of the mails: its notation help and the words the game-neutral mails
take from it; its partials (the pile and the legal takes, the standings, the
winner) are in templates/mail/."""

from __future__ import annotations

PARTIALS = ("_turn", "_standings", "_game_over")
TAGLINE = "the game of taking tokens from one pile"
NOTATION = "take 1, take 2, take 3"
HELP = (
    "  take 1              take one token from the pile (take 2, take 3: two or three)",
    "Whoever takes the last token wins.",
)
