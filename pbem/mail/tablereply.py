"""The reply commands of the table around a game: "resign" (the word alone on the
first line: the seat leaves the running game) and, to a rematch offer, "yes" or
"no" (or the German "ja", "nein": a word a person answers in, unlike the notation,
is taken in either language). The handler has checked the sender as for a move."""

from __future__ import annotations

from typing import Any

from pbem.i18n import gettext as _
from pbem.service import ServiceError

YES, NO = ("yes", "ja"), ("no", "nein")
WORDS = ("resign", *YES, *NO)


def act(handler: Any, mail: Any, command: str, ignored: list[str]) -> Any:
    """The answer to a table command on the reply's first line; None when the line
    is none of them (it is read as a move)."""
    word = command.lower()
    if word not in WORDS:
        return None
    game_id = mail.address.game_id
    if word == "resign":
        if command != command.strip() or ignored:
            lines = [_("To resign, write the word resign alone in your reply, nothing else.")]
            return handler._answered(mail, "refused", lines, ignored)
        try:
            event = handler.service.resign(game_id, mail.token)
        except ServiceError as error:
            return handler._answered(
                mail, "refused", [_("Not resigned: %(why)s.", why=error.message)]
            )
        if event.payload["replaced_by"]:
            said = _(
                "You resigned. A bot plays your seat from now on; your link only watches the game."
            )
        else:
            said = _("You resigned, and the game is over.")
        return handler._answered(mail, "resigned", [said])
    try:
        offer = handler.service.answer_rematch(game_id, mail.token, word in YES)
    except ServiceError as error:
        no = _("No rematch to answer: %(why)s.", why=error.message)
        return handler._answered(mail, "rematch", [no], ignored)
    if offer.new_game_id is not None:
        said = _(
            "Everyone accepted: the rematch is game %(game)s; your invitation with your"
            " link is on its way.",
            game=offer.new_game_id,
        )
    elif offer.closed == "lapsed":
        said = _("The rematch offer had lapsed.")
    elif offer.closed == "declined":
        said = _("You declined the rematch.")
    else:
        said = _("You accepted the rematch; the others have still to answer.")
    return handler._answered(mail, "rematch", [said], ignored)
