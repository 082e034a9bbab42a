"""Every registered game gives examples to be tested with (`Plugin.examples`), and
they are honest: every move legal for its seat in order, the game's own resolutions
taken where the game takes them, and the end where the example says."""

from __future__ import annotations

import pytest

from pbem.games import GAMES, IllegalAction
from pbem.service.queries import turn_options_in


def replayed(plugin, example):
    """The states after each move of `example`, resolutions taken."""
    rules = plugin.rules
    state = rules.setup(list(example.players), dict(example.setup))
    states = [state]
    for seat, text in example.moves:
        assert seat in rules.active(state) or rules.legal_actions(state, seat), (seat, text)
        state = rules.perform(state, rules.check(state, rules.parse(text), seat))
        while (due := rules.resolution(state)) is not None:
            state = rules.perform(state, rules.check(state, due, None))
        states.append(state)
    return states


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_gives_a_game_to_the_end_and_one_under_way(name):
    examples = GAMES[name].examples()
    assert any(e.ends for e in examples) and any(not e.ends for e in examples)
    assert len({e.about for e in examples}) == len(examples)


@pytest.mark.parametrize(
    ("name", "number"),
    [(name, n) for name in GAMES for n in range(len(GAMES[name].examples()))],
)
def test_an_example_plays_legally_and_ends_where_it_says(name, number):
    plugin = GAMES[name]
    example = plugin.examples()[number]
    states = replayed(plugin, example)
    rules = plugin.rules
    assert rules.over(states[-1]) == example.ends
    assert not any(rules.over(s) for s in states[:-1])  # nothing after the end


@pytest.mark.parametrize("name", list(GAMES))
def test_a_wrong_move_in_an_example_would_be_caught(name):
    plugin = GAMES[name]
    example = plugin.examples()[0]
    broken = type(example)(example.about, example.players, example.setup, ((1, "no such move"),))
    with pytest.raises(IllegalAction):
        replayed(plugin, broken)


TWINS = [
    pytest.param(name, example, id=f"{name}-{example.about}")
    for name in GAMES
    for example in GAMES[name].examples()
    if example.twin is not None
]


@pytest.mark.parametrize(("name", "example"), TWINS)
def test_a_twin_is_the_same_game_to_everyone_outside_the_seats_that_know(name, example):
    """An example's twin plays the same moves legally, and every position's view is
    the same for every viewer but the seats of `knows`, who see a difference (else
    the twin would hide nothing); the game is not over (the end shows all)."""
    plugin = GAMES[name]
    rules = plugin.rules
    twin = type(example)(example.about, example.players, example.twin.setup, example.moves)
    pairs = list(zip(replayed(plugin, example), replayed(plugin, twin), strict=True))
    assert not rules.over(pairs[-1][0])
    knows = example.twin.knows
    viewers = [None, *range(1, len(example.players) + 1)]
    for one, two in pairs:
        for viewer in (v for v in viewers if v not in knows):
            assert rules.view(one, viewer) == rules.view(two, viewer), viewer
            assert rules.describe(one, viewer) == rules.describe(two, viewer), viewer
    for seat in knows:
        assert rules.view(pairs[-1][0], seat) != rules.view(pairs[-1][1], seat)


@pytest.mark.parametrize(("name", "example"), TWINS)
def test_a_preview_never_tells_the_mover_what_the_twins_hide(name, example):
    """Every seat outside `knows` that may act, at every position, is offered the
    same moves with the same previews at both twins: a preview is the narration of
    the move performed, and performing it may draw what the mover may not know yet
    (at the last position, the next draw differs between the twins)."""
    plugin = GAMES[name]
    rules = plugin.rules
    twin = type(example)(example.about, example.players, example.twin.setup, example.moves)
    pairs = list(zip(replayed(plugin, example), replayed(plugin, twin), strict=True))
    offered = 0
    for one, two in pairs:
        for seat in (s for s in rules.active(one) if s not in example.twin.knows):
            assert turn_options_in(rules, one, seat) == turn_options_in(rules, two, seat)
            offered += 1
    last = pairs[-1]
    assert set(rules.active(last[0])) - example.twin.knows  # the last mover may not know
    drawn = [rules.perform(s, rules.legal_actions(s, min(rules.active(s)))[0]) for s in last]
    assert any(rules.view(drawn[0], v) != rules.view(drawn[1], v) for v in (None, 1))
    assert offered
