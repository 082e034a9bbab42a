"""A chat that cannot grow without bound, and a spectators' chat its creator can shut:
each chat of a game holds at most talk_lines_per_game lines and one writer (a seat, a
spectator's name however it is cased) says at most talk_lines_per_writer; past
either, every entry point (the page forms, the JSON API, a `say` line by mail, a log
file's "chat") refuses with the rule and writes nothing. A game created with
spectator_talk off has no spectators' form and refuses their lines (403), while a
game stored before the option existed keeps its spectators talking."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from pbem.events import event_hash
from pbem.mail.inbound import Inbound
from pbem.service import BadRequest, Forbidden, PlayerSpec
from pbem.service.errors import TooMany
from pbem.store import log
from pbem.store.tables import Event

from support import SHORT, Table, csrf

RECORDED = Path(__file__).parents[1] / "integration" / "recorded" / "mall_v1_events.json"
PER_GAME, PER_WRITER = 5, 3  # small totals, to reach them with a few lines


@pytest.fixture
def small(make_web):
    """The web app on each database with small totals of talk: (app, parts)."""
    return make_web(talk_lines_per_game=PER_GAME, talk_lines_per_writer=PER_WRITER)


def _game(parts, **options):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True, **options},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def _say(client, game_id: str, token: str, text: str):
    return client.post(
        f"/api/games/{game_id}/chat",
        json={"text": text},
        headers={"Authorization": f"Bearer {token}"},
    )


def _head(parts, game_id: str) -> int:
    return parts.service.state_at(game_id)["seq"]


def test_a_seat_past_its_total_is_refused_with_the_rule_and_nothing_is_written(small):
    app, parts = small
    game_id, tokens = _game(parts)
    client = app.test_client()
    assert [_say(client, game_id, tokens[1], f"a{n}").status_code for n in range(3)] == [201] * 3
    head = _head(parts, game_id)
    refused = _say(client, game_id, tokens[1], "one more")
    assert refused.status_code == 429
    assert refused.get_json() == {
        "error": "you have said 3 lines at this table, the most one seat may say in a game",
        "detail": {"total": PER_WRITER, "chat": "table", "of": "writer"},
    }
    assert _head(parts, game_id) == head
    assert [line.text for line in parts.service.table_talk(game_id, 1)] == ["a0", "a1", "a2"]


def test_a_chat_past_the_games_total_is_refused_for_every_seat(small):
    app, parts = small
    game_id, tokens = _game(parts)
    client = app.test_client()
    said = [_say(client, game_id, tokens[s], f"{s}") for s in (1, 1, 1, 2, 2)]
    assert [a.status_code for a in said] == [201] * PER_GAME
    head = _head(parts, game_id)
    refused = _say(client, game_id, tokens[2], "and a sixth")
    assert refused.status_code == 429
    assert "holds 5 lines, the most a game keeps" in refused.get_json()["error"]
    assert refused.get_json()["detail"] == {"total": PER_GAME, "chat": "table", "of": "game"}
    assert _head(parts, game_id) == head


def test_the_page_form_past_the_total_answers_429_with_the_rule(small):
    app, parts = small
    game_id, tokens = _game(parts)
    for n in range(PER_WRITER):
        parts.service.say(game_id, tokens[1], f"line {n}")
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    head = _head(parts, game_id)
    answer = client.post(
        f"/g/{game_id}/chat",
        data={"csrf_token": csrf(client, f"/g/{game_id}"), "text": "one more"},
    )
    assert answer.status_code == 429
    assert "the most one seat may say in a game" in answer.get_data(as_text=True)
    assert _head(parts, game_id) == head


def test_a_spectators_name_has_its_total_however_it_is_cased(small):
    app, parts = small
    game_id, _ = _game(parts)
    service = parts.service
    for name in ("Zoe", "ZOE", " zoe "):
        service.spectator_says(game_id, name, "hi")
    head = _head(parts, game_id)
    client = app.test_client()
    answer = client.post(
        f"/g/{game_id}/watch/chat",
        data={"csrf_token": csrf(client, f"/g/{game_id}/watch"), "name": "zOe", "text": "again"},
    )
    assert answer.status_code == 429
    page = answer.get_data(as_text=True)
    assert "name zOe has said 3 lines here, the most one name may say in a game" in page
    assert _head(parts, game_id) == head
    service.spectator_says(game_id, "Max", "my turn")


def test_the_spectators_total_leaves_the_players_talking(small):
    _app, parts = small
    game_id, tokens = _game(parts)
    service = parts.service
    for n in range(PER_GAME):
        service.spectator_says(game_id, f"watcher {n}", "hi")
    with pytest.raises(TooMany, match="the spectators' chat of this game holds 5 lines"):
        service.spectator_says(game_id, "late", "hi")
    service.say(game_id, tokens[1], "the table is still open")
    assert len(service.spectator_talk(game_id)) == PER_GAME


def test_a_say_line_by_mail_past_the_total_is_answered_with_the_rule(make_web):
    _app, parts = make_web(talk_lines_per_game=PER_GAME, talk_lines_per_writer=1)
    table = Table(parts)
    table.inbound = Inbound(parts.service, parts.outbox, parts.settings, parts.service.clock)
    parts.service.say(table.game, table.tokens[1], "the one line I may say")
    head = table.seq()
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "say and another"))
    assert handled.status == "refused"
    (answer,) = table.answers()
    assert answer.payload["lines"] == [
        "Not said at the table: you have said 1 line at this table,"
        " the most one seat may say in a game."
    ]
    assert table.seq() == head


def test_a_log_file_with_more_chat_than_a_game_holds_is_refused(small):
    _app, parts = small
    games = len(parts.service.games())
    doc = {"format": "pbem.mall/1", "setup": {"players": ["Ann", "Ben"], **SHORT}, "actions": []}
    too_long = {**doc, "chat": [{"after": 0, "seat": 1, "text": "x"}] * (PER_GAME + 1)}
    with pytest.raises(BadRequest, match='"chat" has 6 lines; a game holds 5'):
        parts.service.import_log(too_long)
    one_seat = {**doc, "chat": [{"after": 0, "seat": 2, "text": "x"}] * (PER_WRITER + 1)}
    with pytest.raises(BadRequest, match='"chat" has 4 lines of seat 2; one seat says 3'):
        parts.service.import_log(one_seat)
    assert len(parts.service.games()) == games
    parts.service.import_log({**doc, "chat": one_seat["chat"][:PER_WRITER]})
    assert len(parts.service.games()) == games + 1


def _watch(client, game_id: str) -> str:
    return client.get(f"/g/{game_id}/watch").get_data(as_text=True)


def test_a_creator_may_switch_the_spectators_chat_off(make_web):
    app, parts = make_web()
    client = app.test_client()
    created = client.post(
        "/api/games",
        json={
            "players": [
                {"name": "Ann", "email": "ann@example.com"},
                {"name": "Ben", "email": "ben@example.com"},
            ],
            "options": {"public": True, "spectator_talk": False},
        },
    )
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    page = _watch(client, game_id)
    assert f'action="/g/{game_id}/watch/chat"' not in page
    assert "switched the spectators' chat off" in page
    head = _head(parts, game_id)
    answer = client.post(
        f"/g/{game_id}/watch/chat",
        data={"csrf_token": csrf(client, "/new"), "name": "Zoe", "text": "hi"},  # no form here
    )
    assert answer.status_code == 403
    assert "spectators' chat of this game is off" in html.unescape(answer.get_data(as_text=True))
    with pytest.raises(Forbidden, match="chat of this game is off"):
        parts.service.spectator_says(game_id, "Zoe", "hi")
    assert _head(parts, game_id) == head
    assert parts.service.spectator_talk(game_id) == []


def test_the_new_game_form_switches_the_spectators_chat_off_when_ticked(make_web):
    app, parts = make_web()
    client = app.test_client()
    form = {
        "csrf_token": csrf(client, "/new"),
        "name1": "Ann",
        "email1": "ann@example.com",
        "name2": "Ben",
        "email2": "ben@example.com",
        "public": "yes",
    }
    quiet = client.post("/new", data={**form, "quiet_spectators": "yes"})
    talking = client.post("/new", data={**form, "csrf_token": csrf(client, "/new")})
    assert quiet.status_code == talking.status_code == 303, quiet.get_data(as_text=True)
    games = {g.id: g.options for g in parts.service.games()}
    assert sorted(o["spectator_talk"] for o in games.values()) == [False, True]


def test_a_game_stored_before_the_option_keeps_its_spectators_talking(make_web):
    """A recorded game of an older server (its GameCreated has no spectator_talk),
    made public, its hash chain written again."""
    app, parts = make_web()
    rows = json.loads(RECORDED.read_text(encoding="utf-8"))
    rows[0]["payload"]["options"]["public"] = True
    assert "spectator_talk" not in rows[0]["payload"]["options"]
    prev = "0" * 64
    for row in rows:
        fields = (row["seq"], row["type"], row["payload"], row["actor"], row["created_at"])
        row["prev_hash"], row["hash"] = prev, event_hash(prev, *fields)
        prev = row["hash"]
    with parts.database.write() as s:
        for row in rows:
            s.add(Event(**row))
    parts.service.rebuild()
    game_id = rows[0]["game_id"]
    assert parts.service.verify(game_id) == []
    client = app.test_client()
    assert f'action="/g/{game_id}/watch/chat"' in _watch(client, game_id)
    parts.service.spectator_says(game_id, "Zoe", "still talking")
    assert [line.text for line in parts.service.spectator_talk(game_id)] == ["still talking"]
    with parts.database.read() as s:
        assert log.created_payload(s, game_id)["options"].get("spectator_talk") is None
