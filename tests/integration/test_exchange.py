"""The log file (docs/design.md contract) out of and into the store: a finished game's
export carries the seed and replays to the same final state; a running game's
export is redacted for its viewer; an import checks every action first."""

from __future__ import annotations

import hashlib
import json

import pytest
from hidden import shows

from pbem.games.mall import view
from pbem.games.mall.logfile import read, replay
from pbem.service import BadRequest

from support import SHORT, play_out, token, two_players

POSITION = (
    "status",
    "round",
    "turn",
    "bank",
    "supply",
    "dispenser",
    "commons",
    "players",
    "winners",
    "end_triggered",
)


def same_position(a: dict, b: dict) -> None:
    for key in POSITION:
        assert a[key] == b[key], key


def test_a_finished_games_export_carries_the_seed_and_replays_to_the_same_state(service):
    created = two_players(service, {"seed": "exported"})
    play_out(service, created)
    doc = service.export_log(created.game_id)
    assert doc["format"] == "pbem.mall/1"
    assert doc["setup"]["seed"] == "exported"
    assert doc["setup"]["seed_sha256"] == hashlib.sha256(b"exported").hexdigest()
    assert doc["setup"]["players"] == ["Ann", "Ben"]
    result = replay(read(json.loads(json.dumps(doc))))
    assert result.refusal is None and result.state.finished
    final = service.state_at(created.game_id)
    same_position(view(result.state, None), final)


def test_importing_an_export_rebuilds_the_same_game(service):
    created = two_players(service, {"seed": "round trip"})
    play_out(service, created)
    imported = service.import_log(service.export_log(created.game_id))
    assert imported.game_id != created.game_id
    same_position(service.state_at(imported.game_id), service.state_at(created.game_id))
    assert service.verify(imported.game_id) == []


def test_a_running_games_export_hides_the_seed_the_supply_and_others_secrets(service):
    created = two_players(service, SHORT)
    service.submit_action(created.game_id, token(created, 1), "money L", 1)
    state = service.state_at(created.game_id)
    for seat, secrets in ((None, None), (1, {"1": "O3"}), (2, {"2": "O5"})):
        doc = service.export_log(created.game_id, seat)
        text = json.dumps(doc)
        assert "seed" not in doc["setup"] and "supply" not in doc["setup"]
        assert doc["setup"].get("secrets") == secrets
        assert doc["setup"]["commons"] == ["haunted-hotel", "aqua-dome"]
        for hidden in ("G03", "R02"):  # still in the supply
            assert hidden not in text
        assert doc["actions"] == [{"seat": 1, "action": "money L"}]
        assert doc["game"]["head_seq"] == state["seq"]


def test_an_import_with_an_illegal_action_is_refused_whole(service):
    doc = {
        "format": "pbem.mall/1",
        "setup": {"players": ["Ann", "Ben"], **SHORT},
        "actions": [{"seat": 1, "action": "money L"}, {"seat": 1, "action": "money R"}],
    }
    with pytest.raises(BadRequest, match=r'action 2 \(seat 1, "money R"\): not seat 1\'s turn'):
        service.import_log(doc)
    assert service.games() == []


def test_an_import_whose_seed_does_not_match_its_hash_is_refused(service):
    doc = {
        "format": "pbem.mall/1",
        "setup": {"players": ["Ann", "Ben"], "seed": "a", "seed_sha256": "0" * 64},
        "actions": [],
    }
    with pytest.raises(BadRequest, match="does not match its SHA-256"):
        service.import_log(doc)


def test_a_redacted_export_cannot_be_imported_before_the_end(service):
    created = two_players(service, {"seed": "secret seed"})
    with pytest.raises(BadRequest, match="without a seed"):
        service.import_log(service.export_log(created.game_id))


def test_the_text_position_hides_other_secrets(service):
    created = two_players(service, SHORT)
    text = service.describe(created.game_id, seat=1)
    assert "secret O3" in text and not shows(text, "O5")
