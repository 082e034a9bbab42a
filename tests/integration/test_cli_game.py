"""`pbem db` and `pbem game` (docs/design.md contract) on the database PBEM_DATABASE_URL
names: create, show, play, export, import (the new id alone on the last line) and
verify (exit 0 only when the chain holds and every event folds)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from alembic.script import ScriptDirectory
from click.testing import CliRunner
from sqlalchemy import text

from pbem.cli import main
from pbem.games.mall import setup
from pbem.games.mall.render import tile_words
from pbem.store import migrate
from pbem.store.database import Database


@pytest.fixture
def pbem(database_url, tmp_path):
    env = {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "cli-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
    }

    def run(*args: str, expect: int = 0) -> str:
        result = CliRunner().invoke(main, list(args), env=env)
        assert result.exit_code == expect, result.output
        return result.output

    run.env = env
    return run


def create(pbem) -> tuple[str, dict[int, str]]:
    output = pbem(
        "game", "create", "--seat", "Ann <ann@example.com>", "--seat", "Ben", "--seed", "cli game"
    )
    game_id = re.search(r"created game (\w+)", output)[1]
    tokens = {int(s): t for s, t in re.findall(r"seat (\d): .*token (\S+)", output)}
    assert sorted(tokens) == [1, 2]
    assert f"http://127.0.0.1:5000/g/{game_id}/{tokens[1]}" in output
    return game_id, tokens


def test_db_upgrade_reports_the_revision(pbem):
    newest = ScriptDirectory(str(migrate.SCRIPTS)).get_current_head()
    assert newest is not None and re.fullmatch(r"\d{4}", newest)
    assert pbem("db", "upgrade") == f"database at revision {newest}\n"


def test_create_play_show_and_refusals(pbem):
    game_id, tokens = create(pbem)
    dealt = setup(["Ann", "Ben"], seed="cli game")
    first = tile_words(dealt.dispenser[0][0], dealt.content)  # the tile in L1, by name
    assert pbem("game", "play", game_id, "money L", "--token", tokens[1]) == (
        f"seq 2: {first} from L1 as money, gaining 1 note\n"
    )
    refused = pbem("game", "play", game_id, "build L1 at 7,7", "--token", tokens[2], expect=2)
    assert refused == "refused: (7,7) would float: nothing below supports it\n"
    stale = pbem(
        "game", "play", game_id, "money R", "--token", tokens[2], "--expected-seq", "1", expect=3
    )
    assert stale.startswith("refused: the game has moved on: you saw seq 1, it is now at seq 2")
    doc = json.loads(pbem("game", "show", game_id, "--json", "--token", tokens[1]))
    assert (doc["seq"], doc["turn"], doc["players"][0]["money"]) == (2, 2, 4)
    ann_secret = setup(["Ann", "Ben"], seed="cli game").player(1).secret  # Ann's own card
    assert doc["players"][0]["secret"] == ann_secret and doc["players"][1]["secret"] is None
    shown = pbem("game", "show", game_id, "--history")
    assert f"   2  Ann played {first} from L1 as money, gaining 1 note" in shown
    assert pbem("game", "list").startswith(f"{game_id}  mall  playing   round 1  seat 2 to move")


def test_export_then_import_prints_the_new_id_alone_on_the_last_line(pbem, tmp_path):
    game_id, tokens = create(pbem)
    pbem("game", "play", game_id, "money L", "--token", tokens[1])
    exported = json.loads(pbem("game", "export", game_id))
    assert "seed" not in exported["setup"]  # redacted while the game runs
    exported["setup"]["seed"] = "cli game"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(exported))
    proc = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "game", "import", str(path)],
        capture_output=True,
        text=True,
        env={**pbem.env, "PATH": ""},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    new_id = proc.stdout.splitlines()[-1]
    assert re.fullmatch(r"[a-z2-7]{16}", new_id) and new_id != game_id
    again = json.loads(pbem("game", "show", new_id, "--json"))
    assert again["seq"] == 2 and again["players"][0]["money"] == 4


def test_verify_exits_0_on_a_sound_game_and_1_on_a_tampered_one(pbem, database_url):
    game_id, tokens = create(pbem)
    pbem("game", "play", game_id, "money L", "--token", tokens[1])
    assert "the hash chain holds and every event folds" in pbem("game", "verify", game_id)
    database = Database(database_url)
    with database.write() as s:
        connection = s.connection()
        if database_url.startswith("sqlite"):
            connection.execute(text("DROP TRIGGER events_no_update"))
        else:
            connection.execute(text("ALTER TABLE events DISABLE TRIGGER events_immutable"))
        connection.execute(
            text("UPDATE events SET actor = 'seat:2' WHERE game_id = :g AND seq = 2"),
            {"g": game_id},
        )
    database.dispose()
    output = pbem("game", "verify", game_id, expect=1)
    assert "seq 2: the stored hash does not match its contents" in output
    assert "1 problems" in output


def test_game_commands_on_an_unmigrated_database_say_what_to_run(tmp_path):
    result = CliRunner().invoke(
        main,
        ["game", "list"],
        env={"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'new.sqlite3'}", "PBEM_SECRET_KEY": "k"},
    )
    assert result.exit_code == 1
    assert "run `pbem db upgrade`" in result.output


def test_without_a_secret_key_outside_dev_mode_the_commands_refuse(tmp_path, database_url):
    result = CliRunner().invoke(
        main, ["game", "list"], env={"PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": ""}
    )
    assert result.exit_code == 1
    assert "PBEM_SECRET_KEY must be set" in result.output


def test_db_rebuild_recreates_the_read_models_from_the_events(pbem):
    game_id, tokens = create(pbem)
    pbem("game", "play", game_id, "money L", "--token", tokens[1])
    before = json.loads(pbem("game", "show", game_id, "--json"))
    assert pbem("db", "rebuild") == "rebuilt the read models and snapshots of 1 game\n"
    assert json.loads(pbem("game", "show", game_id, "--json")) == before


def test_a_chosen_setup_is_marked_on_create_and_on_import(pbem, tmp_path):
    chosen = pbem("game", "create", "--seat", "Ann", "--seat", "Ben", "--seed", "cli game")
    assert "the setup was chosen" in chosen
    chosen_id = re.search(r"created game (\w+)", chosen)[1]
    assert json.loads(pbem("game", "export", chosen_id))["game"]["setup_chosen"] is True
    drawn = pbem("game", "create", "--seat", "Ann", "--seat", "Ben")
    assert "the setup was chosen" not in drawn
    drawn_id = re.search(r"created game (\w+)", drawn)[1]
    assert json.loads(pbem("game", "export", drawn_id))["game"]["setup_chosen"] is False
    path = tmp_path / "log.json"
    path.write_text(
        json.dumps({"format": "pbem.mall/1", "setup": {"players": ["A", "B"], "seed": "4711"}})
    )
    imported = pbem("game", "import", str(path))
    assert "the setup was chosen" in imported
    new_id = imported.splitlines()[-1]
    assert json.loads(pbem("game", "export", new_id))["game"]["setup_chosen"] is True


def test_create_names_the_game_and_refuses_a_name_of_nothing_visible(pbem):
    pbem("db", "upgrade")
    made = pbem("game", "create", "--seat", "Ann", "--seat", "Ben", "--name", "Friday night")
    game_id = re.search(r"created game (\w+)", made)[1]
    database = Database(pbem.env["PBEM_DATABASE_URL"])
    with database.engine.connect() as conn:
        name = conn.execute(text("SELECT name FROM games WHERE id = :g"), {"g": game_id})
        assert name.scalar_one() == "Friday night"
    database.dispose()
    refused = pbem("game", "create", "--seat", "Ann", "--seat", "Ben", "--name", "\u200b", expect=1)
    assert "a name needs a character one can see" in refused


def test_show_tells_a_private_line_to_its_readers_alone(pbem, database_url):
    from pbem.bootstrap import build
    from pbem.config import load_settings

    output = pbem(
        "game", "create", "--game", "nim", "--option", "press=private",
        "--seat", "Ann", "--seat", "Ben", "--seat", "Cy",
    )  # fmt: skip
    game_id = re.search(r"created game (\w+)", output)[1]
    tokens = {int(s): t for s, t in re.findall(r"seat (\d): .*token (\S+)", output)}
    instance = {"PBEM_INSTANCE_DIR": pbem.env["PBEM_INSTANCE_DIR"]}
    parts = build(load_settings(instance, database_url=database_url, secret_key="cli-secret"))
    try:
        parts.service.say(game_id, tokens[1], "meet me at the fountain", [2])
    finally:
        parts.database.dispose()
    told = pbem("game", "show", game_id, "--history", "--token", tokens[2])
    assert "Ann said privately to you: meet me at the fountain" in told
    for seat in ([], ["--token", tokens[3]]):
        assert "fountain" not in pbem("game", "show", game_id, "--history", *seat)
