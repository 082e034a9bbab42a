"""What a game page shows, gathered from the service for one viewer: the state
document (already redacted for that viewer), the game's own board and turn panel
(from its plugin's `Pages`), names, standings order, undo and the log. Templates
only lay this out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pbem.events import GameCreated
from pbem.games import GAMES
from pbem.games.base import Pages, Plugin
from pbem.i18n import gettext as _
from pbem.service import Happened, Service, ServiceError, naming


def pages_of(doc: dict[str, Any]) -> tuple[Plugin, Pages]:
    """The plugin of the game a state document belongs to, and its pages."""
    plugin = GAMES[doc["game"]]
    pages: Pages = plugin.part("pages")
    return plugin, pages


def templates(plugin: Plugin, pages: Pages) -> dict[str, str]:
    """The game's partials by role, as the app's template loader names them."""
    return {role: f"{plugin.name}/{name}" for role, name in pages.partials.items()}


def game_page(
    service: Service,
    game_id: str,
    seat: int | None,
    *,
    seq: int | None = None,
    changed: Any = None,
) -> dict[str, Any]:
    """The context of a game page at `seq` (default: now) for `seat` (None: a
    spectator). `changed` is what the event at `seq` changed (the history page)."""
    doc = service.state_at(game_id, seq, seat)
    plugin, pages = pages_of(doc)
    your_turn = seq is None and seat is not None and bool(doc["acting"])
    undo: dict[str, Any] | None = None
    if seq is None and seat is not None and doc["status"] == "playing":
        try:
            undo = {"plan": service.undo_plan(game_id, seat)}
        except ServiceError as error:
            undo = {"refused": error.message}
    names = {p["seat"]: p["name"] for p in doc["players"]}
    return {
        "game_id": game_id,
        "doc": doc,
        "seat": seat,
        "names": names,
        "you": seat is not None and seat in names,
        "title": _(plugin.title),
        # what the game is called, to this viewer: with their opponents
        "called": naming.label(service.game_name(game_id), names, seat),
        "partials": templates(plugin, pages),
        "script": pages.script,
        "stylesheet": pages.stylesheet,
        "board": pages.board(doc, seat, your_turn=your_turn, changed=changed),
        "standings": plugin.standings(doc),
        "your_turn": your_turn,
        "undo": undo,
        "setup_chosen": service.setup_chosen(game_id),
    }


def turn(service: Service, game_id: str, seat: int, doc: dict[str, Any]) -> dict[str, Any]:
    """The turn panel's data from the game: its grouped legal actions (each with a
    preview of what it would do) and its page script's data."""
    _plugin, pages = pages_of(doc)
    return pages.turn(doc, seat, service.turn_options(game_id, seat))


def changes(before: dict[str, Any], after: dict[str, Any]) -> Any:
    """What one event changed, as the game marks it on its board."""
    _plugin, pages = pages_of(after)
    return pages.changed(before, after)


def log(events: Iterable[Happened]) -> list[dict[str, Any]]:
    """The game log with a marker where each round begins."""
    entries: list[dict[str, Any]] = []
    current = 1
    for event in events:
        if event.round != current and not isinstance(event.event, GameCreated):
            entries.append({"marker": _("Round %(round)s", round=event.round)})
            current = event.round
        entries.append({"seq": event.seq, "text": event.text, "closes": event.closes_round})
    return entries
