"""An imported log names the seat of every action (the log format, docs/games/mall.md section
12): a missing seat, or one that is not a seat number, refuses the whole file rather
than storing a move by nobody."""

import pytest

from pbem.service.errors import BadRequest
from pbem.store import log

NIM_SEED = "n" * 40


def _nim_log(*actions: dict) -> dict:
    return {
        "format": "pbem.nim/1",
        "setup": {"players": ["Ann", "Ben"], "pile": 10, "seed": NIM_SEED},
        "actions": list(actions),
    }


def _stored_seats(service, game_id: str) -> list:
    with service.db.reading() as conn:
        return [e.payload["seat"] for e in log.events(conn, game_id) if "action" in e.payload]


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"action": "take 2"}, "no seat"),
        ({"action": "take 2", "seat": None}, "no seat"),
        ({"action": "take 2", "seat": True}, "a boolean for seat 1"),
        ({"action": "take 2", "seat": 1.0}, "a fraction"),
    ],
)
def test_an_imported_action_without_a_seat_number_refuses_the_log(service, entry, why):
    games_before = len(service.games())
    with pytest.raises(BadRequest) as refused:
        service.import_log(_nim_log(entry))
    assert refused.value.message == (
        'action 1 ("take 2"): name the seat that played it, as a number ("seat": 1)'
    ), why
    assert len(service.games()) == games_before


def test_a_later_action_without_a_seat_refuses_the_whole_log(service):
    games_before = len(service.games())
    with pytest.raises(BadRequest, match=r'^action 2 \("take 1"\): name the seat'):
        service.import_log(_nim_log({"action": "take 2", "seat": 1}, {"action": "take 1"}))
    assert len(service.games()) == games_before


def test_an_imported_log_stores_each_action_with_its_seat(service):
    created = service.import_log(
        _nim_log({"action": "take 2", "seat": 1}, {"action": "take 1", "seat": 2})
    )
    assert _stored_seats(service, created.game_id) == [1, 2]
    assert [a["seat"] for a in service.export_log(created.game_id)["actions"]] == [1, 2]
