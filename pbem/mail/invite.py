"""The invitation mail: a person's link to their seat, the players and the game's
pace; to the person who moves first it is their first turn mail too (`turn`: what
the turn mail would show, its picture included), as long as the turn is theirs."""

from __future__ import annotations

from typing import Any

from pbem import i18n
from pbem.i18n import gettext as _


def invitation_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    context, now = composer._game_at(row)
    context["options"] = context["game_options"]
    # how to read the mails in another language: the setting on the seat's page
    context["language_name"] = i18n.LANGUAGES[i18n.language()]
    context["language_link"] = f"{context['link']}#mail-language" if context["link"] else None
    context["turn"] = None
    still = row.seat in context["doc"]["waiting"] and not composer._played_since(row, now)
    if row.payload.get("turn") and context["held"] and still:
        context["turn"] = composer._turn(row, now)
        context["picture"] = composer.pictures.of(row.game_id, now.head[0], lambda: now.view(None))
    about = {"title": context["title"], "game": context["called"]}
    if context["turn"]:
        return _(
            "%(game)s: you are invited to a game of %(title)s, and it is your turn", **about
        ), context
    return _("%(game)s: you are invited to a game of %(title)s", **about), context
