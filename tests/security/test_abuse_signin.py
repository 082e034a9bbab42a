"""Signing in to My games by a mailed link, attacked: asking tells nobody whether an
address plays here (the same page, and the same database work behind it: the
statements a request runs are the same for a player and a stranger, and only the
scheduler decides whether to mail), asking is rate-limited and mails at most once a
window, and a tampered, expired or reused link, or a guess, signs nobody in. Signed
in, a browser sees only its own address's games and never another seat's token."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, select
from sqlalchemy.engine import Engine

from pbem.mail.compose import Composer
from pbem.service import PlayerSpec, rows
from pbem.service.signing import REQUESTS, sign_in_token

import support
from support import SHORT, feed_of

SIGN_IN = re.compile(r"http://pbem\.test(/my-games/sign-in/[^\s\"<]+)")


@pytest.fixture
def site(make_web):
    return make_web()


def csrf(client, url: str = "/my-games") -> str:
    return support.csrf(client, url)


def new_game(parts):
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")], {}, SHORT
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def ask(client, email: str, **extra):
    return client.post("/my-games", data={"csrf_token": csrf(client), "email": email}, **extra)


def sign_in_rows(parts) -> list[tuple[str, str]]:
    """The sign-in mails in the outbox, once the scheduler has answered the requests."""
    parts.service.answer_link_requests()
    with parts.database.reading() as conn:
        found = conn.execute(
            select(rows.OUTBOX.c.address, rows.OUTBOX.c.payload).where(
                rows.OUTBOX.c.kind == "sign_in"
            )
        ).all()
    return [(r.address, r.payload["nonce"]) for r in found]


def link_of(parts, address: str) -> str:
    parts.service.answer_link_requests()
    with parts.database.reading() as conn:
        row_id = conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.kind == "sign_in", rows.OUTBOX.c.address == address
            )
        ).scalar_one()
    composer = Composer(parts.service, parts.settings)
    message = composer.compose(parts.outbox.claim(row_id, composer.message_id))
    return SIGN_IN.search(message.get_body(("plain",)).get_content())[1]


def use(app, link: str):
    client = app.test_client()
    answer = client.post(link, data={"csrf_token": csrf(client, "/my-games")})
    return client, answer


def signed_in(client) -> bool:
    return "Signed in as" in client.get("/my-games").get_data(as_text=True)


def test_asking_answers_the_same_for_any_address_and_mails_only_a_player_once(site):
    app, parts = site
    new_game(parts)
    client = app.test_client()
    known, unknown = ask(client, "ANN@example.com"), ask(client, "nobody@example.com")

    def page(answer):
        return (
            answer.get_data(as_text=True)
            .replace("ANN@example.com", "X")
            .replace("nobody@example.com", "X")
        )

    assert known.status_code == unknown.status_code == 200
    assert re.sub(r'value="[^"]+"', "", page(known)) == re.sub(r'value="[^"]+"', "", page(unknown))
    assert ask(client, "ann@example.com").status_code == 200
    assert [address for address, _ in sign_in_rows(parts)] == ["ann@example.com"]


def statements_of(app, url: str, email: str) -> list[str]:
    """The SQL statements one request asking for a link to `email` runs (as their
    text, whose values are parameters): every engine's, through SQLAlchemy's events.
    (The store's prebuilt statements run on the driver and are not seen; the
    request runs none of them.)"""
    client = app.test_client()
    token = csrf(client)
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        answer = client.post(url, data={"csrf_token": token, "email": email})
    finally:
        event.remove(Engine, "before_cursor_execute", record)
    assert answer.status_code == 200
    return seen


@pytest.mark.parametrize("url", ["/my-games", "/my-games/sign-out-everywhere"])
def test_asking_runs_the_same_statements_for_a_player_and_a_stranger(site, url):
    app, parts = site
    new_game(parts)
    statements_of(app, url, "warm@example.com")  # the first request compiles and caches

    player = statements_of(app, url, "ann@example.com")
    stranger = statements_of(app, url, "nobody@example.com")

    assert player == stranger
    assert any("INSERT INTO link_requests" in s for s in player)  # the one queued row


def test_the_scheduler_mails_the_link_to_a_player_and_never_to_a_stranger(make_web, mailbox):
    app, parts = make_web(smtp_url=mailbox.url)
    new_game(parts)
    client = app.test_client()
    for email in ("nobody@example.com", "Ann@Example.com", "ann@example.com", "x@ann.example"):
        assert ask(client, email).status_code == 200

    support.sweep_and_deliver(parts)

    sent = [
        (m["X-Pbem-Kind"], to)
        for m, to in zip(mailbox.mails, mailbox.recipients, strict=True)
        if m["X-Pbem-Kind"] == "sign_in"
    ]
    assert sent == [("sign_in", ["ann@example.com"])]
    assert all(to in (["ann@example.com"], ["ben@example.com"]) for to in mailbox.recipients)
    support.sweep_and_deliver(parts)  # answered once: nothing is left to mail
    assert [m["X-Pbem-Kind"] for m in mailbox.mails].count("sign_in") == 1


def test_one_client_trying_sign_in_links_is_slowed_down(site):
    app, _ = site
    client = app.test_client()
    token = csrf(client)
    statuses = [
        client.post(
            f"/my-games/sign-in/guess{i}.x",
            data={"csrf_token": token},
            environ_base={"REMOTE_ADDR": "203.0.113.7"},
        ).status_code
        for i in range(12)
    ]
    assert statuses == [403] * 10 + [429] * 2


@pytest.mark.parametrize(
    "tamper",
    [
        lambda link: link[:-1] + ("A" if link[-1] != "A" else "B"),  # the signature
        lambda link: link.replace("/sign-in/", "/sign-in/0"),  # the nonce
        lambda link: link.split(".")[0],  # no signature
        lambda link: link + "%00",
        lambda link: link + "é",
    ],
)
def test_a_tampered_link_signs_nobody_in_and_the_true_one_still_works(site, tamper):
    app, parts = site
    new_game(parts)
    ask(app.test_client(), "ann@example.com")
    link = link_of(parts, "ann@example.com")

    client, answer = use(app, tamper(link))

    assert answer.status_code in (403, 404)
    assert not signed_in(client)
    client, answer = use(app, link)
    assert answer.status_code == 302 and signed_in(client)


def test_a_link_works_once_and_never_again_from_any_browser(site):
    app, parts = site
    new_game(parts)
    ask(app.test_client(), "ann@example.com")
    link = link_of(parts, "ann@example.com")

    first, answer = use(app, link)
    assert answer.status_code == 302 and signed_in(first)
    second, again = use(app, link)

    assert again.status_code == 403
    assert "expired or was used already" in again.get_data(as_text=True)
    assert not signed_in(second)


def test_a_link_older_than_its_life_is_refused(site, clock):
    app, parts = site
    new_game(parts)
    ask(app.test_client(), "ann@example.com")
    link = link_of(parts, "ann@example.com")
    clock.advance(minutes=31)

    client, answer = use(app, link)

    assert answer.status_code == 403 and not signed_in(client)


def test_the_stored_nonce_alone_opens_nothing_without_the_servers_key(site):
    app, parts = site
    new_game(parts)
    ask(app.test_client(), "ann@example.com")
    ((_, nonce),) = sign_in_rows(parts)  # what a database dump shows

    for guess in (nonce, sign_in_token(b"another key", nonce)):
        client, answer = use(app, f"/my-games/sign-in/{guess}")
        assert answer.status_code == 403 and not signed_in(client)


def test_a_signed_in_browser_sees_its_own_games_and_never_another_seats_token(site):
    app, parts = site
    game_id, tokens = new_game(parts)
    ask(app.test_client(), "ben@example.com")
    client, _ = use(app, link_of(parts, "ben@example.com"))

    page = client.get("/my-games").get_data(as_text=True)
    game_page = client.get(f"/g/{game_id}").get_data(as_text=True)
    feed = f"/feeds/{feed_of(client)}.atom"
    feeds = client.get(feed).get_data(as_text=True) + client.get(feed[:-5] + ".ics").get_data(
        as_text=True
    )

    for shown in (page, game_page, feeds):
        assert tokens[1] not in shown and tokens[2] not in shown
    assert "You are Ben, against Ann" in page
    assert "Ann" in game_page and 'id="turn-h"' not in game_page  # Ben's seat, Ann to move


def test_the_sign_in_link_is_mailed_only_to_the_address_asked_for(site):
    app, parts = site
    new_game(parts)
    ask(
        app.test_client(),
        "ann@example.com",
        headers={"X-Forwarded-For": "198.51.100.1", "Reply-To": "mallory@example.com"},
    )
    ask(app.test_client(), "ann@example.com, mallory@example.com")
    ask(app.test_client(), "ann@example.com\nBcc: mallory@example.com")
    assert [address for address, _ in sign_in_rows(parts)] == ["ann@example.com"]


def test_no_viewer_learns_anything_hidden_from_the_live_answers_dashboard_or_feeds(web, tmp_path):
    """docs/games/mall.md section 11, for what this page family adds: the walk of
    test_hidden_walk (draws, an undo past them, a seat handed on), with every viewer
    also reading the live answers since seq 0, its dashboard and its feeds."""
    from test_hidden_walk import Walk

    class LiveWalk(Walk):
        def look(self, every_seq: bool = False) -> None:
            super().look(every_seq)
            for who, client in self.clients.items():
                feed = feed_of(client)
                page = client.get("/my-games").get_data(as_text=True)
                feeds = [f"/feeds/{feed}.{ending}" for ending in ("atom", "ics") if feed]
                self.feeds_read += len(feeds)
                urls = [
                    f"/g/{self.game}/live?since=0",
                    f"/g/{self.game}/live?watch=1&since=0",
                    "/my-games/live",
                    *feeds,
                ]
                self.see(who, "/my-games", page)
                for url in urls:
                    answer = client.get(url)
                    assert answer.status_code < 500, (who, url)
                    self.see(who, url, answer.get_data(as_text=True))

    LiveWalk.feeds_read = 0
    walk = LiveWalk(web, tmp_path)
    walk.look()
    walk.play(1, "money L")  # draws Y03
    walk.play(2, "build L4 at 0,2")  # places Y03, draws B03
    walk.bots()
    walk.service.undo(walk.game, walk.tokens[1])  # past the draws: Ben must agree
    walk.service.answer_undo(walk.game, walk.tokens[2], True)
    walk.look()
    link = walk.service.replace_seat(walk.game, 2, "human", name="Cy", email="cy@example.com")
    walk.viewers["cy"] = (2, link.token)
    walk.clients["cy"] = walk._client(link.token)
    walk.look()
    walk.play(1)
    assert walk.checks > 100 and walk.feeds_read >= 2 * 2 * 4  # Atom and iCal, 2 seats, 4 looks


@pytest.mark.parametrize("url", ["/my-games", "/my-games/sign-out-everywhere"])
@pytest.mark.parametrize(
    "email",
    [
        "a" * 189 + "@" + "ü." * 31 + "de",  # 254 characters, 441 in A-labels
        "ann@example.com, mallory@example.com",
        "ann@exa mple.com",
        "ann@-example.com",
    ],
)
def test_an_address_no_mail_can_be_built_for_is_refused_and_queues_nothing(site, url, email):
    app, parts = site
    new_game(parts)
    client = app.test_client()

    answer = client.post(url, data={"csrf_token": csrf(client), "email": email})

    assert answer.status_code == 400
    assert "is not an email address" in answer.get_data(as_text=True)
    with parts.database.reading() as conn:
        assert conn.execute(select(REQUESTS.c.id)).first() is None
