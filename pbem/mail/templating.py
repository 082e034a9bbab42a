"""The mail templates: templates/mail/ for what every game's mails say, each game's
own partials under its name, and each game's part of the mails."""

from __future__ import annotations

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    select_autoescape,
)

from pbem import i18n, resources
from pbem.games import GAMES
from pbem.games.base import Mails, Plugin

from .wording import together

TEMPLATES = resources.TEMPLATES


def environment(site_name: str, auto_reload: bool = True) -> Environment:
    """The mail templates: templates/mail/ for what every game's mails say, and each
    game's templates/ folder under its name ("nim/mail/_turn.txt"), signed with the
    site's name. Without `auto_reload` a template is read once per process (no look
    at its file per mail)."""
    games: dict[str, BaseLoader] = {
        name: FileSystemLoader(str(plugin.templates)) for name, plugin in GAMES.items()
    }
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(TEMPLATES), PrefixLoader(games)]),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        auto_reload=auto_reload,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    i18n.install(env)  # a mail speaks its reader's language (i18n.speaking)
    env.globals["site_name"] = site_name
    env.filters["together"] = together  # "Ann and Ben", "Anna und Bernd"
    return env


def mails_of(plugin: Plugin) -> Mails:
    """The game's part of the mails (its package's `mails` module)."""
    mails: Mails = plugin.part("mails")
    return mails
