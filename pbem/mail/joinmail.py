"""The mail that confirms a seat at an open table: the one-use link, and who sits
there already (names only)."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from pbem.games.names import said_name
from pbem.i18n import gettext as _
from pbem.service import NotFound
from pbem.service.joining import join_token
from pbem.service.notices import Moot
from pbem.service.signing import LINK_LIFE

from .wording import together


def join_confirm_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    try:
        table = composer.service.open_table_view(row.payload["table"])
    except NotFound:
        raise Moot("the table is gone") from None
    if table["status"] != "open":
        raise Moot("the table is no longer open")
    token = join_token(composer.settings.signing_key(), row.payload["nonce"])
    title = _(GAMES[table["game"]].title)
    context = {
        "name": row.payload["name"],
        "title": title,
        "seated": together(said_name(name) for name in table["names"]),
        "confirm": f"{composer.settings.base_url.rstrip('/')}/open/join/{token}",
        "minutes": int(LINK_LIFE.total_seconds() // 60),
    }
    return _("Your seat at a table of %(title)s", title=title), context
