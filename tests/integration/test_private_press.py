"""Private press: in a game whose press is "private", a line of table talk said to
some seats is read by its sayer and those seats alone, on every surface the app
serves: the game, history and watch pages, the API's chat and game document, the
live poll (the others' tag does not move), the log file, the chain answer, the
deadline feeds, the chat mail and Web Push, and the service's history and
verify; spectators never read it, not even once the game is over."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from aiosmtpd.controller import Controller

from pbem.events import TableTalk
from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import BadRequest, Created, PlayerSpec

from support import Kept, csrf, feed_of, free_port, play_out, token

SECRET = "meet me at the fountain"
OPEN = "good luck everyone"
PLAYERS = [
    PlayerSpec("Ann", "ann@example.com"),
    PlayerSpec("Ben", "ben@example.com"),
    PlayerSpec("Cy", "cy@example.com"),
]
NAMES = {1: "Ann", 2: "Ben", 3: "Cy"}


def private_game(parts, press: str = "private", pile: int = 9, **options) -> Created:
    """A public game of nim of Ann, Ben and Cy, with these press rules."""
    chosen = {"press": press, "public": True, "hours_per_turn": 48, **options}
    return parts.service.create_game(PLAYERS, chosen, {"pile": pile}, game="nim")


def seated(app, created: Created, seat: int):
    """A browser holding the seat (its personal link opened)."""
    client = app.test_client()
    assert client.get(f"/g/{created.game_id}/{token(created, seat)}").status_code == 302
    return client


def bearer(created: Created, seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(created, seat)}"}


def page_of(client, url: str) -> str:
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_a_private_line_is_on_the_pages_of_its_sayer_and_addressee_alone(make_web):
    app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    ann, ben, cy = (seated(app, created, seat) for seat in (1, 2, 3))
    parts.service.say(game, token(created, 1), OPEN)
    form = {"csrf_token": csrf(ann, f"/g/{game}"), "text": SECRET, "to": "2"}
    assert ann.post(f"/g/{game}/chat", data=form).status_code == 303
    said = [line for line in parts.service.table_talk(game, 1) if line.text == SECRET]
    assert [(line.seat, line.to) for line in said] == [(1, (2,))]

    assert "(privately to Ben): " in page_of(ann, f"/g/{game}")
    assert "Ann</span> (privately to you): <span" in page_of(ben, f"/g/{game}")
    assert f"Ann said privately to you: {SECRET}" in page_of(ben, f"/g/{game}/history")
    assert f"You said privately to Ben: {SECRET}" in page_of(ann, f"/g/{game}/history")
    watcher = app.test_client()
    for client, url in (
        (cy, f"/g/{game}"),
        (cy, f"/g/{game}/history"),
        (watcher, f"/g/{game}/watch"),
        (watcher, f"/g/{game}/history"),
    ):
        page = page_of(client, url)
        assert OPEN in page and SECRET not in page and "privately" not in page, url

    api = app.test_client()
    for seat, reads in ((1, True), (2, True), (3, False), (None, False)):
        headers = {} if seat is None else bearer(created, seat)
        lines = api.get(f"/api/games/{game}/chat", headers=headers).get_json()["lines"]
        doc = api.get(f"/api/games/{game}", headers=headers).get_json()
        assert doc["press"] == "private"
        for told in (lines, doc["chat"]):
            private = [line for line in told if line["text"] == SECRET]
            assert private == ([{**private[0], "seat": 1, "to": [2]}] if reads else []), seat
            assert [line["to"] for line in told if line["text"] == OPEN] == [None]

    play_out(parts.service, created)  # over: still theirs alone
    assert parts.service.state_at(game)["turn"] is None
    for client, url in ((watcher, f"/g/{game}/watch"), (cy, f"/g/{game}")):
        assert SECRET not in page_of(client, url)
    assert SECRET in page_of(ben, f"/g/{game}")
    lines = api.get(f"/api/games/{game}/chat").get_json()["lines"]
    assert [line["text"] for line in lines] == [OPEN]


def test_the_chat_form_offers_the_others_only_under_private_press(make_web):
    app, parts = make_web()
    ticks = re.compile(r'name="to" value="(\d)"> <label for="chat-to-\d">([^<]+)</label>')
    for press, offered in (("private", [("2", "Ben"), ("3", "Cy")]), ("public", [])):
        created = private_game(parts, press)
        page = page_of(seated(app, created, 1), f"/g/{created.game_id}")
        assert ticks.findall(page) == offered
        assert f'action="/g/{created.game_id}/chat"' in page
    created = private_game(parts, "none")
    page = page_of(seated(app, created, 1), f"/g/{created.game_id}")
    assert f'action="/g/{created.game_id}/chat"' not in page
    assert "played without table talk" in page


def test_the_live_poll_tells_the_addressee_and_moves_no_one_elses_tag(make_web):
    app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    parts.service.say(game, token(created, 1), OPEN)
    clients = {seat: seated(app, created, seat) for seat in (1, 2, 3)}
    clients[None] = app.test_client()

    def poll(seat, since=None, **headers):
        url = f"/g/{game}/live" + ("?watch=1" if seat is None else "")
        if since is not None:
            url += ("&" if seat is None else "?") + f"since={since}"
        return clients[seat].get(url, headers=headers)

    before = {seat: poll(seat) for seat in clients}
    head = parts.service.state_at(game)["seq"]
    said = app.test_client().post(
        f"/api/games/{game}/chat", json={"text": SECRET, "to": [2]}, headers=bearer(created, 1)
    )
    assert said.status_code == 201
    assert said.get_json() == {"seq": head + 1, "seat": 1, "text": SECRET, "to": [2]}
    for seat in (3, None):
        etag = before[seat].headers["ETag"]
        assert poll(seat).json["tag"] == before[seat].json["tag"]
        assert poll(seat, **{"If-None-Match": etag}).status_code == 304
        assert poll(seat, since=head).json["since"] == []
    assert poll(2).json["tag"] != before[2].json["tag"]
    news = [h["text"] for h in poll(2, since=head).json["since"]]
    assert news == [f"Ann said privately to you: {SECRET}"]
    assert poll(1).json["seq"] == head + 1


def test_the_log_file_and_the_chain_give_a_private_line_to_its_readers_alone(make_web):
    app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    service = parts.service
    service.say(game, token(created, 1), OPEN)
    line = service.say(game, token(created, 2), SECRET, [3, 2])  # the sayer is left out
    assert line.event == TableTalk(2, SECRET, (3,))
    api = app.test_client()
    for seat, reads in ((1, False), (2, True), (3, True), (None, False)):
        headers = {} if seat is None else bearer(created, seat)
        chat = api.get(f"/api/games/{game}/log", headers=headers).get_json()["chat"]
        private = {"after": 0, "seat": 2, "text": SECRET, "to": [3]}
        assert chat == [{"after": 0, "seat": 1, "text": OPEN}] + ([private] if reads else [])
        chain = api.get(f"/api/games/{game}/chain", headers=headers).get_json()
        (told,) = [e for e in chain["events"] if e["seq"] == line.seq]
        assert ("payload" in told) is reads, seat
        assert SECRET not in str(chain) or reads
    assert service.verify(game) == []

    imported = service.import_log(service.export_log(game, 3))  # Cy's copy of the game
    assert service.options(imported.game_id)["press"] == "private"
    again = [(talked.seat, talked.to) for talked in service.table_talk(imported.game_id, 3)]
    assert again == [(1, None), (2, (3,))]
    assert [talked.text for talked in service.table_talk(imported.game_id, 1)] == [OPEN]
    assert service.verify(imported.game_id) == []


def test_verify_finds_a_private_line_whose_readers_are_not_what_the_event_says(make_web):
    from sqlalchemy import delete

    from pbem.store.talk import TALK_READERS

    _app, parts = make_web()
    created = private_game(parts)
    line = parts.service.say(created.game_id, token(created, 1), SECRET, [2])
    with parts.database.writing() as conn:
        conn.execute(delete(TALK_READERS).where(TALK_READERS.c.seat == 2))
    problems = parts.service.verify(created.game_id)
    assert problems == ["talk readers: not the private lines the events give"]
    assert parts.service.rebuild() >= 1
    assert parts.service.verify(created.game_id) == []
    assert [talked.seq for talked in parts.service.table_talk(created.game_id, 2)] == [line.seq]


def test_the_deadline_feeds_name_a_private_line_to_its_readers_alone(make_web):
    app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    browsers = {seat: seated(app, created, seat) for seat in (2, 3)}
    feeds = {seat: feed_of(client) for seat, client in browsers.items()}
    parts.service.say(game, token(created, 1), SECRET, [2])
    atoms = {seat: page_of(browsers[seat], f"/feeds/{feeds[seat]}.atom") for seat in feeds}
    calendars = {seat: page_of(browsers[seat], f"/feeds/{feeds[seat]}.ics") for seat in feeds}
    assert SECRET in atoms[2] and SECRET in calendars[2].replace("\r\n ", "")
    assert SECRET not in atoms[3] and SECRET not in calendars[3].replace("\r\n ", "")
    assert "privately" not in atoms[3]
    my_games = page_of(browsers[3], "/my-games")
    assert f'data-game="{game}" data-seq="1"' in my_games  # nothing new to tell Cy


@contextmanager
def mailing(parts) -> Iterator[tuple[Kept, Callable[[], None]]]:
    """A real SMTP server catching what the outbox sends, with the mails due so far
    (the invitations and the first turn) sent to it; the mails it keeps, and a
    function that sends the mails due now."""
    kept = Kept()
    server = Controller(kept, hostname="127.0.0.1", port=free_port())
    server.start()
    try:
        composer = Composer(parts.service, parts.settings)
        smtp = Smtp("127.0.0.1", server.port)

        def deliver() -> None:
            deliver_due(parts.outbox, composer, smtp)

        deliver()
        yield kept, deliver
    finally:
        server.stop()


def test_the_chat_mail_goes_to_the_addressee_alone_and_says_it_is_private(make_web, clock):
    _app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    with mailing(parts) as (kept, deliver):
        kept.mails.clear()
        parts.service.say(game, token(created, 1), SECRET, [2])
        clock.advance(minutes=4)
        deliver()
        (mail,) = kept.mails
        assert mail["To"].addresses[0].addr_spec == "ben@example.com"
        assert mail["Subject"].endswith("Ann said something to you in private")
        text = mail.get_body(("plain",)).get_content()
        assert f"Ann (privately to you): {SECRET}" in " ".join(text.split())
        assert "say to Ben: …" in text  # how to answer in private
        html = mail.get_body(("html",)).get_content()
        assert "privately to you" in html and SECRET in html
        # a public line afterwards: Cy is mailed it, and never the private one
        kept.mails.clear()
        parts.service.say(game, token(created, 1), OPEN)
        clock.advance(minutes=4)
        deliver()
        cy = [m for m in kept.mails if m["To"].addresses[0].addr_spec == "cy@example.com"]
        (told,) = cy
        body = told.get_body(("plain",)).get_content()
        assert OPEN in body and SECRET not in body and "privately" not in body


@pytest.mark.parametrize(
    ("press", "to", "status", "said"),
    [
        ("none", None, 403, "played without table talk"),
        ("none", [2], 403, "played without table talk"),
        ("public", [2], 403, "press is public"),
        ("private", [9], 400, "no seat 9 at this table: a private line may go to Ben (seat 2), Cy"),
        ("private", [1], 400, "another seat than your own"),
        ("private", [], 400, "a list of seats"),
        ("private", "2", 400, "a list of seats"),
        ("private", [True], 400, "no seat True"),
    ],
)
def test_a_line_the_press_rules_refuse_is_answered_why_and_changes_nothing(
    make_web, press, to, status, said
):
    app, parts = make_web()
    created = private_game(parts, press)
    game = created.game_id
    head = parts.service.state_at(game)["seq"]
    answer = app.test_client().post(
        f"/api/games/{game}/chat", json={"text": "hi", "to": to}, headers=bearer(created, 1)
    )
    assert answer.status_code == status
    assert said in answer.get_json()["error"]
    if to is None or (to and all(type(seat) is int for seat in to)):  # what a form can send
        ann = seated(app, created, 1)
        form = {"csrf_token": csrf(ann, f"/g/{game}"), "text": "hi", "to": to or []}
        page = ann.post(f"/g/{game}/chat", data=form)
        assert page.status_code == status
        assert said in page.get_data(as_text=True)
    assert parts.service.state_at(game)["seq"] == head
    assert parts.service.table_talk(game, 1) == []


def test_a_game_without_press_talks_once_it_is_over_and_old_games_are_public(make_web):
    from sqlalchemy import update

    from pbem.service import rows

    app, parts = make_web()
    created = private_game(parts, "none", pile=3)
    play_out(parts.service, created)
    said = parts.service.say(created.game_id, token(created, 1), "good game")
    assert said.event == TableTalk(1, "good game")
    old = private_game(parts, "public")
    assert parts.service.options(old.game_id)["press"] == "public"  # the default
    stored = {k: v for k, v in parts.service.options(old.game_id).items() if k != "press"}
    with parts.database.writing() as conn:  # as a game stored before the option
        conn.execute(
            update(rows.GAMES).where(rows.GAMES.c.id == old.game_id).values(options=stored)
        )
    parts.service.say(old.game_id, token(old, 1), OPEN)
    answer = app.test_client().post(
        f"/api/games/{old.game_id}/chat", json={"text": "hi", "to": [2]}, headers=bearer(old, 1)
    )
    assert answer.status_code == 403
    with pytest.raises(BadRequest, match="press is one of none, public, private"):
        private_game(parts, "loud")


def test_a_private_line_to_others_is_no_news_for_a_chat_mail_waiting(make_web, clock):
    """Cy's chat mail waits with a public line his page has shown him since: a
    private line between Ann and Ben after it is nothing for it to carry, so the
    mail is moot for what the page showed (no mail, no digest names the game)."""
    from sqlalchemy import select

    from pbem.service import rows

    app, parts = make_web()
    created = private_game(parts)
    game = created.game_id
    with mailing(parts) as (kept, deliver):
        cy = seated(app, created, 3)
        parts.service.say(game, token(created, 1), OPEN)
        assert OPEN in page_of(cy, f"/g/{game}")  # Cy's page showed it
        parts.service.say(game, token(created, 1), SECRET, [2])
        clock.advance(minutes=4)
        deliver()
    out = rows.OUTBOX.c
    with parts.database.reading() as conn:
        query = select(rows.OUTBOX).where(out.game_id == game, out.kind == "chat", out.seat == 3)
        (skipped,) = conn.execute(query).all()
    assert skipped.status == "skipped"
    assert "page has shown every line" in skipped.last_error
    assert [m["To"].addresses[0].addr_spec for m in kept.mails if m["X-Pbem-Kind"] == "chat"] == [
        "ben@example.com"
    ]
