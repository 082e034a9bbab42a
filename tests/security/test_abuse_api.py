"""Hostile input to the JSON API, on SQLite and PostgreSQL: malformed actions, JSON
nested deep, numbers of 100,000 digits, NUL bytes in ids, keys and headers, and
werkzeug's own refusals. Every answer is a 4xx with the JSON error shape, never a
5xx, and nothing about the server's insides."""

from __future__ import annotations

import re

import pytest

from pbem.service.tokens import token_hash
from pbem.web.app import create_app

from support import SHORT

ADMIN = {"Authorization": "Bearer admin-key"}
PLAYERS = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "email": "ben@example.com"}]
DEEP = 100_000
DIGITS = "9" * 100_000


@pytest.fixture
def api(database_url, make_parts):
    """A test client of the app on each kind of database, and a game in it."""
    parts = make_parts(
        database_url=database_url,
        secret_key="abuse-secret",
        admin_key="admin-key",
        inbound_secret="hook-secret",
    )
    client = create_app(parts).test_client()
    answer = client.post("/api/games", json={"players": PLAYERS, "setup": SHORT}, headers=ADMIN)
    assert answer.status_code == 201, answer.json
    seats = {s["seat"]: s["token"] for s in answer.json["seats"]}
    return client, answer.json["id"], seats


def json_error(answer, *statuses: int) -> dict:
    """The answer is one of `statuses` with the {"error", "detail"} shape."""
    assert answer.status_code in statuses, (answer.status_code, answer.get_data(as_text=True)[:300])
    assert answer.mimetype == "application/json"
    body = answer.get_json()
    assert set(body) == {"error", "detail"} and isinstance(body["error"], str) and body["error"]
    assert "Traceback" not in answer.get_data(as_text=True)
    return body


def play(client, game_id, token, action, **extra):
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"action": action, **extra},
        headers={"Authorization": f"Bearer {token}"},
    )


BAD_ACTIONS = [
    {"type": []},
    {"type": {"build": 1}},
    {"type": None},
    {"type": "build", "slot": ["L1"], "x": 0, "y": 2},
    {"type": "build", "slot": "L1", "x": 10**100, "y": 2},
    {"type": "build", "slot": "L1", "x": 0.5, "y": 2},
    {"type": "build", "slot": "L1", "x": "0", "y": 2},
    {"type": "build", "slot": "L" + DIGITS, "x": 0, "y": 2},
    {"type": "build", "slot": "L١", "x": 0, "y": 2},
    {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": 7},
    {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": "M1." + DIGITS},
    {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": "M1.x"},
    {"type": "build", "slot": "L1", "x": 0, "y": 2, "customer": "M1.١"},
    {"type": "money", "column": ["L"]},
    {"type": "money", "column": "LL" * 1000},
    {"type": "attraction", "id": "haunted-hotel", "x": 0, "y": 2, "mirror": "yes"},
    {"type": "attraction", "id": {"x": 1}, "x": 0, "y": 2},
    {"type": "dock", "id": "GD" + DIGITS, "x": 2},
    {"type": "dock", "id": "GD2", "x": -(10**50)},
    {"type": "pass", "extra": [[[[]]]]},
    "build L1 at ٠,٢",
    "build L1 at 0,٢",
    "build L١ at 0,2",
    "money ｌ",
    f"build L1 at {DIGITS},0",
    f"build L1 at 0,2 for M1.{DIGITS}",
    f"dock GD2 at {DIGITS}",
    "build L1 at 1000,2",
    "[" * DEEP + "]" * DEEP,
    "{" + '"a":{' * 5000 + "}" * 5001,
    "x" * 100_000,
    "build L1 at 0,2\x00",
]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=range(len(BAD_ACTIONS)))
def test_a_malformed_action_is_refused_as_notation_never_a_server_error(api, action):
    client, game_id, seats = api
    before = client.get(f"/api/games/{game_id}", headers=ADMIN).json["seq"]
    body = json_error(play(client, game_id, seats[1], action), 400, 422)
    assert "Traceback" not in body["error"]
    assert client.get(f"/api/games/{game_id}", headers=ADMIN).json["seq"] == before


def test_arabic_indic_digits_do_not_play_a_move(api):
    client, game_id, seats = api
    body = json_error(play(client, game_id, seats[1], "build L1 at ٠,٢"), 400, 422)
    assert body["detail"]["unreadable"] is True
    assert play(client, game_id, seats[1], "build L1 at 0,2").status_code == 201


def test_json_nested_a_hundred_thousand_deep_is_a_400(api):
    client, game_id, seats = api
    deep = "[" * DEEP + "]" * DEEP
    for url in ("/api/games", f"/api/games/{game_id}/actions"):
        answer = client.post(
            url,
            data=deep,
            content_type="application/json",
            headers={"Authorization": f"Bearer {seats[1]}"},
        )
        json_error(answer, 400)
    nested = '{"action": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}"
    answer = client.post(
        f"/api/games/{game_id}/actions",
        data=nested,
        content_type="application/json",
        headers={"Authorization": f"Bearer {seats[1]}"},
    )
    json_error(answer, 400)


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/abc%00def",
        "/api/games/%00",
        "/api/games/{game}%00",
        "/api/games/{game}%00/legal",
        "/api/games/{game}%00/log",
        "/api/games/" + "a" * 5000,
        "/api/games/%F0%9F%98%80",
        "/api/games/%C0%80",
    ],
)
def test_a_nul_byte_or_a_stranger_in_a_game_id_is_a_404(api, path):
    client, game_id, _ = api
    json_error(client.get(path.format(game=game_id), headers=ADMIN), 400, 404)


def test_a_nul_byte_in_a_game_id_of_an_action_is_refused(api):
    client, game_id, seats = api
    answer = client.post(
        f"/api/games/{game_id}%00/actions",
        json={"action": "pass"},
        headers={"Authorization": f"Bearer {seats[1]}"},
    )
    json_error(answer, 400, 404)


@pytest.mark.parametrize("key", ["k\x00ey", "\x00", "k\x1bey", "k" * 5000])
def test_a_nul_or_control_character_in_an_idempotency_key_is_a_400(api, key):
    client, game_id, seats = api
    json_error(play(client, game_id, seats[1], "build L1 at 0,2", idempotency_key=key), 400)


@pytest.mark.parametrize(
    "header, value",
    [
        ("Authorization", "Bearer tok\x00en"),
        ("Authorization", "Bearer \x00"),
        ("Idempotency-Key", "k\x00ey"),
        ("Idempotency-Key", "k\x01ey"),
    ],
)
def test_a_nul_byte_in_a_header_is_a_400(api, header, value):
    client, game_id, seats = api
    headers = {"Authorization": f"Bearer {seats[1]}", header: value}
    answer = client.post(
        f"/api/games/{game_id}/actions", json={"action": "build L1 at 0,2"}, headers=headers
    )
    json_error(answer, 400)
    json_error(client.get(f"/api/games/{game_id}", headers={header: value}), 400)


@pytest.mark.parametrize(
    "player",
    [
        {"name": "Ann\x00", "email": "ann@example.com"},
        {"name": "Ann", "email": "ann\x00@example.com"},
        {"name": "Ann", "email": "ann@example.com\x00"},
    ],
)
def test_a_nul_byte_in_a_name_or_an_email_is_a_400(api, player):
    client, _, _ = api
    answer = client.post("/api/games", json={"players": [player, PLAYERS[1]]})
    json_error(answer, 400)


def test_a_body_over_the_limit_is_a_413_in_json(api):
    client, game_id, seats = api
    answer = client.post(
        f"/api/games/{game_id}/actions",
        data="x" * 2_000_000,
        content_type="application/json",
        headers={"Authorization": f"Bearer {seats[1]}"},
    )
    json_error(answer, 413)


def test_werkzeug_refusals_under_the_api_and_inbound_answer_json(api):
    client, game_id, _ = api
    json_error(client.get(f"/api/games/{game_id}/actions"), 405)
    json_error(client.delete("/api/games"), 405)
    json_error(client.get("/api/no/such/thing"), 404)
    json_error(client.get("/inbound/email"), 405)
    json_error(client.get("/inbound/nothing"), 404)
    json_error(
        client.post(
            "/inbound/email", data="x" * 2_000_000, headers={"Authorization": "Bearer hook-secret"}
        ),
        413,
    )
    json_error(client.post("/api/games", data="{not json", content_type="application/json"), 400)
    nan = '{"players": [{"name": "Ann"}, {"name": "Ben"}], "options": {"hours_per_turn": NaN}}'
    json_error(client.post("/api/games", data=nan, content_type="application/json"), 400)


def test_pages_get_the_error_page_for_werkzeug_refusals(api):
    client, _, _ = api
    for answer in (client.get("/no/such/page"), client.put("/new"), client.get("/g/x%00y")):
        assert 400 <= answer.status_code < 500
        assert answer.mimetype == "text/html"
        assert "That did not work" in answer.get_data(as_text=True)


def test_an_unexpected_error_under_the_api_is_a_500_with_nothing_inside(api, monkeypatch):
    client, game_id, _ = api
    app = client.application

    def broken(*args, **kwargs):
        raise RuntimeError("db password is hunter2 at /srv/pbem/secret.py line 12")

    monkeypatch.setattr(app.extensions["pbem"].service, "state_at", broken)
    answer = client.get(f"/api/games/{game_id}", headers=ADMIN)
    body = json_error(answer, 500)
    text = answer.get_data(as_text=True)
    assert "hunter2" not in text and "RuntimeError" not in text and "secret.py" not in text
    assert body["detail"] is None


def test_an_idempotency_key_the_service_takes_is_taken_by_the_api_too(api):
    """The key's rule is the service's (1 to 200 printable characters): the API
    refuses no key the service would keep, so a retry with it answers the first move."""
    client, game_id, seats = api
    key = "zug-ü-1 ✓"
    first = play(client, game_id, seats[1], "build L1 at 0,2", idempotency_key=key)
    again = play(client, game_id, seats[1], "build L1 at 0,2", idempotency_key=key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json()["seq"] == first.get_json()["seq"] == 2


def test_a_stale_answer_tells_what_happened_never_an_events_payload(database_url, make_parts):
    # A seat handed to a new person lands in "what happened since": the 409 says so
    # in words, never with the new holder's address or the hash of their link.
    parts = make_parts(database_url=database_url, secret_key="abuse-secret", admin_key="k")
    client = create_app(parts).test_client()
    admin = {"Authorization": "Bearer k"}
    answer = client.post("/api/games", json={"players": PLAYERS, "setup": SHORT}, headers=admin)
    game_id = answer.json["id"]
    seats = {s["seat"]: s["token"] for s in answer.json["seats"]}
    held = parts.service.replace_seat(game_id, 2, "human", name="Cleo", email="cleo@example.org")
    stale = play(client, game_id, seats[1], "money L", expected_seq=1)
    body = json_error(stale, 409)
    text = stale.get_data(as_text=True)
    assert "cleo@example.org" not in text and held.token not in text
    assert token_hash(held.token) not in text
    assert [set(h) for h in body["detail"]["since"]] == [
        {"seq", "type", "seat", "text", "round", "closes_round"}
    ]
    assert body["detail"]["since"][0]["type"] == "SeatReplaced"


@pytest.mark.parametrize("game", [["mall"], {"name": "mall"}, 5, True, "x" * 5000, "MALL"])
def test_a_game_that_is_no_registered_name_is_a_short_400(api, game):
    client, _, _ = api
    answer = client.post("/api/games", json={"players": PLAYERS, "game": game}, headers=ADMIN)
    body = json_error(answer, 400)
    assert "game" in body["error"] and len(answer.get_data()) < 400  # never echoed whole


HOSTILE_BODIES = {
    "nested deep": ("[" * DEEP + "]" * DEEP, "nests deeper than 16 levels"),
    "nested 17 deep": ("[" * 17 + "]" * 17, "nests deeper than 16 levels"),
    "NaN": ('{"accept": NaN}', "holds NaN, which is not JSON"),
    "a NUL": ('{"accept": "\\u0000"}', "holds a NUL character"),
    "not JSON": ("{accept", "it is not JSON"),
}


def _json_routes(app, game_id):
    """Every route that takes a body, its variables filled in with the game's."""

    def filled(variable: re.Match) -> str:
        return game_id if "game" in variable.group(1) else "x"

    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^>:]+:)?([^>]+)>", filled, rule.rule)
        for method in sorted((rule.methods or set()) - {"GET", "HEAD", "OPTIONS"}):
            yield method, path


@pytest.mark.parametrize("hostile", sorted(HOSTILE_BODIES))
def test_every_route_refuses_a_hostile_json_body_before_its_view(api, hostile, monkeypatch):
    """One check of the body, before any view looks at it: on every route that takes
    one, a body sent as JSON that is not JSON within bounds is a 400 saying why (the
    rematch answer once read it itself and answered 500), and no view ran."""
    client, game_id, seats = api
    body, why = HOSTILE_BODIES[hostile]
    app = client.application
    app.config["WTF_CSRF_ENABLED"] = False  # the pages' forms are refused first otherwise
    ran: list[str] = []
    for endpoint in list(app.view_functions):
        monkeypatch.setitem(
            app.view_functions, endpoint, lambda *a, _e=endpoint, **k: ran.append(_e) or ("", 204)
        )
    routes = list(_json_routes(app, game_id))
    assert any(path.endswith("/rematch/answer") for _, path in routes)
    for method, path in routes:
        answer = client.open(
            path,
            method=method,
            data=body,
            content_type="application/json",
            headers={"Authorization": f"Bearer {seats[1]}"},
        )
        assert answer.status_code == 400, (method, path, answer.status_code)
        assert why in answer.get_data(as_text=True), (method, path)
    assert ran == []


def test_a_rematch_answer_nested_deep_is_a_400_not_a_500(api):
    client, game_id, seats = api
    answer = client.post(
        f"/api/games/{game_id}/rematch/answer",
        data="[" * DEEP + "]" * DEEP,
        content_type="application/json",
        headers={"Authorization": f"Bearer {seats[2]}"},
    )
    assert "nests deeper than 16 levels" in json_error(answer, 400)["error"]
