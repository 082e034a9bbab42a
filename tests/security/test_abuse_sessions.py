"""The seat sessions a sign-in to My games opens, attacked. A browser that keeps
sending an old cookie opens no second session in any game (the database's unique
key and the code agree, two requests at once included), the dashboard's poll is
rate-limited, and a sign-in opens at most MAX_PER_SIGN_IN. A sign-in's end ends what
it opened: signed out, its 30 days over, or signed out everywhere (by a mailed
link from any browser, or by a signed-in browser's button)."""

from __future__ import annotations

import re
import threading

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from pbem.service import PlayerSpec, sessions
from pbem.service.sessions import SESSIONS, SeatSessions
from pbem.service.signing import sign_in_token, sign_out_token

import support
from support import SHORT

LINK = re.compile(r"http://pbem\.test(/my-games/sign-(?:in|out-everywhere)/[^\s\"<]+)")


@pytest.fixture
def site(make_web, mailbox):
    return make_web(smtp_url=mailbox.url)


def new_game(parts, ann="ann@example.com", ben="ben@example.com"):
    created = parts.service.create_game([PlayerSpec("Ann", ann), PlayerSpec("Ben", ben)], {}, SHORT)
    return created.game_id


def csrf(client, url: str = "/my-games") -> str:
    return support.csrf(client, url)


def mailed_link(mailbox, address: str, kind: str) -> str:
    """The link of the latest mail of `kind` to `address`."""
    mails = [
        m
        for m, to in zip(mailbox.mails, mailbox.recipients, strict=True)
        if to == [address] and m["X-Pbem-Kind"] == kind
    ]
    return LINK.search(mails[-1].get_body(("plain",)).get_content())[1]


def ask(client, email: str, url: str = "/my-games"):
    return client.post(url, data={"csrf_token": csrf(client), "email": email})


def signed_in_client(app, parts, mailbox, address: str = "ann@example.com"):
    """A browser signed in by the mailed link (the clock then moves past the 10
    minutes within which an address is mailed one link of a kind)."""
    client = app.test_client()
    assert ask(client, address).status_code == 200
    support.sweep_and_deliver(parts)
    link = mailed_link(mailbox, address, "sign_in")
    assert client.post(link, data={"csrf_token": csrf(client, link)}).status_code == 302
    parts.service.clock.advance(minutes=11)
    return client


def count_sessions(parts) -> int:
    with parts.database.reading() as conn:
        return conn.execute(select(func.count()).select_from(SESSIONS)).scalar_one()


def games_shown(client) -> list[str]:
    page = client.get("/my-games").get_data(as_text=True)
    return re.findall(r'class="my-game[^"]*" data-game="([a-z0-9]+)"', page)


def holds_seat(client, game_id: str) -> bool:
    return "Your seat" in client.get(f"/g/{game_id}").get_data(as_text=True)


def copy_of(app, client):
    """Another browser with the same cookies (a copied cookie)."""
    copied = app.test_client()
    for cookie in client._cookies.values():
        copied.set_cookie(cookie.key, cookie.value, domain=cookie.domain)
    return copied


# -- 1. one seat session per sign-in and game -----------------------------------------


def test_a_replayed_old_cookie_opens_one_seat_session_per_game_however_often(site, mailbox):
    app, parts = site
    new_game(parts)
    client = signed_in_client(app, parts, mailbox)
    client.get("/my-games")
    old = client.get_cookie("session").value  # holds the first game only
    later = [new_game(parts) for _ in range(5)]

    for url in ("/my-games", "/my-games/live"):
        for _ in range(200):
            client.set_cookie("session", old)
            assert client.get(url).status_code in (200, 304, 429)

    assert count_sessions(parts) == 6  # one per game of the address
    client.set_cookie("session", old)
    assert set(later) <= set(games_shown(client))


def test_the_dashboard_poll_is_rate_limited_per_client_with_retry_after(site, mailbox):
    app, parts = site
    new_game(parts)
    client = signed_in_client(app, parts, mailbox)
    here = {"REMOTE_ADDR": "203.0.113.5"}
    statuses = [client.get("/my-games/live", environ_base=here).status_code for _ in range(61)]

    assert statuses[:60] == [200] * 60
    assert statuses[60] == 429
    refused = client.get("/my-games/live", environ_base=here)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    elsewhere = {"REMOTE_ADDR": "203.0.113.6"}
    assert client.get("/my-games/live", environ_base=elsewhere).status_code == 200


def test_the_database_refuses_a_second_session_of_one_sign_in_in_one_game(service):
    game_id = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")], {}, SHORT
    ).game_id
    row = {
        "game_id": game_id,
        "seat": 1,
        "token_sha256": "t",
        "created_at": "2026-11-01T12:00:00.000000Z",
        "last_seen_at": "2026-11-01T12:00:00.000000Z",
        "sign_in_sha256": "a sign-in",
    }
    with service.db.writing() as conn:
        conn.execute(insert(SESSIONS), {**row, "id_sha256": "one"})
    with pytest.raises(IntegrityError), service.db.writing() as conn:
        conn.execute(insert(SESSIONS), {**row, "id_sha256": "two"})
    with service.db.writing() as conn:  # sessions of seat links name no sign-in: any number
        conn.execute(insert(SESSIONS), {**row, "id_sha256": "three", "sign_in_sha256": None})
        conn.execute(insert(SESSIONS), {**row, "id_sha256": "four", "sign_in_sha256": None})


def test_requests_at_once_open_one_seat_session_per_game(service, clock):
    created = [
        service.create_game(
            [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")], {}, SHORT
        )
        for _ in range(3)
    ]
    seats = [(c.game_id, 1, c.seats[0].token) for c in created]
    opener = SeatSessions(service.db, service.settings.signing_key(), clock)
    start = threading.Barrier(6)
    answers: list[dict[str, str]] = []
    failures: list[BaseException] = []

    def open_all() -> None:
        try:
            start.wait()
            answers.append(opener.open_signed_in("a sign-in", "its session", seats))
        except BaseException as error:  # the assertion below names it
            failures.append(error)

    threads = [threading.Thread(target=open_all) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(answers) == 6 and all(a == answers[0] for a in answers)
    assert sorted(answers[0]) == sorted(c.game_id for c in created)
    with service.db.reading() as conn:
        assert conn.execute(select(func.count()).select_from(SESSIONS)).scalar_one() == 3
    for game_id, session_id in answers[0].items():
        assert opener.token(game_id, session_id) is None  # "a sign-in" is no sign-in


def test_a_sign_in_opens_at_most_its_cap_of_seat_sessions_the_newest_games(
    site, mailbox, monkeypatch
):
    app, parts = site
    monkeypatch.setattr(sessions, "MAX_PER_SIGN_IN", 3)
    games = [new_game(parts) for _ in range(5)]
    client = signed_in_client(app, parts, mailbox)
    for _ in range(3):
        shown = games_shown(client)

    assert sorted(shown) == sorted(games[-3:])
    assert count_sessions(parts) == 3


# -- 2. a sign-in's end ends the seat sessions it opened ------------------------------


def test_seat_sessions_opened_by_a_sign_in_end_with_its_30_days(site, mailbox, clock):
    app, parts = site
    game_id = new_game(parts)
    client = signed_in_client(app, parts, mailbox)
    assert holds_seat(client, game_id)
    clock.advance(days=30, minutes=1)

    assert not holds_seat(client, game_id)
    assert games_shown(client) == []
    assert count_sessions(parts) == 0


def test_signing_out_ends_the_seats_of_a_copied_cookie_that_kept_only_the_sign_in(site, mailbox):
    app, parts = site
    game_id = new_game(parts)
    client = signed_in_client(app, parts, mailbox)
    client.get("/my-games")
    copied = copy_of(app, client)
    assert holds_seat(copied, game_id)

    client.post("/my-games/sign-out", data={"csrf_token": csrf(client)})

    assert not holds_seat(copied, game_id) and games_shown(copied) == []
    assert count_sessions(parts) == 0


def test_the_prune_forgets_seat_sessions_whose_sign_in_is_over(site, mailbox, clock):
    app, parts = site
    new_game(parts)
    signed_in_client(app, parts, mailbox)
    assert count_sessions(parts) == 1
    clock.advance(days=30, minutes=1)

    gone = parts.service.prune()

    assert gone["seat_sessions"] == 1 and gone["sign_ins"] == 1
    assert count_sessions(parts) == 0


def test_a_mailed_link_signs_the_address_out_of_every_browser(site, mailbox):
    app, parts = site
    game_id = new_game(parts)
    phone, laptop = (signed_in_client(app, parts, mailbox) for _ in range(2))
    ben = signed_in_client(app, parts, mailbox, "ben@example.com")
    assert holds_seat(phone, game_id) and holds_seat(laptop, game_id)
    anywhere = app.test_client()

    asked = ask(anywhere, "Ann@Example.com", "/my-games/sign-out-everywhere")
    assert asked.status_code == 200 and "signs it out" in asked.get_data(as_text=True)
    support.sweep_and_deliver(parts)
    link = mailed_link(mailbox, "ann@example.com", "sign_out")
    shown = anywhere.get(link)  # a mail scanner opening the link ends nothing
    assert shown.status_code == 200 and holds_seat(phone, game_id)
    used = anywhere.post(link, data={"csrf_token": csrf(anywhere, link)})

    assert used.status_code == 302
    for browser in (phone, laptop):
        assert not holds_seat(browser, game_id) and games_shown(browser) == []
        assert "Signed in as" not in browser.get("/my-games").get_data(as_text=True)
    assert holds_seat(ben, game_id)  # another address's sign-in stands
    again = anywhere.post(link, data={"csrf_token": csrf(anywhere, link)})
    assert again.status_code == 403


def test_asking_to_sign_out_everywhere_mails_only_a_player_and_answers_the_same(site, mailbox):
    app, parts = site
    new_game(parts)
    client = app.test_client()
    url = "/my-games/sign-out-everywhere"
    known, unknown = ask(client, "ann@example.com", url), ask(client, "nobody@example.com", url)

    def page(answer) -> str:
        text = answer.get_data(as_text=True)
        text = text.replace("ann@example.com", "X").replace("nobody@example.com", "X")
        return re.sub(r'value="[^"]+"', "", text)

    assert known.status_code == unknown.status_code == 200 and page(known) == page(unknown)
    assert ask(client, "ann@example.com", url).status_code == 200  # again, within 10 minutes
    support.sweep_and_deliver(parts)
    sent = zip(mailbox.mails, mailbox.recipients, strict=True)
    assert [to for m, to in sent if m["X-Pbem-Kind"] == "sign_out"] == [["ann@example.com"]]
    assert all(to != ["nobody@example.com"] for to in mailbox.recipients)


def _other_last(token: str) -> str:
    """The token with its last letter changed (to another one: one token in 64 ends
    in "A")."""
    return token[:-1] + ("B" if token.endswith("A") else "A")


@pytest.mark.parametrize(
    "forge",
    [
        lambda key, nonce: sign_in_token(key, nonce),  # a sign-in link's token
        lambda key, nonce: sign_out_token(b"another key", nonce),
        lambda key, nonce: nonce,
        lambda key, nonce: _other_last(sign_out_token(key, nonce)),
        lambda key, nonce: sign_out_token(key, nonce) + "%00",
    ],
)
def test_a_forged_or_crossed_sign_out_link_ends_nothing(site, mailbox, forge):
    app, parts = site
    game_id = new_game(parts)
    phone = signed_in_client(app, parts, mailbox)
    ask(app.test_client(), "ann@example.com", "/my-games/sign-out-everywhere")
    support.sweep_and_deliver(parts)
    true_link = mailed_link(mailbox, "ann@example.com", "sign_out")
    nonce = true_link.rsplit("/", 1)[1].split(".")[0]
    key = parts.settings.signing_key()
    client = app.test_client()

    forged = f"/my-games/sign-out-everywhere/{forge(key, nonce)}"
    answer = client.post(forged, data={"csrf_token": csrf(client)})
    crossed = client.post(
        true_link.replace("sign-out-everywhere", "sign-in"), data={"csrf_token": csrf(client)}
    )

    assert answer.status_code in (403, 404) and crossed.status_code == 403
    assert holds_seat(phone, game_id)
    assert client.post(true_link, data={"csrf_token": csrf(client)}).status_code == 302
    assert not holds_seat(phone, game_id)


def test_a_signed_in_browser_signs_its_address_out_everywhere_with_a_button(site, mailbox):
    app, parts = site
    game_id = new_game(parts)
    phone, laptop = (signed_in_client(app, parts, mailbox) for _ in range(2))
    page = laptop.get("/my-games").get_data(as_text=True)
    assert "Sign out everywhere" in page

    forged = laptop.post("/my-games/sign-out-all", data={})  # no CSRF token
    assert forged.status_code == 400 and holds_seat(phone, game_id)
    out = laptop.post("/my-games/sign-out-all", data={"csrf_token": csrf(laptop)})

    assert out.status_code == 302
    assert "no browser is signed in as ann@example.com" in laptop.get("/my-games").get_data(
        as_text=True
    )
    for browser in (phone, laptop):
        assert not holds_seat(browser, game_id) and games_shown(browser) == []
    assert count_sessions(parts) == 0
