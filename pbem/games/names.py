"""The names bots play under: the name a bot's seat gets when its creator gives none
(stored in English, as every stored word is), and any seat's name as a reader sees
it, a bot's own name said in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.i18n import N_
from pbem.i18n import gettext as _

# Each bot's name, as it is stored (English) and translated where it is shown. A bot
# of a game not named here plays as "<Kind> bot", in English everywhere.
BOT_NAMES: dict[str, str] = {"greedy": N_("Greedy bot"), "random": N_("Random bot")}
_STORED = frozenset(BOT_NAMES.values())


def bot_name(bot: str) -> str:
    """The name a `bot` plays under when its creator gives none: "Greedy bot"."""
    return BOT_NAMES.get(bot, f"{bot.title()} bot")


def said_bot(bot: str) -> str:
    """A bot in the reader's language, as a choice on the New game page."""
    return _(BOT_NAMES[bot]) if bot in BOT_NAMES else bot


def said_name(name: str) -> str:
    """A seat's name as the reader sees it: a bot's own name in the language of the
    moment ("Gieriger Bot"), every other name as its player wrote it."""
    return _(name) if name in _STORED else name


def said_players(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A state document with each player's name as the reader sees it (the
    document itself is left as it is; in English it is the same)."""
    players = doc.get("players")
    if not isinstance(players, list) or not any(
        isinstance(p, Mapping) and p.get("name") in _STORED for p in players
    ):
        return dict(doc)
    shown = [
        {**p, "name": said_name(p["name"])}
        if isinstance(p, Mapping) and isinstance(p.get("name"), str)
        else p
        for p in players
    ]
    return {**doc, "players": shown}
