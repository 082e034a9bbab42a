"""Resigning and the rematch on the game page and in the API: a confirm step before
resigning, the link that resigned only watches (even a private game), and every
request for a seat made by its own link only."""

from __future__ import annotations

from pbem.service import PlayerSpec

from support import SHORT, csrf, play_out

ANN, BEN = PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")
CAT = PlayerSpec("Cat", "cat@example.com")


def seated(app, game_id: str, token: str):
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{token}").status_code == 302
    return client


def page(client, game_id: str) -> str:
    return client.get(f"/g/{game_id}").get_data(as_text=True)


def test_resigning_asks_first_then_the_game_ends_for_nim(web):
    app, parts = web
    made = parts.service.create_game([ANN, BEN], None, {"pile": 9}, game="nim")
    ann = seated(app, made.game_id, made.seats[0].token)
    assert "Resign…" in page(ann, made.game_id)

    token = csrf(ann, f"/g/{made.game_id}")
    asked = ann.post(f"/g/{made.game_id}/resign", data={"csrf_token": token})
    text = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "Are you sure?" in text and "The game ends now" in text
    assert parts.service.state_at(made.game_id)["status"] == "playing"

    done = ann.post(f"/g/{made.game_id}/resign", data={"csrf_token": token, "confirm": "yes"})
    assert done.status_code == 302
    doc = parts.service.state_at(made.game_id)
    assert doc["status"] == "finished" and doc["winners"] == [2]
    shown = page(ann, made.game_id)
    assert "You resigned, and the game is over." in shown and "Offer a rematch" in shown


def test_a_resigned_link_only_watches_a_private_game(web):
    app, parts = web
    secrets = {"1": "O3", "2": "O5", "3": "O1"}
    made = parts.service.create_game([ANN, BEN, CAT], None, {**SHORT, "secrets": secrets})
    game = made.game_id
    ben = seated(app, game, made.seats[1].token)
    assert "secret card O5" in page(ben, game)
    token = csrf(ben, f"/g/{game}")
    asked = ben.post(f"/g/{game}/resign", data={"csrf_token": token}).get_data(as_text=True)
    assert "A bot plays your seat from now on" in asked
    ben.post(f"/g/{game}/resign", data={"csrf_token": token, "confirm": "yes"})

    shown = page(ben, game)
    assert "You resigned from this game; you are watching it." in shown
    assert "Resign…" not in shown and "Your seat" not in shown
    assert "secret card O" not in shown  # the bot has Ben's card; nobody sees it
    cat = seated(app, game, made.seats[2].token)
    assert "secret card O5" not in page(cat, game) and "secret card O1" in page(cat, game)
    again = app.test_client()  # the link opened in another browser: watching too
    assert again.get(f"/g/{game}/{made.seats[1].token}").status_code == 302
    assert "you are watching it" in page(again, game)
    stranger = app.test_client()
    assert stranger.get(f"/g/{game}").status_code == 403
    assert stranger.get(f"/g/{game}/not-a-token").status_code == 403
    # nothing for the seat can be done with the resigned link
    post = ben.post(f"/g/{game}/resign", data={"csrf_token": token, "confirm": "yes"})
    assert post.status_code == 403


def test_resigning_needs_the_seat_and_the_form(web):
    app, parts = web
    made = parts.service.create_game([ANN, BEN], None, {"pile": 9}, game="nim")
    game = made.game_id
    stranger = app.test_client()
    token = csrf(stranger, "/new")
    assert stranger.post(f"/g/{game}/resign", data={"csrf_token": token}).status_code == 403
    answer = stranger.post(f"/g/{game}/resign", data={"csrf_token": token, "confirm": "yes"})
    assert answer.status_code == 403
    ann = seated(app, game, made.seats[0].token)
    assert ann.post(f"/g/{game}/resign", data={"confirm": "yes"}).status_code == 400  # no CSRF
    assert parts.service.state_at(game)["status"] == "playing"


def test_the_rematch_is_offered_and_accepted_on_the_pages(web):
    app, parts = web
    made = parts.service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    play_out(parts.service, made)
    game = made.game_id
    ann, ben = seated(app, game, made.seats[0].token), seated(app, game, made.seats[1].token)
    ann.post(f"/g/{game}/rematch", data={"csrf_token": csrf(ann, f"/g/{game}")})
    shown = page(ben, game)
    assert "Ann offered a rematch" in shown and "Accept the rematch" in shown
    assert "Accept the rematch" not in page(ann, game)  # the offer is Ann's acceptance

    ben.post(
        f"/g/{game}/rematch/answer", data={"csrf_token": csrf(ben, f"/g/{game}"), "accept": "yes"}
    )
    new = parts.service.rematch_status(game, 1)["offer"].new_game_id
    assert new
    for client, seat in ((ann, 1), (ben, 2)):
        shown = page(client, game)
        link = parts.service.rematch_status(game, seat)["link"]
        assert f'href="{link}"' in shown and "Open your seat in the rematch" in shown
        assert client.get(link).status_code == 302
        assert "Resign…" in page(client, new)


def test_the_api_resigns_and_answers_the_rematch_for_the_bearer_seat_only(web):
    app, parts = web
    client = app.test_client()
    made = parts.service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    other = parts.service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    game = made.game_id

    def bearer(token):
        return {"Authorization": f"Bearer {token}"}

    assert client.post(f"/api/games/{game}/resign").status_code == 403
    assert client.post(f"/api/games/{game}/resign", headers=bearer("x")).status_code == 403
    wrong = client.post(f"/api/games/{game}/resign", headers=bearer(other.seats[0].token))
    assert wrong.status_code == 403 and "another game" in wrong.get_json()["error"]
    done = client.post(f"/api/games/{game}/resign", headers=bearer(made.seats[1].token))
    assert done.status_code == 201 and done.get_json()["replaced_by"] == ""
    assert parts.service.state_at(game)["winners"] == [1]

    offered = client.post(f"/api/games/{game}/rematch", headers=bearer(made.seats[0].token))
    assert offered.status_code == 201 and offered.get_json()["accepted"] == [1]
    url = f"/api/games/{game}/rematch/answer"
    stranger = client.post(url, json={"accept": True}, headers=bearer(other.seats[1].token))
    assert stranger.status_code == 403
    bad = client.post(url, json={"accept": "yes"}, headers=bearer(made.seats[1].token))
    assert bad.status_code == 400
    first = client.post(url, json={"accept": True}, headers=bearer(made.seats[1].token))
    second = client.post(url, json={"accept": True}, headers=bearer(made.seats[1].token))
    assert first.status_code == second.status_code == 200
    assert first.get_json()["new_game_id"] == second.get_json()["new_game_id"] is not None
    assert [g.id for g in parts.service.games()].count(first.get_json()["new_game_id"]) == 1


def test_the_question_and_the_rematch_speak_german(web):
    from german import english_left, visible_text

    app, parts = web
    made = parts.service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    game = made.game_id
    de = {"Accept-Language": "de-DE,de;q=0.9"}
    ann = app.test_client()
    ann.get(f"/g/{game}/{made.seats[0].token}", headers=de)
    token = csrf(ann, f"/g/{game}", **de)
    asked = ann.post(f"/g/{game}/resign", data={"csrf_token": token}, headers=de)
    question = asked.get_data(as_text=True)
    assert "Bist du sicher?" in question and "Ja, aufgeben" in question
    assert english_left(visible_text(question), allowed=frozenset({"Ann", "Ben", "Nim"})) == []
    ann.post(f"/g/{game}/resign", data={"csrf_token": token, "confirm": "yes"}, headers=de)
    shown = ann.get(f"/g/{game}", headers=de).get_data(as_text=True)
    assert "Revanche anbieten" in shown and "Du hast aufgegeben" in shown
    assert english_left(visible_text(shown), allowed=frozenset({"Ann", "Ben", "Nim"})) == []
