"""The web pages (Flask test client): new game, entering by a personal link, taking a
turn with its refusals, CSRF on every form, watching, history, my games, dev mail."""

from __future__ import annotations

import re

from hidden import shows
from sqlmodel import select

from pbem.service import PlayerSpec
from pbem.store.tables import Outbox

from support import SHORT, csrf


def game(parts, public=False, setup=SHORT):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": public},
        setup,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def enter(client, game_id: str, token: str) -> str:
    answer = client.get(f"/g/{game_id}/{token}")
    assert answer.status_code == 302 and answer.headers["Location"] == f"/g/{game_id}"
    return client.get(f"/g/{game_id}").get_data(as_text=True)


def outbox(parts) -> list[tuple[str, str]]:
    with parts.database.read() as s:
        return [(r.kind, r.address) for r in s.exec(select(Outbox).order_by(Outbox.id)).all()]


def test_the_new_game_form_creates_the_game_and_shows_where_mails_went(web):
    app, parts = web
    client = app.test_client()
    page = client.post(
        "/new",
        data={
            "csrf_token": csrf(client, "/new"),
            "kind1": "person",
            "name1": "Ann",
            "email1": "ann@example.com",
            "kind2": "greedy",
            "name2": "",
            "email2": "",
            "kind3": "person",
            "name3": "Cy",
            "email3": "cy@example.com",
            "kind4": "nobody",
            "hours_per_turn": "48",
            "reminders": "24, 2",
            "timeout_policy": "bot_plays",
            "replace_after": "3",
            "vacation_days": "7",
            "public": "yes",
            "authenticated_mail": "yes",
        },
        follow_redirects=True,  # POST/redirect/GET: the page that shows the created game
    )
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and page.history[0].status_code == 303
    assert "seat 1, Ann: to ann@example.com" in text
    assert "seat 2, Greedy bot: a bot, no mail" in text
    assert "seat 3, Cy: to cy@example.com" in text
    (row,) = parts.service.games()
    assert row.public and parts.service.options(row.id)["reminders"] == [24, 2]
    assert parts.service.options(row.id)["authenticated_mail"] is True
    for link in parts.service.seat_links(row.id):
        if link.token:
            assert link.token not in text  # the creator never sees a link
    assert outbox(parts) == [
        ("invitation", "ann@example.com"),
        ("invitation", "cy@example.com"),  # Ann's tells her first turn too
    ]


def test_a_person_without_an_email_is_refused_and_the_form_keeps_what_was_typed(web):
    app, parts = web
    client = app.test_client()
    page = client.post(
        "/new",
        data={
            "csrf_token": csrf(client, "/new"),
            "kind1": "person",
            "name1": "Ann",
            "email1": "ann@example.com",
            "kind2": "person",
            "name2": "Ben",
            "email2": "",
        },
    )
    text = page.get_data(as_text=True)
    assert page.status_code == 400
    assert "Seat 2: a person needs an email address for their link." in text
    assert 'value="ann@example.com"' in text and 'value="Ben"' in text
    assert parts.service.games() == []


def test_every_form_needs_its_csrf_token(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    enter(client, game_id, tokens[1])
    for url, data in (
        (f"/g/{game_id}/play", {"action": "money L"}),
        ("/new", {}),
        ("/my-games", {"email": "ann@example.com"}),
        (f"/g/{game_id}/undo", {}),
    ):
        answer = client.post(url, data=data)
        assert answer.status_code == 400, url
        assert "did not come from this site" in answer.get_data(as_text=True)
    assert parts.service.state_at(game_id)["seq"] == 1


def test_the_personal_link_sets_the_seat_and_leaves_the_address_bar(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    page = enter(client, game_id, tokens[1])
    assert "<strong>your turn</strong>" in page
    assert tokens[1] not in page
    assert "secret card O3: 7 satisfied customers" in page
    assert not shows(page, "O5")  # Ben's card
    assert 'value="build L1 at 0,2"' in page  # the plain list of legal actions


def test_a_wrong_link_is_refused_politely(web):
    app, parts = web
    game_id, _ = game(parts)
    answer = app.test_client().get(f"/g/{game_id}/not-a-real-token")
    assert answer.status_code == 403
    assert "This link is not valid" in answer.get_data(as_text=True)


def test_playing_through_the_form_stores_the_move_and_says_what_it_did(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    enter(client, game_id, tokens[1])
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "action": "build L1 at 0,2",
            "expected_seq": "1",
            "key": "k1",
        },
    )
    assert answer.status_code == 302
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert (
        "You played Burger Bar (Y01) from L1 at 0,2; a customer wanting food moves"
        " from the Main Entrance to Burger Bar (Y01)."
    ) in page
    assert parts.service.state_at(game_id)["seq"] == 2


def test_an_illegal_typed_move_comes_back_with_the_rule_and_the_text_kept(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    enter(client, game_id, tokens[1])
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "move": "build L4 at 3,3",
            "expected_seq": "1",
        },
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "Not played:</strong> (3,3) would float: nothing below supports it." in page
    assert 'value="build L4 at 3,3"' in page


def test_a_stale_submit_comes_back_with_what_happened_since(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    enter(client, game_id, tokens[2])
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    parts.service.submit_action(game_id, tokens[1], "money L", 3)
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "action": "money R",
            "expected_seq": "3",
        },
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "you saw seq 3, it is now at seq 4" in page
    assert "Ann played Arcade (B01) from L1 as money, gaining 1 note" in page
    assert 'value="money R" checked' in page


def test_a_private_game_is_not_shown_to_strangers_and_a_public_one_is_watched(web):
    app, parts = web
    private, _ = game(parts)
    public, _ = game(parts, public=True)
    stranger = app.test_client()
    refused = stranger.get(f"/g/{private}")
    assert refused.status_code == 403 and "This game is private" in refused.get_data(as_text=True)
    watched = stranger.get(f"/g/{public}/watch").get_data(as_text=True)
    assert "You are watching." in watched
    assert not shows(watched, "O3") and not shows(watched, "O5")
    assert 'name="action"' not in watched  # no turn form for a spectator


def test_the_history_steps_to_any_seq_and_outlines_what_changed(web):
    app, parts = web
    client = app.test_client()
    game_id, tokens = game(parts)
    parts.service.submit_action(game_id, tokens[1], "build L1 at 0,2", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    enter(client, game_id, tokens[1])
    page = client.get(f"/g/{game_id}/history?at=2").get_data(as_text=True)
    assert "step 2 of 3" in page
    assert "You played Burger Bar (Y01) from L1 at 0,2" in page
    assert re.search(r'class="tile kind-food changed"[^>]*data-tile="Y01"', page)
    first = client.get(f"/g/{game_id}/history?at=1").get_data(as_text=True)
    assert not re.search(r'class="tile [^"]*"[^>]*data-tile="Y01"', first)  # still in L1
    assert 'rel="next"' in first and f"/g/{game_id}/history?at=2" in first


def test_my_games_answers_the_same_for_any_address_and_mails_only_players(web):
    app, parts = web
    game(parts)
    client = app.test_client()
    known = client.post(
        "/my-games", data={"csrf_token": csrf(client, "/my-games"), "email": "ANN@example.com"}
    )
    unknown = client.post(
        "/my-games", data={"csrf_token": csrf(client, "/my-games"), "email": "nobody@example.com"}
    )

    def said(answer):
        return re.search(r"a mail with their links is on its way", answer.get_data(as_text=True))

    assert known.status_code == unknown.status_code == 200
    assert said(known) and said(unknown)
    again = client.post(
        "/my-games", data={"csrf_token": csrf(client, "/my-games"), "email": "ann@example.com"}
    )
    assert again.status_code == 200
    parts.service.answer_link_requests()  # the scheduler's sweep
    assert [k for k, _ in outbox(parts)].count("sign_in") == 1  # once per address per window


def test_one_client_asking_too_often_is_slowed_down(web):
    app, _ = web
    client = app.test_client()
    statuses = [
        client.post(
            "/my-games",
            data={"csrf_token": csrf(client, "/my-games"), "email": f"p{i}@example.com"},
            environ_base={"REMOTE_ADDR": "203.0.113.9"},
        ).status_code
        for i in range(7)
    ]
    assert statuses == [200] * 5 + [429] * 2


def test_a_game_whose_deal_was_chosen_says_so_on_its_page_and_a_drawn_one_does_not(web):
    app, parts = web
    chosen, _ = game(parts, public=True)  # SHORT: the supply and the secrets given
    drawn, _ = game(parts, public=True, setup=None)  # dealt by the server
    notice = "was chosen by whoever set it up"
    client = app.test_client()
    assert notice in client.get(f"/g/{chosen}/watch").get_data(as_text=True)
    assert notice not in client.get(f"/g/{drawn}/watch").get_data(as_text=True)
