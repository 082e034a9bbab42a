"""The mails of the table around a game (their lines in compose.WRITERS): another
player resigned, and a rematch offered (answered by replying "yes" or "no")."""

from __future__ import annotations

from typing import Any

from pbem.i18n import gettext as _
from pbem.service.notices import Moot
from pbem.service.rematch import OFFER_DAYS


def farewell(row: Any) -> bool:
    """Whether the row answers the mail its seat resigned with: it goes to the one
    who resigned, though a bot holds the seat by then."""
    return bool(row.kind == "answer" and row.payload.get("status") == "resigned")


def resigned_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    """Another seat's person left the game: a bot plays on, or the game is over."""
    context: dict[str, Any] = composer._game(row)
    context["who"] = context["names"][row.payload["who"]]
    context["ended"] = bool(row.payload.get("ended"))
    subject = _("%(game)s: %(who)s resigned", game=context["called"], who=context["who"])
    return subject, context


def rematch_offer_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    """Another seat offers a rematch: reply "yes" or "no", or answer on the page.
    Moot once the offer is no longer open or the reader has answered it."""
    context: dict[str, Any] = composer._game(row)
    status = composer.service.rematch_status(row.game_id, row.seat)
    if status is None or not status["may_answer"] or status["offer"].seq != row.seq:
        raise Moot("the rematch offer was answered or closed before this mail went")
    context["who"] = context["names"][row.payload["by"]]
    context["days"] = OFFER_DAYS
    subject = _("%(game)s: %(who)s offers a rematch", game=context["called"], who=context["who"])
    return subject, context
