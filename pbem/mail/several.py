"""The mails about several games of one address (its line in compose.WRITERS each):
the links to its games, the sign-in link to My games, the link that signs out of
it everywhere, the daily digest. Each lists
the games whose seat the address still holds, in the language of the row."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service import naming
from pbem.service.notices import Moot
from pbem.service.signing import LINK_LIFE, sign_in_token, sign_out_token
from pbem.service.tokens import seat_url

from .joinmail import join_confirm_mail
from .wording import together

__all__ = ["digest_mail", "join_confirm_mail", "my_games_mail", "sign_in_mail", "sign_out_mail"]


def my_games_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    context = games_of(composer, row)
    return _("Your games of %(titles)s", titles=context["titles"]), context


def sign_in_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    context = games_of(composer, row)
    token = sign_in_token(composer.settings.signing_key(), row.payload["nonce"])
    context["sign_in"] = f"{composer.settings.base_url.rstrip('/')}/my-games/sign-in/{token}"
    context["minutes"] = int(LINK_LIFE.total_seconds() // 60)
    return _("Sign in to your games of %(titles)s", titles=context["titles"]), context


def sign_out_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    context = games_of(composer, row)
    token = sign_out_token(composer.settings.signing_key(), row.payload["nonce"])
    base = composer.settings.base_url.rstrip("/")
    context["sign_out"] = f"{base}/my-games/sign-out-everywhere/{token}"
    context["minutes"] = int(LINK_LIFE.total_seconds() // 60)
    return _("Sign out of My games everywhere"), context


def digest_mail(composer: Any, row: Any) -> tuple[str, dict[str, Any]]:
    context = games_of(composer, row)
    return _("Your daily %(titles)s digest", titles=context["titles"]), context


def games_of(composer: Any, row: Any) -> dict[str, Any]:
    """A mail about several games: those the address still holds a seat of."""
    found = [
        summary(composer, game_id, seat, row.address) for game_id, seat in row.payload["seats"]
    ]
    games = [s for s in found if s is not None]
    if not games:
        raise Moot("the address holds none of these seats any more")
    return {"name": games[0]["name"], "games": games, "titles": titles(games)}


def summary(composer: Any, game_id: str, seat: int, address: str) -> dict[str, Any] | None:
    """A game of the address's list, or None when the seat is no longer theirs."""
    service = composer.service
    link = next(s for s in service.seat_links(game_id) if s.seat == seat)
    if link.token is None or (link.email or "").lower() != address.lower():
        return None  # a bot's, or another person's seat now
    doc = service.state_at(game_id, seat=seat)
    names = {p["seat"]: p["name"] for p in doc["players"]}
    return {
        "game": game_id,
        # the game as this reader is told of it: its name and their opponents
        "called": naming.label(service.game_name(game_id), names, seat),
        "seat": seat,
        "name": link.name,
        "title": _(GAMES[doc["game"]].title),
        "link": seat_url(composer.settings.base_url, game_id, link.token),
        "status": doc["status"],
        "turn": doc["turn"],
        "yours": seat in doc["waiting"],  # the game waits on this seat (of several, too)
        "round": doc["round"],
    }


def titles(games: list[dict[str, Any]]) -> str:
    """The games' titles, each once, in the order listed: "Nim", "Go and Nim"."""
    return together(dict.fromkeys(g["title"] for g in games))
