"""The HTTP API (docs/design.md contract): creating games (tokens only with the admin key),
the state document per caller, legal actions, submitting with 201 / 409 / 422 and
idempotency keys, the log, errors as {"error", "detail"}."""

from __future__ import annotations

import pytest

from support import SHORT

ADMIN = {"Authorization": "Bearer admin-key"}
PLAYERS = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "email": "ben@example.com"}]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, setup=SHORT, **options) -> tuple[str, dict[int, str]]:
    answer = client.post(
        "/api/games", json={"players": PLAYERS, "setup": setup, "options": options}, headers=ADMIN
    )
    assert answer.status_code == 201, answer.json
    return answer.json["id"], {s["seat"]: s["token"] for s in answer.json["seats"]}


def test_creating_a_game_answers_201_with_its_id_and_mails_each_player(web):
    app, parts = web
    answer = app.test_client().post("/api/games", json={"players": PLAYERS})
    assert answer.status_code == 201
    assert set(answer.json) == {"id", "seq"} and answer.json["seq"] == 1  # no tokens
    assert answer.headers["Location"] == f"/api/games/{answer.json['id']}"
    kinds = [(r.kind, r.address) for r in _outbox(parts)]
    assert kinds == [
        ("invitation", "ann@example.com"),
        ("invitation", "ben@example.com"),  # Ann's tells her first turn too
    ]


def test_with_the_admin_key_the_answer_carries_the_seat_tokens(web):
    app, _ = web
    game_id, tokens = new_game(app.test_client())
    assert sorted(tokens) == [1, 2]
    state = app.test_client().get(f"/api/games/{game_id}", headers=bearer(tokens[1])).json
    assert state["players"][0]["secret"] == "O3" and state["players"][1]["secret"] is None


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"players": "Ann"}, 400, '"players" is a list'),
        ({"players": [{"name": "Ann"}]}, 400, "setup: the game takes 2 to 4 players, not 1"),
        ({"players": PLAYERS, "options": {"speed": 1}}, 400, "unknown options: speed"),
        ({"players": PLAYERS, "setup": {"supply": ["Y99"]}}, 400, "unknown tiles: Y99"),
        ({"players": PLAYERS, "setup": {"seed": "4711"}}, 403, "for the admin only"),
    ],
)
def test_a_bad_creation_is_refused_with_a_json_error(web, body, status, error):
    app, _ = web
    headers = ADMIN if status != 403 else None  # only the admin may give a setup
    answer = app.test_client().post("/api/games", json=body, headers=headers)
    assert answer.status_code == status
    assert error in answer.json["error"] and "detail" in answer.json


def test_a_private_game_is_refused_to_spectators_and_shown_when_public(web):
    app, _ = web
    client = app.test_client()
    private, _ = new_game(client)
    public, _ = new_game(client, public=True)
    refused = client.get(f"/api/games/{private}")
    assert refused.status_code == 403 and "private" in refused.json["error"]
    shown = client.get(f"/api/games/{public}")
    assert shown.status_code == 200
    assert [p["secret"] for p in shown.json["players"]] == [None, None]
    assert shown.json["seq"] == 1 and shown.json["turn"] == 1
    assert client.get("/api/games/nosuchgame", headers=ADMIN).status_code == 404


def test_legal_actions_are_the_callers_own_and_none_for_the_others(web):
    app, _ = web
    client = app.test_client()
    game_id, tokens = new_game(client)
    mine = client.get(f"/api/games/{game_id}/legal", headers=bearer(tokens[1])).json
    theirs = client.get(f"/api/games/{game_id}/legal", headers=bearer(tokens[2])).json
    assert mine["seat"] == 1 and mine["seq"] == 1
    assert mine["legal"][:3] == ["money L", "money R", "build L1 at 0,2"]
    assert theirs == {"seat": 2, "seq": 1, "legal": []}


def test_submitting_answers_201_409_and_422_as_the_contract_says(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = new_game(client)
    url = f"/api/games/{game_id}/actions"
    played = client.post(
        url, json={"action": "build L1 at 0,2", "expected_seq": 1}, headers=bearer(tokens[1])
    )
    assert played.status_code == 201
    assert played.json["seq"] == 2 and played.json["action"] == "build L1 at 0,2"
    assert played.json["narration"] == (
        "Burger Bar (Y01) from L1 at 0,2;"
        " a customer wanting food moves from the Main Entrance to Burger Bar (Y01)"
    )
    stale = client.post(
        url, json={"action": "money L", "expected_seq": 1}, headers=bearer(tokens[2])
    )
    assert stale.status_code == 409
    assert stale.json["detail"]["head_seq"] == 2
    assert stale.json["detail"]["since"][0]["text"] == (
        "Ann played Burger Bar (Y01) from L1 at 0,2;"
        " a customer wanting food moves from the Main Entrance to Burger Bar (Y01)"
    )
    # what happened since, in the contract's words only (never an event's payload)
    assert stale.json["detail"]["since"] == [
        {
            "seq": 2,
            "type": "ActionTaken",
            "seat": 1,
            "text": "Ann played Burger Bar (Y01) from L1 at 0,2;"
            " a customer wanting food moves from the Main Entrance to Burger Bar (Y01)",
            "round": 1,
            "closes_round": False,
        }
    ]
    illegal = client.post(
        url,
        json={"action": {"type": "build", "slot": "L4", "x": 9, "y": 9}, "expected_seq": 2},
        headers=bearer(tokens[2]),
    )
    assert illegal.status_code == 422
    assert illegal.json == {
        "error": "(9,9) would float: nothing below supports it",
        "detail": {"rule": "6"},
    }
    assert parts.service.state_at(game_id)["seq"] == 2


def test_the_same_idempotency_key_twice_gives_the_first_answer(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = new_game(client)
    body = {"action": "money L", "expected_seq": 1, "idempotency_key": "tap-1"}
    first = client.post(f"/api/games/{game_id}/actions", json=body, headers=bearer(tokens[1]))
    again = client.post(f"/api/games/{game_id}/actions", json=body, headers=bearer(tokens[1]))
    assert first.status_code == again.status_code == 201
    assert first.json == again.json
    assert parts.service.state_at(game_id)["seq"] == 2


@pytest.mark.parametrize(
    ("headers", "status", "error"),
    [
        ({}, 403, "send your seat token"),
        ({"Authorization": "Bearer nonsense"}, 403, "not valid"),
    ],
)
def test_submitting_without_a_valid_token_is_refused(web, headers, status, error):
    app, _ = web
    game_id, _ = new_game(app.test_client())
    answer = app.test_client().post(
        f"/api/games/{game_id}/actions", json={"action": "pass"}, headers=headers
    )
    assert answer.status_code == status and error in answer.json["error"]


def test_a_token_of_another_game_cannot_act_here(web):
    app, _ = web
    client = app.test_client()
    game_id, _ = new_game(client)
    _, others = new_game(client)
    answer = client.post(
        f"/api/games/{game_id}/actions", json={"action": "money L"}, headers=bearer(others[1])
    )
    assert answer.status_code == 403 and answer.json["error"] == "this link belongs to another game"


def test_the_log_is_redacted_for_the_caller_until_the_end(web):
    app, _ = web
    client = app.test_client()
    game_id, tokens = new_game(client, setup={"seed": "api log"})
    log = client.get(f"/api/games/{game_id}/log", headers=bearer(tokens[2])).json
    assert log["format"] == "pbem.mall/1"
    assert "seed" not in log["setup"] and log["actions"] == []
    assert log["setup"]["players"] == ["Ann", "Ben"]


def test_the_openapi_document_lists_every_route(web):
    app, _ = web
    doc = app.test_client().get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.")
    assert set(doc["paths"]) == {
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/legal",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/chat",
        "/api/games/{game_id}/log",
        "/api/games/{game_id}/chain",
        "/api/games/{game_id}/resign",
        "/api/games/{game_id}/rematch",
        "/api/games/{game_id}/rematch/answer",
        "/api/openapi.json",
    }


def _outbox(parts):
    from sqlmodel import select

    from pbem.store.tables import Outbox

    with parts.database.read() as s:
        return list(s.exec(select(Outbox).order_by(Outbox.id)).all())
