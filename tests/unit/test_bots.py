"""The bots: both only ever play legal actions, and greedy satisfies customers when it
can. How often greedy beats random over many games is tests/integration/test_bot_strength.py."""

from __future__ import annotations

from pbem.games.mall import Build, apply, legal_actions, setup
from pbem.games.mall.bots import make_bot


def test_bots_choose_only_legal_actions():
    state = setup(["A", "B", "C"], seed="bots-legal")
    bots = {1: make_bot("greedy", 1), 2: make_bot("random", 2), 3: make_bot("greedy", 3)}
    for _ in range(30):
        action = bots[state.turn](state)
        assert action in legal_actions(state)
        state = apply(state, action)


def test_greedy_builds_a_store_that_satisfies_a_customer_when_one_is_free():
    state = setup(
        ["A", "B"],
        supply=["R01", "R02", "R05", "R06", "Y01", "B01", "G01", "R09", "R10"],
        commons=[],
        secrets={"1": "O1", "2": "O2"},
    )
    action = make_bot("greedy", 0)(state)
    assert isinstance(action, Build) and action.slot == "R1"  # the free store, Y01
    after = apply(state, action)
    assert [c.id for c in after.player(1).mall.satisfied] == ["M1.1"]
