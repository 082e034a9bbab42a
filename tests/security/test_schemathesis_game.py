"""The API against its OpenAPI document with games that exist: a public and a private
game are seeded with known tokens, and every generated request names one of them
and calls as a spectator, a seat, a seat of the other game or a stranger. Every
answer must be documented, well-formed and no server error, and none may show a
caller what the rules hide from them (docs/games/mall.md section 11): another seat's secret
card, the supply's order, the seed while the game is played."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from pbem.bootstrap import build
from pbem.config import load_settings
from pbem.service import PlayerSpec
from pbem.store import migrate
from pbem.web.app import create_app

from abuse import examples
from support import SHORT

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
SEED = "schemathesis-seed-7"
SECRETS = {1: "O3", 2: "O5"}


def _site():
    """The app on a database of its own, with a public and a private game (the schema
    is loaded at collection time, so this runs then)."""
    folder = Path(tempfile.mkdtemp(prefix="pbem-schemathesis-"))
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(folder)},
        database_url=f"sqlite:///{folder / 'api.sqlite3'}",
        secret_key="schemathesis-secret",
        broker_url="",
    )
    parts = build(settings)
    migrate.upgrade(parts.database)
    games = {}
    for name, public in (("public", True), ("private", False)):
        created = parts.service.create_game(
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
            {"public": public},
            {**SHORT, "seed": SEED},
        )
        games[name] = (created.game_id, {s.seat: s.token for s in created.seats})
    return create_app(parts), games


APP, GAMES = _site()
# Resigning and the rematch change who holds a seat for good: fuzzed on these two
# games they would turn every later example's seat token into a watcher's, and the
# checks of what each seat may see would pass unread. They are fuzzed on a site of
# their own (test_the_table_routes_answer_as_documented below).
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP).exclude(
    path_regex=r"/(resign|rematch)"
)
TABLE_APP, TABLE_GAMES = _site()
table_schema = schemathesis.openapi.from_wsgi("/api/openapi.json", TABLE_APP).include(
    path_regex=r"/(resign|rematch)"
)
# (game, caller): caller None is a spectator, 1 or 2 that seat, "other" a seat of
# the other game, "stranger" a token of no game.
CALLERS = [None, 1, 2, "other", "stranger"]


def _token(game: str, caller) -> str | None:
    if caller is None:
        return None
    if caller == "stranger":
        return "bm90LWEtdG9rZW4tYXQtYWxs"
    if caller == "other":
        return GAMES["private" if game == "public" else "public"][1][1]
    return GAMES[game][1][caller]


def _hidden_from(caller, body: dict, status: str) -> None:
    """What `caller` (None or a seat) must not see in a state document or a log."""
    seat = caller if caller in (1, 2) else None
    if "players" in body and isinstance(body["players"], list) and status == "playing":
        for player in body["players"]:
            if player.get("seat") != seat:
                assert player.get("secret") is None, (caller, player)
        assert isinstance(body.get("supply"), int)  # a count, never the order
    setup = body.get("setup")
    if isinstance(setup, dict) and status == "playing":
        assert "seed" not in setup and "supply" not in setup
        shown = setup.get("secrets") or {}
        assert set(shown) <= ({str(seat)} if seat else set()), (caller, shown)
    text = str(body)
    assert SEED not in text or status == "finished"
    for other, card in SECRETS.items():
        if other != seat and status == "playing":
            assert f"'secret': '{card}'" not in text and f"'{other}': '{card}'" not in text


@schema.parametrize()
@schema.given(game=st.sampled_from(["public", "private"]), caller=st.sampled_from(CALLERS))
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
def test_every_answer_about_a_real_game_matches_the_document_and_hides_secrets(case, game, caller):
    if case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters["game_id"] = GAMES[game][0]
    token = _token(game, caller)
    case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
    if token:
        case.headers["Authorization"] = f"Bearer {token}"
    response = case.call_and_validate(checks=CHECKS)
    if response.status_code == 200 and "game_id" in (case.path_parameters or {}):
        body = response.json()
        status = body.get("status") or body.get("game", {}).get("status") or "playing"
        _hidden_from(caller if caller in (1, 2) else None, body, status)
    if response.status_code == 200 and caller in (None, "other", "stranger") and game == "private":
        raise AssertionError(f"the private game answered 200 to {caller!r}: {case.path}")


def test_the_seeded_games_are_reached_with_their_tokens():
    """Without this, a broken mapping would let the test above pass vacuously."""
    client = APP.test_client()
    for name, (game_id, tokens) in GAMES.items():
        for seat, token in tokens.items():
            answer = client.get(
                f"/api/games/{game_id}", headers={"Authorization": f"Bearer {token}"}
            )
            assert answer.status_code == 200, (name, seat)
            assert answer.json["players"][seat - 1]["secret"] == SECRETS[seat]


@table_schema.parametrize()
@table_schema.given(game=st.sampled_from(["public", "private"]), caller=st.sampled_from(CALLERS))
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
def test_the_table_routes_answer_as_documented(case, game, caller):
    """Resign and rematch, hostile bodies and callers: never a server error, every
    answer as the document says; only a seat of the game gets a 2xx."""
    if case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters["game_id"] = TABLE_GAMES[game][0]
    token = None
    if caller in (1, 2):
        token = TABLE_GAMES[game][1][caller]
    elif caller == "other":
        token = TABLE_GAMES["private" if game == "public" else "public"][1][1]
    elif caller == "stranger":
        token = "bm90LWEtdG9rZW4tYXQtYWxs"
    case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
    if token:
        case.headers["Authorization"] = f"Bearer {token}"
    response = case.call_and_validate(checks=CHECKS)
    if 200 <= response.status_code < 300:
        assert caller in (1, 2), (caller, case.path, response.status_code)
