"""`pbem chain-check`: a viewer checks a saved chain answer (or one fetched from a
URL) with no database; exit 0 when it holds, 1 when not, 2 when unreadable."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbem.cli import main

from support import SHORT, token, two_players


def _saved(service, tmp_path, viewer=None):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.say(game, token(created, 1), "my card is O3")
    service.set_language(game, token(created, 2), "de")
    answer = service.chain(game, viewer)
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(answer), encoding="utf-8")
    return path, answer, service.state_at(game, seat=viewer)["head_hash"]


def test_a_saved_answer_that_holds_exits_0_and_says_so(service, tmp_path):
    path, _answer, head = _saved(service, tmp_path, viewer=1)  # Ann sees her own line
    result = CliRunner().invoke(main, ["chain-check", str(path), "--head", head])
    assert result.exit_code == 0, result.output
    assert f"chain version 2: 3 events link to the head {head}; 1 checked in full" in result.output


def test_a_forged_answer_or_another_head_exits_1_naming_the_problem(service, tmp_path):
    path, answer, _head = _saved(service, tmp_path, viewer=1)
    answer["events"][1]["payload"]["text"] = "my card is O4"
    path.write_text(json.dumps(answer), encoding="utf-8")
    result = CliRunner().invoke(main, ["chain-check", str(path)])
    assert result.exit_code == 1
    assert "seq 2: its fields and salt do not give its commitment" in result.output
    path, _, _ = _saved(service, tmp_path)
    other = CliRunner().invoke(main, ["chain-check", str(path), "--head", "c" * 64])
    assert other.exit_code == 1 and "not the head you saw" in other.output


def test_an_unreadable_source_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff{not json")
    for source in (str(bad), str(tmp_path / "missing.json"), "http://127.0.0.1:9/chain"):
        result = CliRunner().invoke(main, ["chain-check", source])
        assert result.exit_code == 2, (source, result.output)
        assert "cannot read" in result.output
