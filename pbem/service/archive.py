"""The archive of My games: a finished game's result for a seat (its place, its
score, the winners), and which of a person's games a page shows (running,
finished or all; one game; an opponent's name), a page at a time."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games import NAMES, plugin
from pbem.i18n import gettext as _

from . import queries
from .errors import BadRequest
from .unit import Context

PAGE = 20  # games a page of My games shows
SHOWN = ("all", "running", "finished")
LONGEST_NAME = 100  # a player's name is at most this long


@dataclass(frozen=True)
class Choice:
    """What a page of My games shows: `show` (all, running, finished), one `game`
    (None: every game), games against an `opponent` whose name holds these letters
    ("": anyone), and which `page`."""

    show: str = "all"
    game: str | None = None
    opponent: str = ""
    page: int = 1

    @property
    def narrowed(self) -> bool:
        """Whether it leaves any game out (but for pages)."""
        return self.show != "all" or self.game is not None or bool(self.opponent)


def chosen(args: Mapping[str, str]) -> Choice:
    """The choice a query string asks for (`show`, `game`, `opponent`, `page`);
    BadRequest saying what is allowed for anything else."""
    show = args.get("show") or "all"
    if show not in SHOWN:
        raise BadRequest(_("choose all games, the games running or the finished games"))
    game = args.get("game") or None
    if game is not None and game not in NAMES:
        raise BadRequest(_("choose a game this server runs: %(games)s", games=", ".join(NAMES)))
    opponent = " ".join((args.get("opponent") or "").split())
    if len(opponent) > LONGEST_NAME or not opponent.isprintable():
        raise BadRequest(_("an opponent's name is at most %(most)s letters", most=LONGEST_NAME))
    page_text = args.get("page") or "1"
    if not page_text.isascii() or not page_text.isdigit() or not 1 <= len(page_text) <= 6:
        raise BadRequest(_("a page is a whole number from 1"))
    return Choice(show, game, opponent, max(1, int(page_text)))


def select(games: Sequence[dict[str, Any]], choice: Choice) -> tuple[list[dict[str, Any]], int]:
    """The dashboard's rows (`dashboard.seat_summary`, in their order) the choice
    shows on its page, and how many pages there are (at least 1)."""
    wanted = choice.opponent.casefold()
    kept = [
        g
        for g in games
        if (choice.show == "all" or (g["status"] == "finished") == (choice.show == "finished"))
        and (choice.game is None or g["game"] == choice.game)
        and (not wanted or any(wanted in name.casefold() for name in g["opponents"]))
    ]
    pages = max(1, math.ceil(len(kept) / PAGE))
    start = (min(choice.page, pages) - 1) * PAGE
    return kept[start : start + PAGE], pages


def result(ctx: Context, game_id: str, seat: int) -> dict[str, Any] | None:
    """The seat's result in a finished game: `place` (1 for a winner, else its
    place in the game's standings), of `of` seats, its `score` (None in a game
    without points) and the `winners`' names; None while the game runs."""
    doc = queries.state_at(ctx, game_id, seat=seat)
    if doc["status"] != "finished":
        return None
    order = plugin(doc["game"]).standings(doc)
    winners = list(doc.get("winners") or [])
    names = {p["seat"]: p["name"] for p in doc["players"]}
    mine: dict[str, Any] = next((p for p in doc["players"] if p["seat"] == seat), {})
    score = mine.get("score")
    if seat in winners:
        place = 1
    else:
        others = [s for s in order if s not in winners]
        place = len(winners) + others.index(seat) + 1 if seat in others else len(order)
    return {
        "place": place,
        "of": len(order),
        "score": score.get("total") if isinstance(score, dict) else None,
        "won": seat in winners,
        "winners": [names[s] for s in winners if s in names],
    }
