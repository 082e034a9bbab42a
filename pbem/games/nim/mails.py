"""Nim's part of the mails: its notation help and the words the game-neutral mails
take from it; its partials (the pile and the legal takes, the standings, the
winner) are in templates/mail/. The words are marked for the catalog and translated
where they are shown (`gettext(TAGLINE)`, each line of HELP); the notation in them
stays as it is."""

from __future__ import annotations

from pbem.i18n import N_

PARTIALS = ("_turn", "_standings", "_game_over")
TAGLINE = N_("the game of taking tokens from one pile")
NOTATION = "take 1, take 2, take 3"
HELP = (
    N_("  take 1              take one token from the pile (take 2, take 3: two or three)"),
    N_("Whoever takes the last token wins."),
)
