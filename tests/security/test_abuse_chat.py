"""Hostile table talk, through every entry point (the page form, the JSON API, the
service): markup is shown as text, a line is 1 to 500 characters, control, invisible
and direction-changing characters are refused (line breaks become a space; the
emoji joiner is kept), floods get 429, a token opens only its own game's chat, a
spectator never writes the players' chat, and the players never read the
spectators' while the game runs. A finished game's chat stays open (talk after the
game, as at a table)."""

from __future__ import annotations

import pytest

from pbem.service import PlayerSpec

from support import SHORT, csrf, play_out


def new_game(parts, public=True):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": public},
        SHORT,
    )
    return created, created.game_id, {s.seat: s.token for s in created.seats}


def say(client, game_id: str, token: str, text) -> object:
    return client.post(
        f"/api/games/{game_id}/chat",
        json={"text": text},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_markup_in_a_chat_line_is_shown_as_text_on_every_page(web):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    client = app.test_client()
    script = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    assert say(client, game_id, tokens[1], script).status_code == 201
    parts.service.spectator_says(game_id, "<b>Zoe</b>", script)
    for url in (f"/g/{game_id}/watch", f"/g/{game_id}/history", f"/g/{game_id}"):
        page = client.get(url).get_data(as_text=True)
        assert "<script>alert(1)" not in page and "<img src=x" not in page, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page, url
    assert "<b>Zoe</b>" not in client.get(f"/g/{game_id}/watch").get_data(as_text=True)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "needs some text"),
        ("   \n\t ", "needs some text"),
        ("x" * 501, "at most 500 characters"),
        ("a\x00b", "NUL"),  # the API refuses it in any body
        ("a\x1bb", "U+001B"),
        ("a\x7fb", "U+007F"),
        ("abc\u202edcba", "U+202E"),
        ("in\u200bvisible", "U+200B"),
        ("\ufeffbom", "U+FEFF"),
        ("tag\U000e0041", "U+E0041"),
        (["a list"], "is text"),
        (42, "is text"),
        (None, "is text"),
    ],
)
def test_a_bad_line_is_refused_with_the_rule(web, text, why):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    answer = say(app.test_client(), game_id, tokens[1], text)
    assert answer.status_code == 400, answer.get_json()
    assert why in answer.get_json()["error"]
    assert parts.service.table_talk(game_id) == []


def test_line_breaks_become_one_space_and_an_emoji_sequence_is_kept(web):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    answer = say(app.test_client(), game_id, tokens[1], f"one\r\ntwo\u2028three {family}")
    assert answer.status_code == 201
    assert answer.get_json()["text"] == f"one two three {family}"
    assert say(app.test_client(), game_id, tokens[1], "é" * 500).status_code == 201


def test_a_huge_body_is_refused_before_anything(web):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    answer = say(app.test_client(), game_id, tokens[1], "x" * 2_000_000)
    assert answer.status_code == 413
    assert parts.service.table_talk(game_id) == []


def test_a_flood_gets_429_from_the_service_for_every_entry_point(web):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    client = app.test_client()
    answers = [say(client, game_id, tokens[1], f"line {n}").status_code for n in range(8)]
    assert answers == [201] * 6 + [429] * 2
    assert "6 chat lines a minute" in say(client, game_id, tokens[1], "x").get_json()["error"]


def test_the_page_form_is_limited_per_client_too(web):
    app, parts = web
    _, game_id, _ = new_game(parts)
    client = app.test_client()
    statuses = [
        client.post(
            f"/g/{game_id}/watch/chat",
            data={"csrf_token": csrf(client, f"/g/{game_id}/watch"), "name": "Zoe", "text": "hi"},
        ).status_code
        for _ in range(6)
    ]
    assert statuses == [303] * 5 + [429]


@pytest.mark.parametrize("header", ["", "Bearer nonsense", "Bearer admin-key"])
def test_no_seat_no_chat(web, header):
    app, parts = web
    _, game_id, _ = new_game(parts)
    headers = {"Authorization": header} if header else {}
    answer = app.test_client().post(
        f"/api/games/{game_id}/chat", json={"text": "hi"}, headers=headers
    )
    assert answer.status_code == 403
    assert parts.service.table_talk(game_id) == []


def test_another_games_token_opens_not_this_chat(web):
    app, parts = web
    _, game_id, _ = new_game(parts)
    _, _, others = new_game(parts)
    answer = say(app.test_client(), game_id, others[1], "hi")
    assert answer.status_code == 403
    assert "another game" in answer.get_json()["error"]


def test_a_spectator_never_writes_the_players_chat(web):
    app, parts = web
    _, game_id, _ = new_game(parts)
    client = app.test_client()
    token = csrf(client, f"/g/{game_id}/watch")
    answer = client.post(f"/g/{game_id}/chat", data={"csrf_token": token, "text": "hi"})
    assert answer.status_code == 403
    assert parts.service.table_talk(game_id) == []
    page = client.get(f"/g/{game_id}/watch").get_data(as_text=True)
    assert f'action="/g/{game_id}/chat"' not in page


def test_players_do_not_read_the_spectators_chat_while_the_game_runs(web):
    app, parts = web
    created, game_id, tokens = new_game(parts)
    parts.service.spectator_says(game_id, "Zoe", "Ben is losing badly")
    player = app.test_client()
    player.get(f"/g/{game_id}/{tokens[2]}")
    page = player.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Ben is losing badly" not in page
    answer = player.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {tokens[2]}"})
    assert "Ben is losing badly" not in answer.get_data(as_text=True)
    assert "Ben is losing badly" not in str(parts.service.export_log(game_id, 2))
    play_out(parts.service, created)
    assert "Ben is losing badly" in player.get(f"/g/{game_id}").get_data(as_text=True)


def test_a_private_game_has_no_spectator_chat_at_all(web):
    app, parts = web
    _, game_id, _ = new_game(parts, public=False)
    client = app.test_client()
    token = csrf(client, "/new")
    answer = client.post(
        f"/g/{game_id}/watch/chat", data={"csrf_token": token, "name": "Zoe", "text": "hi"}
    )
    assert answer.status_code == 403
    assert parts.service.spectator_talk(game_id) == []


def test_a_finished_game_still_takes_table_talk(web):
    app, parts = web
    created, game_id, tokens = new_game(parts)
    play_out(parts.service, created)
    assert say(app.test_client(), game_id, tokens[2], "good game").status_code == 201


def test_the_chat_lines_are_in_the_games_json_for_every_viewer(web):
    app, parts = web
    _, game_id, tokens = new_game(parts)
    client = app.test_client()
    say(client, game_id, tokens[1], "my card is O3")
    seen = client.get(f"/api/games/{game_id}").get_json()["chat"]
    assert [(line["seat"], line["name"]) for line in seen] == [(1, "Ann")]
    assert seen[0]["text"] == "my card is O3"  # told as said: Ann names her own card
    own = client.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert own.get_json()["chat"][0]["text"] == "my card is O3"
