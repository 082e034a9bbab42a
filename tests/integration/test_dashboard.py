"""My games as a dashboard (every seat this browser holds, and every game of an
address once signed in by the mailed link), the live answers pages poll (304 until
the game moves) and the countdowns' UTC times, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.mail.compose import Composer
from pbem.service import PlayerSpec, rows

from support import CSRF, SHORT, csrf

SIGN_IN = re.compile(r"http://pbem\.test(/my-games/sign-in/[^\s\"<]+)")


@pytest.fixture
def site(make_web):
    return make_web(dev=True)


def new_game(parts, ann="ann@example.com", ben="ben@example.com", hours=48):
    created = parts.service.create_game(
        [PlayerSpec("Ann", ann), PlayerSpec("Ben", ben)], {"hours_per_turn": hours}, SHORT
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def play(parts, game_id, tokens, seat):
    doc = parts.service.state_at(game_id)
    assert doc["turn"] == seat
    parts.service.submit_action(
        game_id, tokens[seat], parts.service.legal(game_id, seat)[0], doc["seq"]
    )


def mailed_sign_in(parts, address: str) -> str:
    """The sign-in link of the latest sign-in mail to `address`, as the mail says it
    (once the scheduler has answered the requests)."""
    parts.service.answer_link_requests()
    with parts.database.reading() as conn:
        row_id = conn.execute(
            select(rows.OUTBOX.c.id)
            .where(rows.OUTBOX.c.kind == "sign_in", rows.OUTBOX.c.address == address)
            .order_by(rows.OUTBOX.c.id.desc())
        ).scalar()
    composer = Composer(parts.service, parts.settings)
    row = parts.outbox.claim(row_id, composer.message_id)
    message = composer.compose(row)
    return SIGN_IN.search(message.get_body(("plain",)).get_content())[1]


def test_the_dashboard_lists_the_held_seats_my_turn_first_with_names_and_deadlines(site):
    app, parts = site
    waiting_for_ben, tokens_a = new_game(parts, hours=24)
    play(parts, waiting_for_ben, tokens_a, 1)
    mine_to_play, tokens_b = new_game(parts, hours=48)
    client = app.test_client()
    for game_id, tokens in ((waiting_for_ben, tokens_a), (mine_to_play, tokens_b)):
        assert client.get(f"/g/{game_id}/{tokens[1]}").status_code == 302

    page = client.get("/my-games").get_data(as_text=True)

    assert "<title>(1) My games — Mall by mail</title>" in page
    assert "1 game waiting for you" in page
    order = [page.index(f'data-game="{g}"') for g in (mine_to_play, waiting_for_ben)]
    assert order == sorted(order)  # my turn first, though its deadline is later
    first = page[order[0] : order[1]]
    assert "<strong>your turn</strong>" in first and "against Ben" in first
    second = page[order[1] :]
    assert "Ben to move" in second and "You are Ann, against Ben" in second
    deadline = parts.service.clock_of(waiting_for_ben)["deadline"]
    assert f'<time class="countdown" datetime="{deadline[:19]}Z">' in second
    assert tokens_a[1] not in page and tokens_a[2] not in page  # no token on the page


def test_a_browser_holding_no_seat_sees_the_form_and_no_games(site):
    app, parts = site
    new_game(parts)
    page = app.test_client().get("/my-games").get_data(as_text=True)
    assert "<title>My games — Mall by mail</title>" in page
    assert 'class="my-game' not in page
    assert "Mail me a sign-in link" in page


def test_signing_in_by_the_mailed_link_shows_every_game_of_the_address(site):
    app, parts = site
    first, _ = new_game(parts)
    second, _ = new_game(parts, ann="bob@example.com", ben="ANN@example.com")
    new_game(parts, ann="carl@example.com", ben="dora@example.com")
    client = app.test_client()
    asked = client.post(
        "/my-games", data={"csrf_token": csrf(client, "/my-games"), "email": "Ann@Example.com"}
    )
    assert asked.status_code == 200
    link = mailed_sign_in(parts, "ann@example.com")

    shown = client.get(link)  # a mail scanner opening the link uses nothing
    assert shown.status_code == 200 and "Sign in" in shown.get_data(as_text=True)
    token = CSRF.search(shown.get_data(as_text=True))[1]
    signed = client.post(link, data={"csrf_token": token})
    assert signed.status_code == 302 and signed.headers["Location"] == "/my-games"
    page = client.get("/my-games").get_data(as_text=True)

    assert "Signed in as ann@example.com" in page
    games = re.findall(r'class="my-game[^"]*" data-game="([a-z0-9]+)"', page)
    assert sorted(games) == sorted([first, second])
    assert "You are Ann, against Ben" in page and "You are ANN, against Bob" not in page
    # the browser now holds those seats: the game page is the seat's
    assert "Your seat" in client.get(f"/g/{second}").get_data(as_text=True)
    # a game created for the address later shows up without signing in again
    third, _ = new_game(parts, ann="ann@example.com", ben="eve@example.com")
    assert f'data-game="{third}"' in client.get("/my-games").get_data(as_text=True)


def test_signing_out_ends_the_sign_in_and_the_seats_for_every_copy_of_the_cookie(site):
    app, parts = site
    game_id, _ = new_game(parts)
    client = app.test_client()
    client.post(
        "/my-games", data={"csrf_token": csrf(client, "/my-games"), "email": "ann@example.com"}
    )
    link = mailed_sign_in(parts, "ann@example.com")
    client.post(link, data={"csrf_token": csrf(client, link)})
    copied = app.test_client()
    for cookie in client._cookies.values():
        copied.set_cookie(cookie.key, cookie.value, domain=cookie.domain)
    assert f'data-game="{game_id}"' in copied.get("/my-games").get_data(as_text=True)

    out = client.post("/my-games/sign-out", data={"csrf_token": csrf(client, "/my-games")})

    assert out.status_code == 302
    assert f'data-game="{game_id}"' not in copied.get("/my-games").get_data(as_text=True)
    assert "Your seat" not in copied.get(f"/g/{game_id}").get_data(as_text=True)


def test_the_game_answers_304_to_a_poll_until_it_moves_then_tells_the_new_seq(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")

    first = client.get(f"/g/{game_id}/live")
    assert first.status_code == 200 and first.json["seq"] == 1 and first.json["turn"] == 1
    assert first.headers["ETag"] == '"seq-1"'
    assert client.get(f"/g/{game_id}/live", headers={"If-None-Match": '"seq-1"'}).status_code == 304

    play(parts, game_id, tokens, 1)
    moved = client.get(f"/g/{game_id}/live", headers={"If-None-Match": '"seq-1"'})
    assert moved.status_code == 200 and moved.json["seq"] == 2 and moved.json["turn"] == 2
    assert moved.headers["ETag"] == '"seq-2"'


def test_since_a_seq_the_poll_tells_the_others_moves_in_words_not_my_own(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    play(parts, game_id, tokens, 1)
    play(parts, game_id, tokens, 2)
    ann = app.test_client()
    ann.get(f"/g/{game_id}/{tokens[1]}")

    told = ann.get(f"/g/{game_id}/live?since=1").json["since"]

    texts = [h.text for h in parts.service.history(game_id, 1) if h.seq == 3]
    assert [(h["seq"], h["seat"], h["text"]) for h in told] == [(3, 2, texts[0])]
    assert ann.get(f"/g/{game_id}/live?since=3").json["since"] == []


def test_a_private_game_answers_no_poll_to_a_stranger(site):
    app, parts = site
    game_id, _ = new_game(parts)
    stranger = app.test_client()
    assert stranger.get(f"/g/{game_id}/live").status_code == 403
    assert stranger.get(f"/g/{game_id}/live?watch=1&since=0").status_code == 403


def test_the_dashboard_poll_is_304_until_one_of_my_games_moves(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[2]}")
    page = client.get("/my-games").get_data(as_text=True)
    tag = re.search(r'data-tag="([0-9a-f]+)"', page)[1]

    assert client.get("/my-games/live", headers={"If-None-Match": f'"{tag}"'}).status_code == 304
    play(parts, game_id, tokens, 1)
    moved = client.get("/my-games/live", headers={"If-None-Match": f'"{tag}"'})
    assert moved.status_code == 200 and moved.json["tag"] != tag and moved.json["waiting"] == 1


def test_the_game_page_shows_the_deadline_in_utc_beside_your_turn_and_the_player_to_move(site):
    app, parts = site
    game_id, tokens = new_game(parts, hours=30)
    deadline = parts.service.clock_of(game_id)["deadline"]
    utc = deadline[:16].replace("T", " ")
    time = f'<time class="countdown" datetime="{deadline[:19]}Z">until {utc} UTC</time>'
    ann, ben = app.test_client(), app.test_client()
    ann.get(f"/g/{game_id}/{tokens[1]}")
    ben.get(f"/g/{game_id}/{tokens[2]}")

    mine = ann.get(f"/g/{game_id}").get_data(as_text=True)
    theirs = ben.get(f"/g/{game_id}").get_data(as_text=True)

    assert re.search(
        r'<h2 id="turn-h">Your turn</h2>\s*<p class="turn-clock"><time class="countdown"', mine
    )
    assert mine.count(time) == 2
    assert re.search(rf"Ann( \(seat 1\))? to move, {re.escape(time)}", theirs)
