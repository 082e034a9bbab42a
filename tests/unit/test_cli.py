"""The `pbem` command line (docs/design.md contract): replay with its state document, exit
status and refusal line; simulate with its summary and replayable logs; demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main

SUPPLY = ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"]
SETUP = {
    "players": ["Ann", "Ben"],
    "supply": SUPPLY,
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}


def write_log(tmp_path: Path, actions, setup=SETUP) -> Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "pbem.mall/1", "setup": setup, "actions": actions}))
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_replay_json_prints_the_state_document_after_all_actions(tmp_path):
    log = write_log(
        tmp_path,
        [{"seat": 1, "action": "build L1 at 0,2"}, {"seat": 2, "action": "money R"}],
    )
    result = run("replay", str(log), "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["seq"] == 3
    assert doc["status"] == "playing"
    assert doc["round"] == 2 and doc["turn"] == 1
    assert doc["bank"] == 0
    assert doc["supply"] == 2
    assert doc["dispenser"] == {
        "L": ["B01", "G01", "R13", "Y03"],
        "R": ["B02", "G02", "R01", "B03"],
    }
    assert doc["end_triggered"] is False and doc["winners"] is None
    ann, ben = doc["players"]
    assert ann["tiles"][1] == {"id": "Y01", "kind": "food", "cells": [[0, 2]]}
    assert ann["customers"][0] == {"id": "M1.1", "want": "food", "on": "Y01", "satisfied": True}
    assert ann["secret"] is None and ben["secret"] is None  # a spectator's view
    assert ben["money"] == 4


def test_replay_at_n_stops_after_n_actions_and_lists_legal_actions(tmp_path):
    log = write_log(tmp_path, [{"seat": 1, "action": "money L"}, {"seat": 2, "action": "pass"}])
    result = run("replay", str(log), "--at", "1", "--json", "--legal")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["seq"] == 2 and doc["turn"] == 2
    # Ben still has only the Main Entrance, 3 notes and a full Dispenser: both money
    # actions, then every slot on (0,2) or (1,2) above it, and no pass
    builds = [f"build {c}{r} at {x},2" for c in "LR" for r in range(1, 5) for x in (0, 1)]
    assert doc["legal"] == ["money L", "money R", *builds]


def test_replay_stops_at_an_illegal_action_with_status_2_and_one_line(tmp_path):
    log = write_log(
        tmp_path,
        [
            {"seat": 1, "action": "money L"},
            {"seat": 2, "action": {"type": "build", "slot": "L4", "x": 0, "y": 5}},
        ],
    )
    result = run("replay", str(log))
    assert result.exit_code == 2
    assert result.output == (
        'action 2 (seat 2, "{"type":"build","slot":"L4","x":0,"y":5}"): '
        "(0,5) would float: nothing below supports it\n"
    )


def test_replay_refuses_an_entry_for_the_wrong_seat(tmp_path):
    log = write_log(tmp_path, [{"seat": 2, "action": "money L"}])
    result = run("replay", str(log))
    assert result.exit_code == 2
    assert result.output == 'action 1 (seat 2, "money L"): not seat 2\'s turn\n'


def test_console_script_exit_status_and_stderr(tmp_path):
    log = write_log(tmp_path, [{"seat": 1, "action": "build L1 at 5,5"}])
    proc = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "replay", str(log)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        'action 1 (seat 1, "build L1 at 5,5"): (5,5) would float: nothing below supports it\n'
    )


def test_replay_reports_a_broken_log_without_a_traceback(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "pbem.mall/9", "setup": {}}')
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert "unknown log format 'pbem.mall/9'" in result.output


def test_replay_human_output_draws_each_mall_floor_by_floor(tmp_path):
    log = write_log(tmp_path, [{"seat": 1, "action": "build L1 at 0,2"}])
    result = run("replay", str(log))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    floor2 = lines.index("  2 | Y01*  .")  # Y01 on (0,2), its customer (*) on it
    assert lines[floor2 + 1] == "  1 |  M1   M1"


def test_simulate_prints_a_summary_and_writes_replayable_logs(tmp_path):
    out = tmp_path / "logs"
    result = run(
        "simulate",
        "--players",
        "3",
        "--games",
        "2",
        "--bot",
        "greedy,random",
        "--seed",
        "t",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "2 games of 3 players (greedy, random, greedy), seed t" in result.output
    for label in [
        "turns per player",
        "satisfied customers",
        "scores",
        "attractions built",
        "wins by seat",
        "wins by bot",
        "seconds per game",
    ]:
        assert label in result.output
    logs = sorted(out.glob("*.json"))
    assert [p.name for p in logs] == ["game-0001.json", "game-0002.json"]
    replayed = run("replay", str(logs[0]), "--json")
    assert replayed.exit_code == 0
    assert json.loads(replayed.output)["status"] == "finished"


def test_demo_plays_a_whole_bot_game_turn_by_turn():
    result = run("demo", "--players", "2", "--seed", "demo")
    assert result.exit_code == 0, result.output
    assert "Round 1, seat 1 (Greedy 1):" in result.output
    assert "Winner: Greedy" in result.output
    assert "The seed was 'demo'." in result.output


# -- the games' own commands: a part of each game's package -------------------------------

CLI = Path(__file__).parents[2] / "pbem" / "cli"


def test_each_games_commands_are_its_group_and_the_first_games_also_at_the_top(tmp_path):
    log = write_log(tmp_path, [{"seat": 1, "action": "build L1 at 0,2"}])
    top, own = run("replay", str(log), "--json"), run("mall", "replay", str(log), "--json")
    assert top.exit_code == own.exit_code == 0, (top.output, own.output)
    assert top.output == own.output
    assert json.loads(own.output)["seq"] == 2
    listed = run("--help").output
    assert "  mall " in listed and "  replay " in listed and "  simulate " in listed
    assert "  nim " not in listed  # nim has no commands of its own
    assert run("nim", "replay", str(log)).exit_code == 2  # no such command


def test_the_command_line_names_no_game_and_imports_from_no_game_package():
    import ast

    for path in sorted(CLI.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert "mall" not in source.lower(), path.name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("pbem.games."), (path.name, node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("pbem.games.") for a in node.names), path.name


def test_pbem_help_starts_no_server_part():
    script = (
        "import sys\n"
        "from pbem.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit as done:\n"
        "    print('exit', done.code)\n"
        "print(sorted(m for m in ('pbem.bootstrap', 'pbem.service', 'sqlalchemy', 'flask',"
        " 'celery') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-2:] == ["exit 0", "[]"], proc.stderr
    assert "  game " in proc.stdout and "  worker " in proc.stdout


def test_the_help_listing_says_what_each_server_command_says_of_itself():
    from click import Context

    from pbem.cli import SERVER_COMMANDS

    context = Context(main)
    for name, (_, _, said) in SERVER_COMMANDS.items():
        command = main.get_command(context, name)
        assert command is not None and command.name == name
        first = " ".join((command.help or "").split()).partition(". ")[0].rstrip(".") + "."
        assert said == first, name


def test_the_bot_seats_offered_are_the_games_bots():
    from pbem.games import GAMES

    shown = " ".join(run("game", "create", "--help").output.split())
    bots = {bot for name in GAMES for bot in GAMES[name].bots}
    assert bots == {"greedy", "random", "hold"}
    for bot in bots:
        assert f'"bot:{bot}"' in shown
    assert "[default: mall]" in shown  # the first registered game
