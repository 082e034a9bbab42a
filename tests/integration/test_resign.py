"""Leaving a running game: the game's rules decide whether a bot plays the seat on
or the game ends; the others are told; the link that resigned only watches; nobody
but the seat's own link can resign it."""

from __future__ import annotations

import json

import pytest
from hidden import shows

from pbem.events import SeatResigned
from pbem.service import BadRequest, Forbidden, PlayerSpec

from support import SHORT, outbox, play_out, token, two_players


def nim(service, *players: PlayerSpec, pile: int = 21):
    return service.create_game(list(players), None, {"pile": pile}, game="nim")


ANN, BEN = PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")
CAT = PlayerSpec("Cat", "cat@example.com")


def test_a_two_player_nim_ends_when_one_resigns_and_the_other_wins(service):
    made = nim(service, ANN, BEN)
    event = service.resign(made.game_id, token(made, 1))

    doc = service.state_at(made.game_id)
    assert doc["status"] == "finished" and doc["winners"] == [2]
    assert event.event == SeatResigned(1, "")
    told = [(kind, seat) for _, kind, seat, _ in outbox(service, made.game_id)[2:]]
    assert ("resigned", 2) in told and ("game_over", 1) in told and ("game_over", 2) in told
    text = [h.text for h in service.history(made.game_id, 2)]
    assert "Ann resigned, and the game ended" in text
    assert "You resigned, and the game ended" in [h.text for h in service.history(made.game_id, 1)]
    assert service.verify(made.game_id) == []


def test_a_mall_seat_goes_to_a_bot_while_another_person_plays_on(service):
    made = service.create_game([ANN, BEN, CAT], None, {"seed": "resign"})
    mover = service.state_at(made.game_id)["turn"]
    service.resign(made.game_id, token(made, mover))

    doc = service.state_at(made.game_id)
    assert doc["status"] == "playing"
    links = {s.seat: s for s in service.seat_links(made.game_id)}
    assert links[mover].token is None  # a bot's seat now
    played = service.play_bots(made.game_id)  # the bot took the turn it inherited
    assert played and played[0].seat == mover
    assert service.resigned_seat(made.game_id, token(made, mover)) == mover
    assert service.resigned_seat(made.game_id, token(made, mover % 3 + 1)) is None
    with pytest.raises(Forbidden):  # the resigned link acts no more
        service.say(made.game_id, token(made, mover), "still here")
    told = [(kind, seat) for _, kind, seat, _ in outbox(service, made.game_id)]
    assert sorted(s for k, s in told if k == "resigned") == sorted({1, 2, 3} - {mover})
    assert service.verify(made.game_id) == []


def test_the_last_person_resigning_ends_a_mall_game_as_it_stands(service):
    made = service.create_game([ANN, PlayerSpec("Bot", bot="greedy")], None, SHORT)
    service.play_bots(made.game_id)
    before = service.state_at(made.game_id)
    service.resign(made.game_id, token(made, 1))

    doc = service.state_at(made.game_id)
    assert doc["status"] == "finished" and doc["turn"] is None and doc["winners"]
    assert [p["score"]["total"] for p in doc["players"]] == [
        p["score"]["total"] for p in before["players"]
    ]
    assert service.verify(made.game_id) == []


def test_nobody_but_the_seat_resigns_it_and_not_twice_nor_after_the_end(service):
    made = two_players(service)
    other = nim(service, ANN, BEN)
    with pytest.raises(Forbidden):
        service.resign(made.game_id, "")
    with pytest.raises(Forbidden):
        service.resign(made.game_id, "not-a-token")
    with pytest.raises(Forbidden):  # a link of another game
        service.resign(made.game_id, token(other, 1))
    seq = service.state_at(made.game_id)["seq"]
    assert service.state_at(made.game_id)["seq"] == seq
    play_out(service, made)
    with pytest.raises(BadRequest):
        service.resign(made.game_id, token(made, 1))
    service.resign(other.game_id, token(other, 2))
    with pytest.raises(BadRequest):
        service.resign(other.game_id, token(other, 2))


def test_after_a_resignation_the_bot_has_the_hand_and_no_one_else_sees_it(service):
    made = service.create_game(
        [ANN, BEN, CAT], None, {**SHORT, "secrets": {"1": "O3", "2": "O5", "3": "O1"}}
    )
    service.resign(made.game_id, token(made, 2))
    for seat in (None, 1, 3):
        doc = service.state_at(made.game_id, seat=seat)
        assert doc["players"][1]["secret"] is None, seat
        assert not shows(json.dumps(service.export_log(made.game_id, seat)), "O5"), seat
        assert not any(shows(h.text, "O5") for h in service.history(made.game_id, seat)), seat
