"""The hash chain checked by the server (verify) on version 1 and 2 games, tampering
found on a version 2 chain, and each viewer's check of the chain from
GET /api/games/<id>/chain: it links to the head hash the viewer is shown, and never
holds the salt or the fields of an event the viewer may not see whole."""

from __future__ import annotations

import copy

import pytest
from sqlalchemy import text

from pbem.store import log
from pbem.store.chain import FIELDS, check

from support import SHORT, token, two_players

VIEWERS = (1, 2, None)
CARDS = {1: "O3", 2: "O5"}  # each seat's secret card in SHORT


def _eventful(service, chain: int | None = None):
    """A public game of Ann and Ben played to its end with the first legal action,
    with table talk about the secret cards, the spectators' chat, and each seat's
    private choices along the way. Returns the game and the seq it stopped at
    while still on (to check the chain mid-game too)."""
    created = service.create_game(
        [_person("Ann"), _person("Ben")],
        {"public": True},
        SHORT,
        **({} if chain is None else {"chain": chain}),
    )
    game = created.game_id
    turns, mid = 0, None
    while (state := service.state_at(game))["turn"] is not None:
        seat = state["turn"]
        if turns % 3 == 0:
            service.say(game, token(created, seat), "I hold a card, you hold nothing")
            service.spectator_says(game, "Zoe", f"turn {turns}")
        if turns == 2:
            service.set_language(game, token(created, 2), "de")
            service.set_mail_preference(game, token(created, 1), "digest")
        if turns == 3:
            mid = _answers(service, game, created)
        service.submit_action(game, token(created, seat), service.legal(game, seat)[0], None)
        turns += 1
    return created, mid


def _person(name):
    from pbem.service import PlayerSpec

    return PlayerSpec(name, f"{name.lower()}@example.com")


def _answers(service, game, created):
    """Each viewer's chain answer and what else they are shown, at this moment."""
    out = {}
    for viewer in VIEWERS:
        talk = {line.seq: line.text for line in service.table_talk(game, viewer)}
        spectators = {line.seq for line in service.spectator_talk(game, viewer)}
        doc = service.state_at(game, seat=viewer)
        out[viewer] = (service.chain(game, viewer), talk, spectators, doc["head_hash"])
    return out


def _raw(service, game):
    with service.db.reading() as conn:
        return {row.seq: row for row, _ in log.as_stored(conn, game)}


def _assert_discloses_only_what_the_viewer_may_see(service, game, answers):
    rows = _raw(service, game)
    for viewer, (answer, talk, spectators, head) in answers.items():
        found = check(answer, head)
        assert found.problems == [] and found.linked, (viewer, found)
        assert [e["seq"] for e in answer["events"]] == list(range(1, answer["head_seq"] + 1))
        assert found.in_full > 0
        for event in answer["events"]:
            row = rows[event["seq"]]
            whole = "salt" in event
            assert whole == all(f in event for f in FIELDS), event
            if not whole:
                assert set(event) == {"seq", "commitment"}, (viewer, event)
                continue
            assert event["salt"] == row.salt and event["payload"] == row.payload
            assert row.type != "GameCreated"
            if row.type in ("LanguageChosen", "MailPreferenceChanged"):
                assert viewer == row.payload["seat"]
            if row.type == "TableTalk":  # as the viewer's chat shows it, unblanked
                assert talk[row.seq] == row.payload["text"]
            if row.type == "SpectatorTalk":
                assert row.seq in spectators
            hidden = {c for s, c in CARDS.items() if c not in str(talk.values())}
            assert not any(card in str(row.payload) for card in hidden - {CARDS.get(viewer)})


def test_each_viewer_checks_the_chain_and_sees_no_hidden_event_whole(service):
    created, mid = _eventful(service)
    game = created.game_id
    assert service.chain(game)["chain"] == 2
    _assert_discloses_only_what_the_viewer_may_see(service, game, mid)
    # every line of talk the viewer reads is disclosed whole: it is told as said
    for viewer, (answer, talk, _, _) in mid.items():
        assert talk and all("salt" in answer["events"][s - 1] for s in talk)
        private = {seq for seq, row in _raw(service, game).items() if row.type == "LanguageChosen"}
        assert all(("salt" in answer["events"][s - 1]) == (viewer == 2) for s in private)
    _assert_discloses_only_what_the_viewer_may_see(service, game, _answers(service, game, created))


def test_a_version_1_game_answers_its_disclosed_events_with_their_hashes_only(service):
    created, mid = _eventful(service, chain=1)
    game = created.game_id
    rows = _raw(service, game)
    for viewer, (answer, _talk, _, head) in mid.items():
        assert answer["chain"] == 1
        found = check(answer, head)
        assert found.problems == [] and not found.linked
        for event in answer["events"]:
            row = rows[event["seq"]]
            assert "salt" not in event and "commitment" not in event
            if "hash" in event:
                assert event["hash"] == row.hash and event["payload"] == row.payload
            else:
                assert set(event) == {"seq"}
            if row.type == "LanguageChosen":
                assert ("hash" in event) == (viewer == 2)


def test_the_chain_route_answers_each_viewer_as_the_other_game_routes_do(make_web):
    app, parts = make_web()
    created = two_players(parts.service, SHORT, public=True)
    game = created.game_id
    parts.service.set_language(game, token(created, 2), "de")
    client = app.test_client()
    for viewer in VIEWERS:
        headers = {} if viewer is None else {"Authorization": f"Bearer {token(created, viewer)}"}
        answer = client.get(f"/api/games/{game}/chain", headers=headers)
        shown = client.get(f"/api/games/{game}", headers=headers).json["head_hash"]
        assert answer.status_code == 200
        assert answer.json == parts.service.chain(game, viewer)
        assert check(answer.json, shown).linked
        assert ("salt" in answer.json["events"][1]) == (viewer == 2)  # the language
    page = client.get(f"/g/{game}").get_data(as_text=True)
    assert client.get(f"/api/games/{game}/chain").json["head_hash"] in page
    private = two_players(parts.service, SHORT)
    assert client.get(f"/api/games/{private.game_id}/chain").status_code == 403
    bearer = {"Authorization": "Bearer not-a-token"}
    assert client.get(f"/api/games/{game}/chain", headers=bearer).status_code == 403
    assert client.get("/api/games/no-such-game/chain").status_code == 404
    assert client.get("/api/games/nosuchgame/chain").status_code == 404


# -- the server's verify -----------------------------------------------------------


@pytest.mark.parametrize("chain", [1, 2])
def test_verify_holds_for_both_versions_and_after_a_rebuild(service, chain):
    created, _ = _eventful(service, chain=chain)
    game = created.game_id
    assert service.verify(game) == []
    with service.db.reading() as conn:
        assert log.chain_problems(conn, game) == []
        assert log.chain_version(conn, game) == chain
    service.rebuild()
    assert service.verify(game) == []
    assert service.chain(game)["chain"] == chain


def _tamper(service, database_url, game, seq, **values):
    """Someone with database access changes a stored event."""
    with service.db.write() as s:
        connection = s.connection()
        if database_url.startswith("sqlite"):
            connection.execute(text("DROP TRIGGER IF EXISTS events_no_update"))
        else:
            connection.execute(text("ALTER TABLE events DISABLE TRIGGER events_immutable"))
        said = ", ".join(f"{k} = :{k}" for k in values)
        connection.execute(
            text(f"UPDATE events SET {said} WHERE game_id = :g AND seq = :seq"),
            {"g": game, "seq": seq, **values},
        )


@pytest.mark.parametrize(
    ("change", "found", "seen"),
    [
        ({"actor": "mallory"}, "seq 3: the stored hash does not match its contents", True),
        ({"salt": "0" * 32}, "seq 3: the stored hash does not match its contents", True),
        ({"salt": None}, "seq 3: its salt does not fit a version 2 chain", True),
        ({"hash": "f" * 64}, "seq 4: its prev_hash is not the hash of seq 3", False),
        ({"prev_hash": "e" * 64}, "seq 3: its prev_hash is not the hash of seq 2", False),
    ],
    ids=["field", "salt", "no salt", "hash", "link"],
)
def test_verify_reports_a_tampered_version_2_event(service, database_url, change, found, seen):
    """The server's verify finds every change; a viewer's check finds each change
    of what an event commits to (a stored link alone the viewer never relies on:
    its answer links the commitments itself)."""
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.say(game, token(created, 1), "one")
    service.say(game, token(created, 2), "two")
    service.say(game, token(created, 1), "three")
    head = service.state_at(game)["head_hash"]
    assert service.verify(game) == [] and check(service.chain(game), head).linked
    _tamper(service, database_url, game, 3, **change)
    assert found in service.verify(game)
    assert check(service.chain(game), head).linked is not seen


@pytest.mark.parametrize(
    "forge",
    [
        lambda a: a["events"][2]["payload"].update(text="forged"),
        lambda a: a["events"][2].update(salt="0" * 32),
        lambda a: a["events"][1].update(commitment="a" * 64),
        lambda a: a["events"].pop(1),
        lambda a: a["events"][2].pop("salt"),
        lambda a: a.update(head_hash="b" * 64),
    ],
    ids=["payload", "salt", "commitment", "a link left out", "salt left out", "head"],
)
def test_a_viewers_check_finds_a_forged_answer(service, forge):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.say(game, token(created, 1), "one")
    service.say(game, token(created, 2), "two")
    answer = service.chain(game)
    head = service.state_at(game)["head_hash"]
    assert check(answer, head).problems == []
    forged = copy.deepcopy(answer)
    forge(forged)
    assert check(forged, head).problems != []


@pytest.mark.parametrize(
    "answer", [None, [], "x", {"chain": 2}, {"chain": 3, "head_hash": "a" * 64, "events": []}]
)
def test_a_malformed_answer_is_a_problem_not_a_crash(answer):
    assert check(answer).problems != []


def test_an_imported_game_is_a_version_2_chain_that_verifies(service):
    created, _ = _eventful(service, chain=1)
    doc = service.export_log(created.game_id)
    imported = service.import_log(doc)
    assert service.chain(imported.game_id)["chain"] == 2
    assert service.verify(imported.game_id) == []
    with service.db.reading() as conn:
        assert log.chain_version(conn, imported.game_id) == 2
