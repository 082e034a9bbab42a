"""`pbem game verify --all`: every game's chain and read models, read a chunk of ids
at a time; exit 1 naming each game that fails with its reason, 0 when all pass; the
progress bar only on a terminal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from pbem.cli import main
from pbem.service import PlayerSpec, admin

from support import token, two_players


@pytest.fixture
def verify_all(database_url, tmp_path):
    env = {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "test-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
    }

    def run(*args: str, expect: int):
        result = CliRunner().invoke(main, ["game", "verify", *args], env=env)
        assert result.exit_code == expect, (result.stdout, result.stderr)
        return result

    return run


def games(service, count: int) -> list[str]:
    """`count` games, mall and nim, some with moves."""
    made = []
    for n in range(count):
        if n % 2:
            created = service.create_game(
                [PlayerSpec("X"), PlayerSpec("Y")], None, {"pile": 9}, game="nim"
            )
            service.submit_action(created.game_id, token(created, 1), "take 2", 1)
        else:
            created = two_players(service, {"seed": f"verify all {n}"})
            service.submit_action(created.game_id, token(created, 1), "money L", 1)
        made.append(created.game_id)
    return made


def test_every_sound_game_passes(service, verify_all):
    games(service, 5)
    result = verify_all("--all", expect=0)
    assert result.stdout == "5 games: every hash chain holds and every event folds\n"
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_the_games_that_fail_are_named_each_with_its_reason(service, verify_all, database_url):
    made = games(service, 7)
    tampered, wrong_row, no_row = made[1], made[2], made[4]
    with service.db.writing() as conn:  # someone with database access changes rows
        if database_url.startswith("sqlite"):
            conn.execute(text("DROP TRIGGER events_no_update"))
        else:
            conn.execute(text("ALTER TABLE events DISABLE TRIGGER events_immutable"))
        conn.execute(
            text("UPDATE events SET actor = 'someone else' WHERE game_id = :g AND seq = 2"),
            {"g": tampered},
        )
        conn.execute(text("UPDATE games SET round = 99 WHERE id = :g"), {"g": wrong_row})
        conn.execute(text("DELETE FROM seats WHERE game_id = :g"), {"g": no_row})
        conn.execute(text("DELETE FROM games WHERE id = :g"), {"g": no_row})
    result = verify_all("--all", expect=1)
    named = sorted((tampered, wrong_row, no_row))
    assert result.stderr.splitlines()[-1] == f"3 of 7 games fail: {', '.join(named)}"
    lines = result.stderr.splitlines()[:-1]
    assert {line.split(":")[0] for line in lines} == {f"game {g}" for g in named}
    assert any(line.startswith(f"game {tampered}: ") and "hash" in line for line in lines)
    assert any(line.startswith(f"game {wrong_row}: ") and "round" in line for line in lines)
    assert any(line.startswith(f"game {no_row}: ") for line in lines)
    assert result.stdout == ""


def test_the_games_are_read_a_chunk_at_a_time(service):
    made = games(service, 5)
    chunks: list[int] = []
    assert list(admin.verify_every(service, chunk=2, done=chunks.append)) == []
    assert chunks == [2, 2, 1]
    assert admin.game_ids(service.db, "", 2) == sorted(made)[:2]
    assert admin.game_ids(service.db, sorted(made)[1], 10) == sorted(made)[2:]


def test_one_game_or_all_but_not_both(service, verify_all):
    (game,) = games(service, 1)
    assert "name one GAME_ID, or give --all" in verify_all(expect=2).stderr
    assert "name one GAME_ID, or give --all" in verify_all(game, "--all", expect=2).stderr
    assert verify_all(game, expect=0).stdout.startswith(f"game {game}: the hash chain holds")
