"""What a game is called: the name its creator gave it (checked like a player's
name: nothing invisible, something visible, at most MAX_LENGTH characters), else
its players' names ("Ann vs Ben", "Ann, Ben and Cy"); and how a reader's mails and
pages name it, with the reader's opponents ("Friday night, against Ben and Cy")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.names import said_name
from pbem.i18n import gettext as _

from .errors import BadRequest

# A name comes first in every subject, and mail clients cut a subject at about 60
# characters: a name leaves room for the rest.
MAX_LENGTH = 40


def checked(given: Any) -> str | None:
    """A game's name as it is kept (see `visible.shown_name`); None when none was
    given (the game is called by its players). BadRequest when it is not text, too
    long, or holds nothing one can see."""
    from . import visible  # ICU: loaded at the first text to check

    if given is None:
        return None
    if not isinstance(given, str):
        raise BadRequest(_("a game's name is text"))
    if not given.strip():
        return None
    name = visible.shown_name(given[: MAX_LENGTH * 8])
    if not name:
        raise BadRequest(_("a game's name needs a character one can see"))
    if len(name) > MAX_LENGTH:
        raise BadRequest(
            _(
                "a game's name is at most %(most)s characters, not %(count)s",
                most=MAX_LENGTH,
                count=len(name),
            )
        )
    return name


def listed(names: Sequence[str]) -> str:
    """Names as a sentence lists them: "Ben", "Ben and Cy", "Ben, Cy and Dee" (a
    bot's own name in the reader's language)."""
    names = [said_name(name) for name in names]
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return _("%(some)s and %(last)s", some=", ".join(names[:-1]), last=names[-1])


def called(name: str | None, players: Sequence[str]) -> str:
    """What the game is called: its given name, else its players' names (a bot's
    in the reader's language)."""
    if name:
        return name
    if len(players) == 2:
        one, other = (said_name(player) for player in players)
        return _("%(one)s vs %(other)s", one=one, other=other)
    return listed(players)


def opponents(names: Mapping[int, str], seat: int | None) -> list[str]:
    """The names of every seat but `seat`, in seat order."""
    return [name for s, name in sorted(names.items()) if s != seat]


def label(name: str | None, names: Mapping[int, str], seat: int | None) -> str:
    """The game as a reader at `seat` (None: a spectator) is told of it: its given
    name with the reader's opponents, or its players' names (which name them)."""
    players = [n for _s, n in sorted(names.items())]
    if not name or seat is None or seat not in names:
        return called(name, players)
    return _("%(name)s, against %(opponents)s", name=name, opponents=listed(opponents(names, seat)))
