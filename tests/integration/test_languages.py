"""Each person's mail language: chosen for them when the game is made or their seat
handed over, or by them on their seat's page; recorded as an event, kept in the
seat's row, and carried by every notice queued for them (the composer writes each
mail in its row's language). Migration 0006 adds it on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from alembic import command
from sqlmodel import select

from pbem.events import LanguageChosen
from pbem.service import BadRequest, PlayerSpec, ServiceError
from pbem.service.outbox import Outbox
from pbem.store import migrate
from pbem.store.tables import Outbox as OutboxRow
from pbem.store.tables import Seat

from support import SHORT, csrf


def _game(service, ann="de", ben=None, **options):
    return service.create_game(
        [
            PlayerSpec("Anna", "anna@example.com", language=ann),
            PlayerSpec("Bernd", "bernd@example.com", language=ben),
        ],
        {"hours_per_turn": 48, **options},
        SHORT,
    )


def _seats(service, game_id):
    with service.db.read() as s:
        found = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
        return [(r.seat, r.language) for r in found]


def _mails(service, game_id):
    with service.db.read() as s:
        found = s.exec(
            select(OutboxRow).where(OutboxRow.game_id == game_id).order_by(OutboxRow.id)
        ).all()
        return [(r.kind, r.seat, r.language) for r in found]


def test_a_game_made_with_a_german_player_records_it_and_writes_their_mails_in_german(service):
    created = _game(service)
    assert _seats(service, created.game_id) == [(1, "de"), (2, "en")]
    history = service.history(created.game_id, seat=1)
    chosen = [h.event for h in history if isinstance(h.event, LanguageChosen)]
    assert chosen == [LanguageChosen(1, "de")]  # only the German seat: English is the default
    assert created.seq == history[-1].seq == 2  # the head, after the language
    assert created.seats[0].language == "de" and created.seats[1].language == "en"
    assert ("invitation", 1, "de") in _mails(service, created.game_id)
    assert ("invitation", 2, "en") in _mails(service, created.game_id)


def test_an_all_english_game_has_no_language_events_and_starts_at_seq_1(service):
    created = _game(service, ann=None, ben="en")
    assert created.seq == 1
    assert _seats(service, created.game_id) == [(1, "en"), (2, "en")]
    assert {language for _k, _s, language in _mails(service, created.game_id)} == {"en"}


@pytest.mark.parametrize("bad", ["xx", "DE", "de-DE", "", 7, ["de"]])
def test_an_unknown_language_is_refused_and_nothing_is_made(service, bad):
    with pytest.raises(BadRequest) as refused:
        _game(service, ann=bad)
    assert "language" in refused.value.message
    with service.db.read() as s:
        assert s.exec(select(Seat)).all() == []


def test_a_player_changes_their_language_and_later_mails_follow(service):
    created = _game(service, ann=None)
    tokens = {s.seat: s.token for s in created.seats}
    service.set_language(created.game_id, tokens[1], "de")
    assert _seats(service, created.game_id) == [(1, "de"), (2, "en")]
    service.submit_action(created.game_id, tokens[1], "money L", None)
    service.submit_action(created.game_id, tokens[2], "money R", None)
    turns = [m for m in _mails(service, created.game_id) if m[0] == "your_turn"]
    # the first turn was told in the invitation, queued at the start, before the change
    assert turns == [("your_turn", 2, "en"), ("your_turn", 1, "de")]


def test_the_language_choice_is_private_to_its_seat(service):
    created = _game(service)
    seen_by = {
        viewer: [h.text for h in service.history(created.game_id, seat=viewer)]
        for viewer in (1, 2, None)
    }
    assert any("Deutsch" in line for line in seen_by[1])
    assert not any("Deutsch" in line for line in seen_by[2] + seen_by[None])


@pytest.mark.parametrize("bad", ["fr", "", "en ", None, 1])
def test_a_bad_language_or_token_changes_nothing(service, bad):
    created = _game(service, ann=None)
    tokens = {s.seat: s.token for s in created.seats}
    with pytest.raises(BadRequest):
        service.set_language(created.game_id, tokens[1], bad)
    with pytest.raises(ServiceError):
        service.set_language(created.game_id, "not-a-token", "de")
    assert _seats(service, created.game_id) == [(1, "en"), (2, "en")]
    assert service.history(created.game_id, seat=1)[-1].seq == 1


def test_a_seat_handed_to_a_new_person_takes_their_language_not_the_last_ones(service):
    created = _game(service)  # Anna reads German
    link = service.replace_seat(created.game_id, 1, "human", name="Carl", email="carl@example.com")
    assert _seats(service, created.game_id)[0] == (1, "en")
    assert (("invitation", 1, "en")) in _mails(service, created.game_id)[-2:]
    service.replace_seat(
        created.game_id, 2, "human", name="Dora", email="dora@example.com", language="de"
    )
    assert _seats(service, created.game_id) == [(1, "en"), (2, "de")]
    assert link.language == "en"


def test_a_digest_is_written_in_its_readers_language(service, database, clock):
    created = _game(service)
    tokens = {s.seat: s.token for s in created.seats}
    service.set_mail_preference(created.game_id, tokens[1], "digest")
    service.submit_action(created.game_id, tokens[1], "money L", None)
    service.submit_action(created.game_id, tokens[2], "money R", None)
    outbox = Outbox(database, clock)
    (digest,) = outbox.make_digests()
    assert (outbox.get(digest).kind, outbox.get(digest).language) == ("digest", "de")


def test_a_sign_in_mail_speaks_the_language_of_the_page_that_asked(web):
    app, parts = web
    parts.service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")]
    )
    for address, language in (("anna@example.com", "de-DE,de;q=0.9"), ("bernd@example.com", "")):
        client = app.test_client()
        headers = {"Accept-Language": language}
        token = csrf(client, "/my-games", **headers)
        answer = client.post(
            "/my-games", data={"email": address, "csrf_token": token}, headers=headers
        )
        assert answer.status_code == 200
    parts.service.answer_link_requests()  # the scheduler's sweep
    with parts.database.read() as s:
        sign_ins = s.exec(select(OutboxRow).where(OutboxRow.kind == "sign_in")).all()
        assert sorted((r.address, r.language) for r in sign_ins) == [
            ("anna@example.com", "de"),
            ("bernd@example.com", "en"),
        ]


def test_migration_0006_gives_every_seat_and_notice_english_and_goes_back(service, database):
    created = _game(service)
    config = migrate.alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0005")
    with database.engine.connect() as connection:
        columns = connection.exec_driver_sql("SELECT * FROM seats").keys()
    assert "language" not in columns
    migrate.upgrade(database)
    assert migrate.current_revision(database) == "0020"
    assert migrate.differences(database) == []
    assert _seats(service, created.game_id) == [(1, "en"), (2, "en")]
    assert {language for _k, _s, language in _mails(service, created.game_id)} == {"en"}


def test_a_game_with_a_german_player_keeps_its_first_deadline(service):
    """The language events recorded with the game come after its creation in the
    same transaction: the first turn's clock must survive them."""
    german, english = _game(service), _game(service, ann=None)
    assert german.seq == 2 and english.seq == 1
    deadlines = [service.clock_of(g.game_id)["deadline"] for g in (german, english)]
    assert deadlines[0] is not None and deadlines[0] == deadlines[1]


def test_a_game_with_language_events_verifies_and_rebuilds_to_the_same_rows(service):
    created = _game(service)
    tokens = {s.seat: s.token for s in created.seats}
    service.set_language(created.game_id, tokens[2], "de")
    before = (_seats(service, created.game_id), service.clock_of(created.game_id))
    assert service.verify(created.game_id) == []
    service.rebuild()
    assert (_seats(service, created.game_id), service.clock_of(created.game_id)) == before
    assert before[1]["deadline"] is not None


def test_the_first_turn_mail_tells_no_news_of_the_readers_own_language_choice(
    service, database, clock, settings
):
    from types import SimpleNamespace

    from pbem.mail.compose import Composer

    created = _game(service)
    outbox = Outbox(database, clock)
    composer = Composer(service, settings)
    with service.db.read() as s:
        (turn,) = s.exec(
            select(OutboxRow).where(
                OutboxRow.game_id == created.game_id,
                OutboxRow.kind == "invitation",  # the first turn's mail
                OutboxRow.seat == 1,
            )
        ).all()
    row = SimpleNamespace(**{**outbox.get(turn.id)._mapping, "delivery_id": "<x@pbem.test>"})
    mail = composer.compose(row)
    text = mail.get_body(("plain",)).get_content()
    assert mail["Content-Language"] == "de" and "Du bist jetzt am Zug" in text
    # no news of her own choice (the invitation says which language its mails are in)
    assert "als Sprache deiner Mails gewählt" not in text
    assert "Seit deinem letzten Zug" not in text
    assert "Deine Mails sind auf Deutsch" in text
    assert "Antwort bis" in text


def test_pages_vary_by_language_and_static_files_do_not(web):
    app, _parts = web
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": "de"})
    assert {"Accept-Language", "Cookie"} <= set(page.vary)
    assert page.headers["Content-Language"] == "de"
    for path in ("/static/site.css", "/static/live.js", "/games/mall/static/play.js"):
        asset = client.get(path, headers={"Accept-Language": "de"})
        assert asset.status_code == 200 and "Accept-Language" not in asset.vary, path


def _seat_page(app, parts, created, seat=1):
    client = app.test_client()
    client.get(f"/g/{created.game_id}/{created.seats[seat - 1].token}")
    return client


def test_a_player_chooses_the_language_of_their_mails_on_their_seats_page(web):
    app, parts = web
    created = _game(parts.service, ann=None)
    client = _seat_page(app, parts, created)
    page = client.get(f"/g/{created.game_id}").get_data(as_text=True)
    assert 'name="language"' in page and 'value="de"' in page
    answer = client.post(
        f"/g/{created.game_id}/mail-language",
        data={"language": "de", "csrf_token": csrf(client, f"/g/{created.game_id}")},
        follow_redirects=True,
    )
    assert answer.status_code == 200
    assert "From now on your mails are in Deutsch." in answer.get_data(as_text=True)
    assert _seats(parts.service, created.game_id) == [(1, "de"), (2, "en")]


@pytest.mark.parametrize("bad", ["xx", "", "DE", "de " * 30_000, "<b>de</b>", "\u202ede"])
def test_a_hostile_language_on_the_seats_page_changes_nothing(web, bad):
    app, parts = web
    created = _game(parts.service, ann=None)
    client = _seat_page(app, parts, created)
    token = csrf(client, f"/g/{created.game_id}")
    answer = client.post(
        f"/g/{created.game_id}/mail-language",
        data={"language": bad, "csrf_token": token},
        follow_redirects=True,
    )
    assert answer.status_code == 200
    assert "Not changed: language is one of en, de." in answer.get_data(as_text=True)
    assert _seats(parts.service, created.game_id) == [(1, "en"), (2, "en")]


def test_a_stranger_or_a_forged_form_cannot_change_a_seats_language(web):
    app, parts = web
    created = _game(parts.service, ann=None)
    stranger = app.test_client()
    token = csrf(stranger, "/new")
    answer = stranger.post(
        f"/g/{created.game_id}/mail-language", data={"language": "de", "csrf_token": token}
    )
    assert answer.status_code == 302  # back to the game, which says why
    forged = _seat_page(app, parts, created).post(
        f"/g/{created.game_id}/mail-language", data={"language": "de"}
    )
    assert forged.status_code == 400  # no CSRF token
    control = _seat_page(app, parts, created)
    sent = control.post(
        f"/g/{created.game_id}/mail-language",
        data={"language": "de\x00", "csrf_token": csrf(control, f"/g/{created.game_id}")},
    )
    assert sent.status_code == 400
    assert _seats(parts.service, created.game_id) == [(1, "en"), (2, "en")]
    assert parts.service.history(created.game_id, seat=1)[-1].seq == 1


def test_the_new_game_form_writes_the_invitations_in_the_chosen_language(web):
    app, parts = web
    client = app.test_client()
    form = {
        "game": "mall",
        "kind1": "person",
        "name1": "Anna",
        "email1": "anna@example.com",
        "kind2": "person",
        "name2": "Bernd",
        "email2": "bernd@example.com",
    }
    refused = client.post(
        "/new", data={**form, "language": "fr", "csrf_token": csrf(client, "/new")}
    )
    assert refused.status_code == 400
    assert "language is one of en, de" in refused.get_data(as_text=True)
    made = client.post(
        "/new",
        data={**form, "language": "de", "csrf_token": csrf(client, "/new")},
        headers={"Accept-Language": "en"},
    )
    assert made.status_code == 303
    with parts.database.read() as s:
        rows = s.exec(select(OutboxRow).where(OutboxRow.kind == "invitation")).all()
        assert sorted((r.address, r.language) for r in rows) == [
            ("anna@example.com", "de"),
            ("bernd@example.com", "de"),
        ]
    german = app.test_client().get("/new", headers={"Accept-Language": "de"}).get_data(as_text=True)
    # by default each person's own browser's language, from their first visit
    assert '<option value="" selected>' in german
    assert '<option value="de" lang="de" selected>' not in german
