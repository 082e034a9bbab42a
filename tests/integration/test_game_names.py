"""Games people can tell apart: a game's name (given by its creator, else its
players'), checked like a player's name, stored in GameCreated and the games row,
and said first in every subject, page title, My games and the feeds, with the
reader's opponents; the id kept small for whoever helps."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from sqlmodel import select

from pbem.events import GameCreated, decode
from pbem.service import BadRequest, PlayerSpec
from pbem.service.notices import Kind
from pbem.store import log
from pbem.store.tables import Game
from pbem.store.tables import Outbox as OutboxRow

from support import SHORT, MailWriter, csrf

ANN, BEN, CY = (
    PlayerSpec("Ann", "ann@example.com"),
    PlayerSpec("Ben", "ben@example.com"),
    PlayerSpec("Cy", "cy@example.com"),
)


def _title(page: str) -> str:
    return re.search(r"<title>([^<]*)</title>", page)[1]


def test_a_named_game_keeps_its_name_in_its_event_and_its_row(service):
    created = service.create_game([ANN, BEN], None, SHORT, name="  Friday\u200b mall\n")
    with service.db.read() as s:
        row = s.exec(select(Game).where(Game.id == created.game_id)).one()
    # invisible characters gone, blanks one space, none at the ends
    assert row.name == "Friday mall" == service.game_name(created.game_id)
    with service.db.reading() as conn:
        event = log.created(conn, created.game_id)
    assert event.payload["name"] == "Friday mall"
    assert isinstance(event.event, GameCreated) and event.event.name == "Friday mall"


def test_a_game_without_a_name_is_called_by_its_players(service):
    created = service.create_game([ANN, BEN, CY], None, {"seed": "three"}, name="   ")
    assert service.game_name(created.game_id) is None
    with service.db.reading() as conn:
        payload = log.created(conn, created.game_id).payload
    assert payload["name"] is None


def test_a_game_created_before_names_decodes_without_one(service):
    created = service.create_game([ANN, BEN], None, SHORT)
    with service.db.reading() as conn:
        payload = dict(log.created(conn, created.game_id).payload)
    old = {k: v for k, v in payload.items() if k not in ("name", "languages_open", "v")}
    event = decode(GameCreated.TYPE, {**old, "v": 1})
    assert event.name is None and event.languages_open == ()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u200b\u2060\ufeff", "a name needs a character one can see"),
        ("\u3164", "a name needs a character one can see"),
        ("x" * 41, "at most 40 characters"),
        (42, "a game's name is text"),
        (["a"], "a game's name is text"),
        ("\u0301abc", "combining mark"),
    ],
)
def test_a_hostile_name_is_refused_and_makes_nothing(service, name, why):
    before = len(service.games())
    with pytest.raises(BadRequest, match=re.escape(why)):
        service.create_game([ANN, BEN], None, SHORT, name=name)
    assert len(service.games()) == before


def test_bidi_overrides_and_controls_are_taken_out_of_a_name(service):
    created = service.create_game([ANN, BEN], None, SHORT, name="\u202eevil\u202c\x07 mall")
    assert service.game_name(created.game_id) == "evil mall"


def _subjects(parts, clock, game_id, kind, seat, to, payload=None):
    """The subject of one notice in English and in German."""
    writer = MailWriter(parts, clock, game_id)
    row = writer.row(kind, seat, to, payload or {})
    german = SimpleNamespace(**{**row._mapping, "language": "de"})
    return tuple(str(writer.composer.compose(r)["Subject"]) for r in (row, german))


def test_subjects_say_the_name_first_and_the_readers_opponents(make_parts, clock):
    parts = make_parts(clock)
    created = parts.service.create_game(
        [ANN, BEN, CY], {"hours_per_turn": 48}, {"seed": "three"}, name="Friday mall"
    )
    game_id = created.game_id
    invited, _ = _subjects(parts, clock, game_id, Kind.INVITATION, 2, "ben@example.com")
    assert invited == "Friday mall, against Ann and Cy: you are invited to a game of Mall"
    turn, german = _subjects(parts, clock, game_id, Kind.YOUR_TURN, 1, "ann@example.com")
    assert turn.startswith("Friday mall, against Ben and Cy: your turn (round 1) — answer by ")
    assert german.startswith("Friday mall, gegen Ben und Cy: Du bist am Zug (Runde 1)")
    for subject in (invited, turn, german):
        assert game_id not in subject
    # the name and the opponents come first, within what a mail client shows
    assert len("Friday mall, against Ben and Cy: your turn (round 1)") <= 60


def test_subjects_of_an_unnamed_game_name_its_players(make_parts, clock):
    parts = make_parts(clock)
    created = parts.service.create_game([ANN, BEN], None, SHORT)
    english, german = _subjects(parts, clock, created.game_id, Kind.YOUR_TURN, 1, "ann@example.com")
    assert english.startswith("Ann vs Ben: your turn (round 1) — answer by ")
    assert german.startswith("Ann gegen Ben: Du bist am Zug (Runde 1) — Antwort bis ")


def test_the_invitation_says_how_to_change_the_mails_language(make_parts, clock):
    parts = make_parts(clock)
    created = parts.service.create_game([ANN, BEN], None, SHORT)
    mail = MailWriter(parts, clock, created.game_id).compose(
        Kind.INVITATION, 2, "ben@example.com", {}
    )
    text = mail.get_body(("plain",)).get_content()
    link = f"http://pbem.test/g/{created.game_id}/{created.seats[1].token}#mail-language"
    assert "Your mails are in English." in text and link in text
    assert f'href="{link}"' in mail.get_body(("html",)).get_content()


def _form(**more):
    return {
        "game": "mall",
        "kind1": "person",
        "name1": "Ann",
        "email1": "ann@example.com",
        "kind2": "person",
        "name2": "Ben",
        "email2": "ben@example.com",
        **more,
    }


def test_the_new_game_form_names_the_game_and_its_pages_say_the_name(web):
    app, parts = web
    client = app.test_client()
    made = client.post(
        "/new",
        data=_form(game_name="Friday mall", csrf_token=csrf(client, "/new")),
    )
    assert made.status_code == 303
    (game,) = parts.service.games()
    assert game.name == "Friday mall"
    created = client.get(made.headers["Location"]).get_data(as_text=True)
    assert "Friday mall is on" in created and game.id in created
    ann = app.test_client()
    ann.get(f"/g/{game.id}/{parts.service.seat_links(game.id)[0].token}")
    page = ann.get(f"/g/{game.id}").get_data(as_text=True)
    # Ann moves first: the tab says so before the name
    assert _title(page) == "(your turn) Friday mall, against Ben (Mall) — Mall by mail"
    assert f'<span class="game-id">game {game.id}</span>' in page  # small, for support
    history = ann.get(f"/g/{game.id}/history").get_data(as_text=True)
    # one game waits on Ann: every other page counts it first
    assert _title(history).startswith("(1) History of Friday mall, against Ben (Mall)")
    german = ann.get(f"/g/{game.id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert _title(german).startswith("(du bist am Zug) Friday mall, gegen Ben (")
    mine = ann.get("/my-games").get_data(as_text=True)
    assert ">Friday mall, against Ben</a>" in mine and game.id in mine


def test_a_hostile_name_on_the_form_is_refused_with_the_form_again(web):
    app, parts = web
    client = app.test_client()
    refused = client.post(
        "/new", data=_form(game_name="\u200b\u200d", csrf_token=csrf(client, "/new"))
    )
    assert refused.status_code == 400
    assert "needs a character one can see" in refused.get_data(as_text=True)
    assert parts.service.games() == []


def test_the_api_takes_a_name_and_refuses_a_bad_one(web):
    app, parts = web
    client = app.test_client()
    players = [{"name": "Ann", "email": "ann@example.com"}, {"name": "Ben", "bot": "random"}]
    bad = client.post("/api/games", json={"players": players, "name": {"x": 1}})
    assert bad.status_code == 400 and parts.service.games() == []
    public = {"public": True}  # so that anyone may read it here
    made = client.post(
        "/api/games", json={"players": players, "name": "Lunch game", "options": public}
    )
    assert made.status_code == 201
    game_id = made.get_json()["id"]
    assert parts.service.game_name(game_id) == "Lunch game"
    assert client.get(f"/api/games/{game_id}").get_json()["name"] == "Lunch game"
    unnamed = client.post("/api/games", json={"players": players, "options": public})
    assert client.get(f"/api/games/{unnamed.get_json()['id']}").get_json()["name"] is None


def test_the_creator_who_plays_is_seated_and_sent_no_invitation(web):
    app, parts = web
    client = app.test_client()
    made = client.post(
        "/new",
        data=_form(creator_plays="yes", email1="", csrf_token=csrf(client, "/new")),
    )
    (game,) = parts.service.games()
    assert made.status_code == 303 and made.headers["Location"] == f"/g/{game.id}"
    page = client.get(f"/g/{game.id}").get_data(as_text=True)
    assert f'action="/g/{game.id}/forget"' in page  # this browser holds a seat
    assert "You are watching" not in page and "your turn" in page  # seat 1, to move
    with parts.database.read() as s:
        mails = s.exec(select(OutboxRow).where(OutboxRow.kind == "invitation")).all()
    assert [(m.seat, m.address) for m in mails] == [(2, "ben@example.com")]


def test_a_creator_seat_must_be_a_persons(web):
    app, parts = web
    client = app.test_client()
    refused = client.post(
        "/new", data=_form(creator_plays="yes", kind1="random", csrf_token=csrf(client, "/new"))
    )
    assert refused.status_code == 400 and parts.service.games() == []
    with pytest.raises(BadRequest):
        parts.service.create_game([ANN, PlayerSpec("Bot", bot="random")], creator_seat=2)


def _holder(app, parts, game_id, seat):
    client = app.test_client()
    client.get(f"/g/{game_id}/{parts.service.seat_links(game_id)[seat - 1].token}")
    return client


def test_another_seats_link_asks_before_it_switches(web):
    app, parts = web
    created = parts.service.create_game([ANN, BEN], None, SHORT)
    game_id, ben_token = created.game_id, created.seats[1].token
    client = _holder(app, parts, game_id, 1)
    asked = client.get(f"/g/{game_id}/{ben_token}")
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "You are Ann here" in page
    assert "Stay as Ann" in page and "Switch to Ben" in page
    assert asked.headers["Cache-Control"] == "no-store"
    assert asked.headers["Referrer-Policy"] == "no-referrer"
    # the token only in the form's POST body, never in a link
    assert page.count(ben_token) == 1 and f'name="token" value="{ben_token}"' in page
    assert "your turn" in client.get(f"/g/{game_id}").get_data(as_text=True)  # still Ann
    forged = client.post(f"/g/{game_id}/switch", data={"token": ben_token})
    assert forged.status_code == 400  # no CSRF token: nothing changes
    assert "your turn" in client.get(f"/g/{game_id}").get_data(as_text=True)
    token = csrf(client, f"/g/{game_id}")
    wrong = client.post(f"/g/{game_id}/switch", data={"token": "x" * 40, "csrf_token": token})
    assert wrong.status_code == 403
    switched = client.post(f"/g/{game_id}/switch", data={"token": ben_token, "csrf_token": token})
    assert switched.status_code == 303
    assert "Ann to move" in client.get(f"/g/{game_id}").get_data(as_text=True)  # now Ben


def test_the_same_seats_link_asks_nothing(web):
    app, parts = web
    created = parts.service.create_game([ANN, BEN], None, SHORT)
    client = _holder(app, parts, created.game_id, 1)
    again = client.get(f"/g/{created.game_id}/{created.seats[0].token}")
    assert again.status_code == 302


def _language(parts, game_id, seat):
    return parts.service.seat_settings(game_id, seat)["language"]


def test_an_invited_persons_mails_follow_their_browser_unless_chosen(web):
    app, parts = web
    client = app.test_client()
    client.post("/new", data=_form(csrf_token=csrf(client, "/new")))
    (game,) = parts.service.games()
    links = parts.service.seat_links(game.id)
    ben = app.test_client()
    ben.get(f"/g/{game.id}/{links[1].token}", headers={"Accept-Language": "de"})
    assert _language(parts, game.id, 2) == "de"
    # the first visit decides: later visits and other browsers leave it be
    app.test_client().get(f"/g/{game.id}/{links[1].token}", headers={"Accept-Language": "en"})
    assert _language(parts, game.id, 2) == "de"

    chosen = app.test_client()
    chosen.post("/new", data=_form(language="en", csrf_token=csrf(chosen, "/new")))
    named = next(g for g in parts.service.games() if g.id != game.id)
    other = parts.service.seat_links(named.id)[1].token
    app.test_client().get(f"/g/{named.id}/{other}", headers={"Accept-Language": "de"})
    assert _language(parts, named.id, 2) == "en"  # the creator chose it


def test_the_mail_of_a_persons_games_lists_each_by_its_name(make_parts, clock):
    parts = make_parts(clock)
    named = parts.service.create_game([ANN, BEN], None, SHORT, name="Friday night").game_id
    other = parts.service.create_game([ANN, CY], None, {"seed": "other"}).game_id
    writer = MailWriter(parts, clock, named)
    payload = {"seats": [[named, 1], [other, 1]]}
    mail = writer.compose(Kind.MY_GAMES, None, "ann@example.com", payload, game=False)
    text = mail.get_body(("plain",)).get_content()
    assert "Friday night, against Ben, seat 1 (Ann):" in text
    assert "Ann vs Cy, seat 1 (Ann):" in text
