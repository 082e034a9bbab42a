"""Each game's answer to a resignation (`Game.on_resign`, `Game.resign`) and what a
rematch keeps of its setup (`Game.rematch_setup`)."""

from __future__ import annotations

from pbem.games import get
from pbem.games.base import default_on_resign


def test_the_usual_answer_is_a_bot_while_a_person_is_left():
    assert default_on_resign(1) == "bot" and default_on_resign(0) == "end"


def test_nim_of_two_ends_and_the_other_wins_of_more_a_bot_plays_on():
    nim = get("nim")
    two = nim.setup(["Ann", "Ben"], {"pile": 9})
    assert nim.on_resign(two, 1, 1) == "end" and nim.on_resign(two, 2, 0) == "end"
    ended = nim.resign(two, 1)
    assert nim.to_move(ended) is None and nim.view(ended, None)["winners"] == [2]
    assert nim.view(nim.resign(two, 2), None)["winners"] == [1]
    three = nim.setup(["Ann", "Ben", "Cy"], {"pile": 9})
    assert nim.on_resign(three, 2, 0) == nim.on_resign(three, 2, 2) == "bot"
    assert nim.rematch_setup({"pile": 9, "seed": "s"}) == {"pile": 9}
    assert nim.rematch_setup({"seed": "s"}) == {}


def test_the_mall_ends_as_it_stands_when_no_person_is_left():
    mall = get("mall")
    state = mall.setup(["Ann", "Ben"], {"seed": "resign"})
    assert mall.on_resign(state, 1, 1) == "bot" and mall.on_resign(state, 1, 0) == "end"
    playing = mall.view(state, None)
    ended = mall.resign(state, 1)
    doc = mall.view(ended, None)
    assert mall.to_move(ended) is None and doc["status"] == "finished" and doc["winners"]
    assert [p["score"] for p in doc["players"]] == [p["score"] for p in playing["players"]]
    assert mall.rematch_setup({"seed": "s", "supply": ["Y01"], "secrets": {"1": "O3"}}) == {}
    assert mall.load_state(mall.dump_state(ended)) == ended
