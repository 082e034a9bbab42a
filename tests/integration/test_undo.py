"""Undo: alone when it is your last move, nothing came after it and it showed nothing
hidden; otherwise every other person must agree. Undone events stay in the log and
folding skips them."""

from __future__ import annotations

import pytest

from pbem.service import BadRequest, PlayerSpec
from pbem.store import log

from support import SHORT, outbox, token, two_players


def nim(service, players=2, pile=10):
    return service.create_game(
        [PlayerSpec(f"P{i}", f"p{i}@example.com") for i in range(1, players + 1)],
        None,
        {"pile": pile},
        game="nim",
    )


def test_a_player_undoes_their_own_last_move_alone_when_nothing_followed(service):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 3", 1)
    event = service.undo(created.game_id, token(created, 1))
    assert (event.seq, event.type, event.payload) == (
        3,
        "UndoDone",
        {"v": 1, "back_to": 1, "asked_by": 1, "agreed": []},
    )
    doc = service.state_at(created.game_id)
    assert (doc["seq"], doc["pile"], doc["turn"]) == (3, 10, 1)
    assert outbox(service, created.game_id)[-1] == (3, "your_turn", 1, "p1@example.com")


def test_undone_events_stay_in_the_log_and_folding_skips_them(service):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 3", 1)
    service.undo(created.game_id, token(created, 1))
    service.submit_action(created.game_id, token(created, 1), "take 1", 3)
    with service.db.read() as s:
        types = [e.type for e in log.events(s, created.game_id)]
    assert types == ["GameCreated", "ActionTaken", "UndoDone", "ActionTaken"]
    assert service.state_at(created.game_id)["pile"] == 9
    assert service.state_at(created.game_id, 2)["pile"] == 7  # history shows what was
    assert service.export_log(created.game_id)["actions"] == [{"seat": 1, "action": "take 1"}]
    assert service.verify(created.game_id) == []


def test_once_another_event_followed_the_others_must_agree(service):
    created = nim(service, players=3)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    request = service.undo(created.game_id, token(created, 1))
    assert request.type == "UndoRequested"
    assert request.payload == {"v": 1, "seat": 1, "back_to": 1}
    assert [row[1:3] for row in outbox(service, created.game_id)[-2:]] == [
        ("undo_request", 2),
        ("undo_request", 3),
    ]
    first = service.answer_undo(created.game_id, token(created, 2), True)
    assert first.type == "UndoAnswered"
    assert service.state_at(created.game_id)["pile"] == 7  # not yet
    done = service.answer_undo(created.game_id, token(created, 3), True)
    assert done.type == "UndoDone"
    assert done.payload == {"v": 1, "back_to": 1, "asked_by": 1, "agreed": [2, 3]}
    doc = service.state_at(created.game_id)
    assert (doc["pile"], doc["turn"]) == (10, 1)


def test_one_refusal_closes_the_request_and_nothing_is_undone(service):
    created = nim(service)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    service.undo(created.game_id, token(created, 1))
    refused = service.answer_undo(created.game_id, token(created, 2), False)
    assert refused.payload["agree"] is False
    assert service.state_at(created.game_id)["pile"] == 7
    with pytest.raises(BadRequest, match="no undo request is waiting"):
        service.answer_undo(created.game_id, token(created, 2), True)


def test_a_move_that_drew_a_tile_from_the_supply_needs_agreement(service):
    created = two_players(service, SHORT)
    service.submit_action(created.game_id, token(created, 1), "money L", 1)  # draws Y03
    request = service.undo(created.game_id, token(created, 1))
    assert request.type == "UndoRequested"
    service.answer_undo(created.game_id, token(created, 2), True)
    doc = service.state_at(created.game_id)
    assert doc["dispenser"]["L"] == ["Y01", "B01", "G01", "R13"]
    assert doc["supply"] == 4 and doc["turn"] == 1


@pytest.mark.parametrize(
    ("who", "message"),
    [(1, "you asked for this undo"), (2, "already answered")],
)
def test_an_answer_from_the_asker_or_a_second_answer_is_refused(service, who, message):
    created = nim(service, players=3)
    service.submit_action(created.game_id, token(created, 1), "take 2", 1)
    service.submit_action(created.game_id, token(created, 2), "take 1", 2)
    service.undo(created.game_id, token(created, 1))
    service.answer_undo(created.game_id, token(created, 2), True)
    with pytest.raises(BadRequest, match=message):
        service.answer_undo(created.game_id, token(created, who), True)


def test_there_is_nothing_to_undo_before_your_first_move(service):
    created = nim(service)
    with pytest.raises(BadRequest, match="no move to take back"):
        service.undo(created.game_id, token(created, 1))
