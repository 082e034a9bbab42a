"""A rematch: offered by a seat once the game is over, accepted by every person at
the table, then created as every game is (each person invited with their own link),
bots seated again; a decline or seven days close it. Nobody outside the table can
offer or accept, and accepting twice is accepting once."""

from __future__ import annotations

import pytest

from pbem.service import BadRequest, Forbidden, PlayerSpec

from support import outbox, play_out, token

ANN, BEN = PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")
CAT = PlayerSpec("Cat", "cat@example.com", language="de")


def finished_nim(service, *players: PlayerSpec, **options):
    made = service.create_game(list(players), options or None, {"pile": 5}, game="nim")
    play_out(service, made)
    return made


def types(service, game_id: str) -> list[str]:
    return [h.type for h in service.history(game_id) if h.type.startswith("Rematch")]


def test_everyone_accepts_and_the_rematch_starts_with_the_same_table(service):
    made = finished_nim(service, ANN, BEN, CAT, hours_per_turn=24)
    game = made.game_id
    service.offer_rematch(game, token(made, 2))
    asked = [(kind, seat) for _, kind, seat, _ in outbox(service, game) if kind == "rematch_offer"]
    assert sorted(asked) == [("rematch_offer", 1), ("rematch_offer", 3)]

    first = service.answer_rematch(game, token(made, 1), True)
    assert first.new_game_id is None and first.accepted == {1, 2}
    again = service.answer_rematch(game, token(made, 1), True)  # idempotent
    assert again.accepted == {1, 2}
    assert types(service, game) == ["RematchOffered", "RematchAccepted"]
    last = service.answer_rematch(game, token(made, 3), True)

    new = last.new_game_id
    assert new and new != game
    assert types(service, game)[-1] == "RematchStarted"
    doc = service.state_at(new)
    assert [p["name"] for p in doc["players"]] == ["Ann", "Ben", "Cat"]
    assert doc["pile"] == 5 and doc["status"] == "playing"
    assert service.options(new)["hours_per_turn"] == 24
    invited = [(seat, to) for _, kind, seat, to in outbox(service, new) if kind == "invitation"]
    assert sorted(invited) == [
        (1, "ann@example.com"),
        (2, "ben@example.com"),
        (3, "cat@example.com"),
    ]
    assert service.seat_settings(new, 3)["language"] == "de"
    # the old game's page links each seat into the new game, its own seat only
    status = service.rematch_status(game, 1)
    assert status["link"].startswith(f"/g/{new}/")
    assert service.seat_of(new, status["link"].rsplit("/", 1)[1]) == 1
    assert service.rematch_status(game, None)["link"] is None
    # late acceptances change nothing; no second offer
    assert service.answer_rematch(game, token(made, 3), True).new_game_id == new
    with pytest.raises(BadRequest):
        service.offer_rematch(game, token(made, 1))
    assert [g.id for g in service.games()].count(new) == 1


def test_bots_are_seated_again_and_a_lone_person_starts_at_once(service):
    made = service.create_game(
        [ANN, PlayerSpec("Robo", bot="greedy")], None, {"pile": 7}, game="nim"
    )
    while (doc := service.state_at(made.game_id))["turn"] is not None:
        if doc["turn"] == 2:
            service.play_bots(made.game_id)
        else:
            service.submit_action(made.game_id, token(made, 1), "take 1", doc["seq"])
    assert service.state_at(made.game_id)["status"] == "finished"
    service.offer_rematch(made.game_id, token(made, 1))

    new = types(service, made.game_id)
    assert new == ["RematchOffered", "RematchStarted"]
    started = service.rematch_status(made.game_id, 1)["offer"].new_game_id
    links = {s.seat: s for s in service.seat_links(started)}
    assert links[2].token is None and links[1].token is not None


def test_a_decline_closes_the_offer_and_another_may_follow(service):
    made = finished_nim(service, ANN, BEN)
    service.offer_rematch(made.game_id, token(made, 1))
    closed = service.answer_rematch(made.game_id, token(made, 2), False)
    assert closed.closed == "declined" and closed.declined_by == 2
    with pytest.raises(BadRequest):
        service.answer_rematch(made.game_id, token(made, 1), True)
    service.offer_rematch(made.game_id, token(made, 2))  # a new offer
    assert service.answer_rematch(made.game_id, token(made, 1), True).new_game_id


def test_an_offer_lapses_after_seven_days(service, clock):
    made = finished_nim(service, ANN, BEN)
    service.offer_rematch(made.game_id, token(made, 1))
    clock.advance(days=7)
    lapsed = service.answer_rematch(made.game_id, token(made, 2), True)
    assert lapsed.closed == "lapsed" and lapsed.new_game_id is None
    assert types(service, made.game_id)[-1] == "RematchClosed"
    assert "The rematch offer lapsed" in [h.text for h in service.history(made.game_id)]
    assert service.rematch_status(made.game_id, 1)["may_offer"]


def test_only_the_table_offers_or_accepts_and_only_at_the_end(service):
    made = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    stranger = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    with pytest.raises(BadRequest):  # not over yet
        service.offer_rematch(made.game_id, token(made, 1))
    play_out(service, made)
    for bad in ("", "nope", token(stranger, 1)):
        with pytest.raises(Forbidden):
            service.offer_rematch(made.game_id, bad)
    with pytest.raises(BadRequest):  # nothing offered
        service.answer_rematch(made.game_id, token(made, 2), True)
    service.offer_rematch(made.game_id, token(made, 1))
    with pytest.raises(BadRequest):  # one open offer at a time
        service.offer_rematch(made.game_id, token(made, 2))
    for bad in ("", "nope", token(stranger, 2)):
        with pytest.raises(Forbidden):
            service.answer_rematch(made.game_id, bad, True)
    assert types(service, made.game_id) == ["RematchOffered"]


def test_a_rematch_keeps_the_name_its_table_gave_the_game(service):
    named = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim", name="Friday nim")
    play_out(service, named)
    service.offer_rematch(named.game_id, token(named, 1))
    service.answer_rematch(named.game_id, token(named, 2), True)
    started = service.rematch_status(named.game_id, 1)["offer"].new_game_id
    assert service.game_name(started) == "Friday nim"

    unnamed = finished_nim(service, ANN, BEN)
    service.offer_rematch(unnamed.game_id, token(unnamed, 1))
    service.answer_rematch(unnamed.game_id, token(unnamed, 2), True)
    again = service.rematch_status(unnamed.game_id, 1)["offer"].new_game_id
    assert service.game_name(again) is None  # still called by its players
