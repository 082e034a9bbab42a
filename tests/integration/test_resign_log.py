"""Resignations in the game log file: the export carries them ("resigned"), the
import applies them where they happened (the same SeatResigned events, controllers
and final state as the game played), `pbem replay` folds them, and a hostile entry
is refused with a clear message before anything is stored."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hidden import shows

from pbem.cli import main
from pbem.events import SeatResigned
from pbem.service import BadRequest, PlayerSpec
from pbem.store import log

from support import SHORT, token

ANN, BEN = PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")
CAT = PlayerSpec("Cat", "cat@example.com")
# a longer supply than SHORT's, so that the game runs on after a resignation
LONGER = {
    "supply": [f"{colour}{n:02d}" for n in range(1, 8) for colour in "YBGR"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5", "3": "O1"},
}


def people_move(service, made, times: int | None = None) -> None:
    """The people to move take their first legal action (the bots play their turns
    in between), `times` moves or to the end."""
    while times is None or times > 0:
        service.play_bots(made.game_id)
        doc = service.state_at(made.game_id)
        if doc["turn"] is None:
            return
        seat = doc["turn"]
        action = service.legal(made.game_id, seat)[0]
        service.submit_action(made.game_id, token(made, seat), action, doc["seq"])
        times = None if times is None else times - 1


def resignations(service, game_id: str) -> list[tuple[int, str]]:
    """(seat, replaced_by) of the game's SeatResigned events, in order."""
    with service.db.read() as s:
        events = log.events(s, game_id)
    return [
        (e.payload["seat"], e.payload["replaced_by"]) for e in events if e.type == SeatResigned.TYPE
    ]


def same_game(service, played: str, imported: str) -> None:
    """The imported game is the played one: the same head state for every viewer,
    the same resignations, the same controllers, and the same log file."""
    for seat in (None, 1, 2):
        docs = [service.state_at(g, seat=seat) for g in (played, imported)]
        for doc in docs:
            del doc["id"], doc["head_hash"]  # another game: another id and hash chain
        assert docs[1] == docs[0]
    assert resignations(service, imported) == resignations(service, played)
    bots = {g: [link.token is None for link in service.seat_links(g)] for g in (played, imported)}
    assert bots[imported] == bots[played]
    first, again = service.export_log(played), service.export_log(imported)
    assert {k: v for k, v in again.items() if k != "game"} == {
        k: v for k, v in first.items() if k != "game"
    }
    assert again["game"]["status"] == first["game"]["status"]
    assert service.verify(played) == [] and service.verify(imported) == []


def test_a_mall_game_where_a_bot_played_a_resigned_seat_exports_and_imports(service, tmp_path):
    made = service.create_game([ANN, BEN, CAT], None, LONGER)
    people_move(service, made, 4)
    service.resign(made.game_id, token(made, 2))
    people_move(service, made, 2)
    running = service.export_log(made.game_id, 1)
    assert running["game"]["status"] == "playing"
    assert running["resigned"] == [{"seat": 2, "after": 4, "bot": "greedy"}]
    assert not shows(json.dumps(running), "O5")  # the resigned seat's card stays hidden
    assert "seed" not in running["setup"] and "supply" not in running["setup"]
    people_move(service, made)

    exported = service.export_log(made.game_id)
    assert exported["resigned"] == [{"seat": 2, "after": 4, "bot": "greedy"}]
    assert any(a["seat"] == 2 for a in exported["actions"][4:])  # the bot's moves
    imported = service.import_log(exported).game_id
    assert service.state_at(imported)["status"] == "finished"
    same_game(service, made.game_id, imported)
    assert resignations(service, imported) == [(2, "bot:greedy")]
    before = service.state_at(imported)
    assert service.rebuild() >= 2
    assert service.state_at(imported) == before and service.verify(imported) == []

    path = tmp_path / "mall.json"
    path.write_text(json.dumps(exported))
    replayed = CliRunner().invoke(main, ["replay", str(path), "--json"])
    assert replayed.exit_code == 0, replayed.output
    doc = json.loads(replayed.output)
    assert doc["seq"] == before["seq"] and doc["status"] == "finished"
    assert doc["winners"] == before["winners"]
    assert [p["score"] for p in doc["players"]] == [p["score"] for p in before["players"]]


def test_a_mall_game_its_last_person_ended_by_resigning_imports_finished(service, tmp_path):
    made = service.create_game([ANN, BEN], None, {**LONGER, "secrets": SHORT["secrets"]})
    people_move(service, made, 3)
    service.resign(made.game_id, token(made, 2))  # a bot plays on: Ann is still there
    people_move(service, made, 2)
    service.resign(made.game_id, token(made, 1))  # only a bot left: the game ends
    exported = service.export_log(made.game_id)
    assert [r["bot"] for r in exported["resigned"]] == ["greedy", None]
    imported = service.import_log(exported).game_id
    assert service.state_at(imported)["status"] == "finished"
    same_game(service, made.game_id, imported)

    path = tmp_path / "mall.json"
    path.write_text(json.dumps(exported))
    replayed = CliRunner().invoke(main, ["replay", str(path), "--json"])
    assert replayed.exit_code == 0, replayed.output
    doc = json.loads(replayed.output)
    head = service.state_at(made.game_id)
    assert (doc["seq"], doc["status"], doc["turn"]) == (head["seq"], "finished", None)
    assert doc["winners"] == head["winners"]


def test_a_nim_game_ended_by_a_resignation_imports_finished_with_its_winner(service):
    made = service.create_game([ANN, BEN], None, {"pile": 21}, game="nim")
    for seat, take in ((1, 2), (2, 3), (1, 1)):
        seq = service.state_at(made.game_id)["seq"]
        service.submit_action(made.game_id, token(made, seat), f"take {take}", seq)
    service.resign(made.game_id, token(made, 1))
    exported = service.export_log(made.game_id)
    assert exported["resigned"] == [{"seat": 1, "after": 3, "bot": None}]

    imported = service.import_log(exported).game_id
    doc = service.state_at(imported)
    assert doc["status"] == "finished" and doc["winners"] == [2] and doc["pile"] == 15
    same_game(service, made.game_id, imported)
    assert resignations(service, imported) == [(1, "")]


def test_a_log_without_resignations_is_exported_and_imported_as_before(service):
    made = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    service.submit_action(made.game_id, token(made, 1), "take 1", 1)
    exported = service.export_log(made.game_id)
    assert list(exported) == ["format", "setup", "actions", "chat", "game"]  # no "resigned"
    old = {"format": "pbem.nim/1", "setup": {"players": ["A", "B"], "pile": 5}, "actions": []}
    imported = service.import_log(old).game_id
    assert service.state_at(imported)["status"] == "playing"
    assert "resigned" not in service.export_log(imported)


NIM = {"format": "pbem.nim/1", "setup": {"players": ["A", "B", "C"], "pile": 9}}
TAKES = [{"seat": 1, "action": "take 1"}, {"seat": 2, "action": "take 1"}]


def entry(seat=1, after=1, bot="greedy", **more):
    return {"seat": seat, "after": after, "bot": bot, **more}


@pytest.mark.parametrize(
    ("players", "actions", "resigned", "message"),
    [
        (3, TAKES, "seat 1", '"resigned" is a list of {"seat", "after", "bot"} entries'),
        (3, TAKES, [7], 'resignation 1: "resigned" is a list of'),
        (3, TAKES, [entry(why="bored")], 'resignation 1: "resigned" is a list of'),
        (3, TAKES, [entry(seat=4)], 'resignation 1: "seat" is a seat, 1 to 3'),
        (3, TAKES, [entry(seat=True)], 'resignation 1: "seat" is a seat, 1 to 3'),
        (
            3,
            TAKES,
            [entry(after=3)],
            'resignation 1 (seat 1): "after" is a number of actions, 0 to 2',
        ),
        (3, TAKES, [entry(after=-1)], '"after" is a number of actions, 0 to 2'),
        (3, TAKES, [entry(after="1")], '"after" is a number of actions, 0 to 2'),
        (
            3,
            TAKES,
            [entry(bot="deep-blue")],
            '"bot" is null (the game ended) or a bot: greedy, random',
        ),
        (3, TAKES, [entry(bot="bot:greedy")], '"bot" is null (the game ended) or a bot'),
        (
            3,
            TAKES,
            [entry(seat=1, after=2), entry(seat=2, after=1)],
            "resignation 2 (seat 2, after 1 actions): the resignations are in the order they"
            " happened, and resignation 1 came after 2 actions",
        ),
        (
            3,
            TAKES,
            [entry(seat=3, after=0), entry(seat=3, after=2)],
            "resignation 2 (seat 3, after 2 actions): seat 3 resigned already",
        ),
        (
            3,
            TAKES,
            [entry(bot=None)],
            "resignation 1 (seat 1, after 1 actions): a bot plays the seat on here",
        ),
        (
            2,
            TAKES,
            [entry()],
            'resignation 1 (seat 1, after 1 actions): it ends the game here, so "bot" is null',
        ),
        (
            2,
            TAKES,
            [entry(seat=1, after=1, bot=None), entry(seat=2, after=1, bot=None)],
            "resignation 2 (seat 2, after 1 actions): the game is over",
        ),
        (
            2,
            TAKES,
            [entry(seat=2, after=1, bot=None)],
            'action 2 (seat 2, "take 1"): the game is over',
        ),
        (2, [{"seat": 1, "action": "take 3"}], [entry(after=1, bot=None)], "the game is over"),
        (
            2,
            TAKES,
            [entry(seat=s, after=0, bot=None) for s in (1, 2, 1)],
            '"resigned" has 3 entries',
        ),
    ],
)
def test_a_hostile_resignation_refuses_the_whole_file(service, players, actions, resigned, message):
    setup = {**NIM["setup"], "players": ["A", "B", "C"][:players]}
    if players == 2:
        setup["pile"] = 3 if actions[0]["action"] == "take 3" else 9
    doc = {**NIM, "setup": setup, "actions": actions, "resigned": resigned}
    games = len(service.games())
    with pytest.raises(BadRequest) as refused:
        service.import_log(doc)
    assert message in refused.value.message
    assert len(service.games()) == games  # nothing stored


def test_an_imported_seat_that_resigned_to_a_bot_is_played_by_it(service):
    doc = {**NIM, "actions": TAKES[:1], "resigned": [entry(seat=2, after=1)]}
    imported = service.import_log(doc).game_id
    links = service.seat_links(imported)
    assert [link.token is None for link in links] == [False, True, False]
    played = service.play_bots(imported)  # seat 2 is to move: its bot plays
    assert [(a.seat, a.action) for a in played] == [(2, "take 1")]


def test_the_cli_imports_and_verifies_a_resigned_game(pbem_env, tmp_path):
    path = tmp_path / "log.json"
    setup = {"players": ["A", "B"], "pile": 9}
    doc = {**NIM, "setup": setup, "actions": TAKES, "resigned": [entry(seat=1, after=2, bot=None)]}
    path.write_text(json.dumps(doc))
    imported = CliRunner().invoke(main, ["game", "import", str(path)], env=pbem_env)
    assert imported.exit_code == 0, imported.output
    game_id = imported.output.splitlines()[-1]
    shown = CliRunner().invoke(main, ["game", "show", game_id, "--json"], env=pbem_env)
    assert json.loads(shown.output)["winners"] == [2]
    verified = CliRunner().invoke(main, ["game", "verify", game_id], env=pbem_env)
    assert verified.exit_code == 0, verified.output


def test_the_cli_import_refuses_a_hostile_resignation_with_status_1(pbem_env, tmp_path):
    path = tmp_path / "log.json"
    doc = {**NIM, "actions": TAKES, "resigned": [entry(seat=9)]}
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["game", "import", str(path)], env=pbem_env)
    assert result.exit_code == 1
    assert 'refused: resignation 1: "seat" is a seat, 1 to 3' in result.output


@pytest.fixture
def pbem_env(database_url, tmp_path):
    return {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": "cli-secret",
        "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
    }
