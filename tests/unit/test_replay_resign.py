"""`pbem replay` of a log with resignations (its "resigned" key): each folded where
the log puts it, through the game's rules; a malformed entry exits 1, one the game
refuses where it stands exits 2 with one line naming it as an action is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.games.nim import GAME as NIM
from pbem.games.resignations import Resignation, ResignationError, apply, read

SETUP = {
    "players": ["Ann", "Ben"],
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}
ACTIONS = [{"seat": 1, "action": "money L"}, {"seat": 2, "action": "money L"}]


def replay(tmp_path: Path, resigned, *args: str, actions=ACTIONS):
    path = tmp_path / "game.json"
    doc = {"format": "pbem.mall/1", "setup": SETUP, "actions": actions, "resigned": resigned}
    path.write_text(json.dumps(doc))
    return CliRunner().invoke(main, ["replay", str(path), *args])


def test_a_bot_takes_the_seat_then_the_last_person_ends_the_game(tmp_path):
    resigned = [{"seat": 2, "after": 1, "bot": "greedy"}, {"seat": 1, "after": 2, "bot": None}]
    result = replay(tmp_path, resigned, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    # GameCreated, two actions, two resignations
    assert (doc["seq"], doc["status"], doc["turn"]) == (5, "finished", None)
    assert doc["winners"] and doc["players"][1]["secret"] == "O5"  # shown once it ended


def test_at_n_folds_only_the_resignations_of_its_first_n_actions(tmp_path):
    resigned = [{"seat": 2, "after": 1, "bot": "greedy"}, {"seat": 1, "after": 2, "bot": None}]
    result = replay(tmp_path, resigned, "--json", "--at", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert (doc["seq"], doc["status"], doc["turn"]) == (3, "playing", 2)
    human = replay(tmp_path, resigned, "--at", "1")
    assert human.output.startswith("After 1 actions (seq 3).")


def test_a_bot_for_the_last_person_stops_with_status_2(tmp_path):
    # with only a bot left at the table, the mall ends: no bot takes the last seat
    resigned = [{"seat": 2, "after": 0, "bot": "greedy"}, {"seat": 1, "after": 1, "bot": "greedy"}]
    result = replay(tmp_path, resigned)
    assert result.exit_code == 2
    assert result.output == (
        'resignation 2 (seat 1, after 1 actions): it ends the game here, so "bot" is null\n'
    )


def test_an_action_after_the_game_ended_by_resigning_stops_with_status_2(tmp_path):
    resigned = [{"seat": 2, "after": 0, "bot": "greedy"}, {"seat": 1, "after": 1, "bot": None}]
    result = replay(tmp_path, resigned)
    assert result.exit_code == 2
    assert result.output == 'action 2 (seat 2, "money L"): the game is over\n'
    twice = [{"seat": 2, "after": 0, "bot": "greedy"}, {"seat": 2, "after": 1, "bot": None}]
    result = replay(tmp_path, twice)
    assert result.exit_code == 1 and "seat 2 resigned already" in result.output


@pytest.mark.parametrize(
    ("resigned", "message"),
    [
        ({"seat": 2}, '"resigned" is a list of {"seat", "after", "bot"} entries'),
        ([{"seat": 3, "after": 0, "bot": None}], 'resignation 1: "seat" is a seat, 1 to 2'),
        ([{"seat": 1, "after": 3, "bot": None}], '"after" is a number of actions, 0 to 2'),
        ([{"seat": 1, "after": 0, "bot": "deep-blue"}], '"bot" is null (the game ended) or a bot'),
        ([{"seat": 1, "after": 0}], 'resignation 1: "resigned" is a list of'),
    ],
)
def test_a_malformed_resignation_exits_1_without_a_traceback(tmp_path, resigned, message):
    result = replay(tmp_path, resigned)
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_read_keeps_the_order_and_refuses_going_back_in_time():
    given = [{"seat": 2, "after": 0, "bot": "greedy"}, {"seat": 3, "after": 4, "bot": None}]
    assert read(given, 3, 4, ("greedy", "random")) == [
        Resignation(1, 2, 0, "greedy"),
        Resignation(2, 3, 4, None),
    ]
    assert read(None, 3, 4, ("greedy",)) == []
    with pytest.raises(ResignationError, match="in the order they happened"):
        read(given[::-1], 3, 4, ("greedy",))


def test_apply_follows_the_games_own_answer():
    two = NIM.setup(["A", "B"], {"pile": 9})
    ended = apply(NIM, two, Resignation(1, 1, 0, None), 2, [])
    assert ended.turn is None and ended.winner == 2
    with pytest.raises(ResignationError, match="the game is over"):
        apply(NIM, ended, Resignation(2, 2, 0, None), 2, [Resignation(1, 1, 0, None)])
    three = NIM.setup(["A", "B", "C"], {"pile": 9})
    assert apply(NIM, three, Resignation(1, 2, 0, "greedy"), 3, []) == three
    with pytest.raises(ResignationError, match="a bot plays the seat on here"):
        apply(NIM, three, Resignation(1, 2, 0, None), 3, [])
