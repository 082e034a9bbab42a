"""The JSON API (docs/design.md contract): create games, read a game as a seat or a
spectator, list legal actions, submit actions, read and say table talk, export the
log, check the chain."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request, url_for

from pbem import metrics
from pbem.service import BadRequest, Forbidden, PlayerSpec
from pbem.service.options import press

from .bearer import bearer, bearer_is
from .context import parts
from .openapi import document

bp = Blueprint("api", __name__, url_prefix="/api")


def _is_admin() -> bool:
    return bearer_is(parts().settings.admin_key)


def _viewer(game_id: str) -> int | None:
    """The caller's seat (by bearer token), or None for a spectator; a private game
    is shown to its seats (and the admin) only."""
    service = parts().service
    token = bearer()
    if token and not _is_admin():
        return service.seat_of(game_id, token)
    if not _is_admin() and not service.options(game_id)["public"]:
        raise Forbidden("this game is private: send your seat token (Authorization: Bearer ...)")
    return None


def _body() -> dict[str, Any]:
    """The request's JSON object; the app read it within bounds (web.jsonbody)
    before this view ran."""
    if not request.is_json:
        raise BadRequest("the request body must be a JSON object (Content-Type: application/json)")
    body = request.get_json()
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


@bp.post("/games")
def create_game() -> tuple:
    body = _body()
    players = body.get("players")
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise BadRequest('"players" is a list of {"name", "email"} objects')
    specs = [
        PlayerSpec(str(p.get("name") or ""), p.get("email"), p.get("bot"), p.get("language"))
        for p in players
    ]
    for key in ("options", "setup"):
        if body.get(key) is not None and not isinstance(body[key], dict):
            raise BadRequest(f'"{key}" must be an object')
    if body.get("setup") and not _is_admin():
        # whoever chooses the deal knows every secret card and the supply order
        raise Forbidden(
            '"setup" (seed, supply, commons, secrets) is for the admin only'
            " (Authorization: Bearer <admin key>); leave it out and the server deals"
        )
    created = parts().service.create_game(  # without "game": the first registered game
        specs, body.get("options"), body.get("setup"), game=body.get("game"), name=body.get("name")
    )
    answer: dict[str, Any] = {"id": created.game_id, "seq": created.seq}
    if _is_admin():
        answer["seats"] = [{"seat": s.seat, "token": s.token} for s in created.seats if s.token]
    return answer, 201, {"Location": url_for("api.show_game", game_id=created.game_id)}


@bp.get("/games/<game_id>")
def show_game(game_id: str) -> dict:
    seat = _viewer(game_id)
    service = parts().service
    doc = service.state_at(game_id, seat=seat)
    talk = service.table_talk(game_id, seat)
    told: dict[str, Any] = {"chat": [line.told() for line in talk], "chat_earlier": talk.earlier}
    told["press"] = press(service.options(game_id))  # whether a line may go to some seats
    # the name its creator gave the game (null: it is called by its players' names)
    return {**doc, "name": service.game_name(game_id), **told}


@bp.get("/games/<game_id>/chat")
def chat(game_id: str) -> dict:
    """The players' chat a page at a time: the latest lines, or with `before=SEQ` those
    before that seq; `earlier` is the cursor of the page before (null: none)."""
    seat = _viewer(game_id)
    talk = parts().service.table_talk(game_id, seat, request.args.get("before"))
    return {"lines": [line.told() for line in talk], "earlier": talk.earlier}


@bp.post("/games/<game_id>/chat")
def say(game_id: str) -> tuple:
    body = _body()
    token = bearer()
    if not token or _is_admin():
        raise Forbidden("only a seat talks at the table: Authorization: Bearer <seat token>")
    event = parts().service.say(game_id, token, body.get("text"), body.get("to"))
    said = {"seq": event.seq, "seat": event.payload["seat"], "text": event.payload["text"]}
    return {**said, "to": event.payload.get("to")}, 201


@bp.get("/games/<game_id>/legal")
def legal(game_id: str) -> dict:
    seat = _viewer(game_id)
    service = parts().service
    state = service.state_at(game_id, seat=seat)
    return {"seat": seat, "seq": state["seq"], "legal": service.legal(game_id, seat)}


@bp.post("/games/<game_id>/actions")
def submit(game_id: str) -> tuple:
    body = _body()
    token = bearer()
    if not token:
        raise Forbidden("send your seat token: Authorization: Bearer <token>")
    if "action" not in body or not isinstance(body["action"], str | dict):
        raise BadRequest('"action" is the move in notation or its JSON form')
    expected = body.get("expected_seq")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise BadRequest('"expected_seq" is the seq you last saw, a whole number')
    key = body.get("idempotency_key") or request.headers.get("Idempotency-Key")
    if key is not None and not isinstance(key, str):
        raise BadRequest('"idempotency_key" is text')  # the service checks the rest
    with metrics.SUBMIT_SECONDS.labels(via="api").time():
        accepted = parts().service.submit_action(game_id, token, body["action"], expected, key)
    answer = {
        "seq": accepted.seq,
        "seat": accepted.seat,
        "action": accepted.action,
        "narration": accepted.narration,
        "head_hash": accepted.head_hash,
    }
    return answer, 201


@bp.get("/games/<game_id>/log")
def game_log(game_id: str) -> dict:
    return parts().service.export_log(game_id, _viewer(game_id))


@bp.get("/games/<game_id>/chain")
def chain(game_id: str) -> dict:
    """Every event's seq and commitment, and in full what the caller may see whole:
    what `pbem chain-check` verifies against the head hash the pages show."""
    return parts().service.chain(game_id, _viewer(game_id))


@bp.get("/openapi.json")
def openapi() -> dict:
    return document()
