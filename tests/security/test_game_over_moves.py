"""A move performed on a game that is over is refused in a player's words by the
rules of every game (docs/games/mall.md section 9: no turn follows the end), not a crash deep
inside them."""

from dataclasses import replace

import pytest

from pbem.games import GAMES, NAMES, IllegalAction, Sequential, get


@pytest.mark.parametrize("name", NAMES)
def test_performing_a_move_after_the_end_says_the_game_is_over(name):
    rules = get(name)
    if isinstance(rules, Sequential):  # a game of one seat at a time, its turn taken away
        state = rules.setup(["Ann", "Ben"], {"seed": "s" * 40})
        move = rules.legal_actions(state)[0]
        over = replace(state, turn=None)
        assert rules.to_move(over) is None
        with pytest.raises(IllegalAction, match=r"^the game is over$"):
            rules.perform(over, move)
    # every game, played to its end by its own example: its first move once more
    example = next(e for e in GAMES[name].examples() if e.ends)
    state = rules.setup(list(example.players), dict(example.setup))
    (seat, text), *_ = example.moves
    first = rules.check(state, rules.parse(text), seat)
    for seat, text in example.moves:
        state = rules.perform(state, rules.check(state, rules.parse(text), seat))
        while (due := rules.resolution(state)) is not None:
            state = rules.perform(state, rules.check(state, due, None))
    assert rules.over(state)
    with pytest.raises(IllegalAction, match=r"^the game is over$"):
        rules.perform(state, first)
    with pytest.raises(IllegalAction, match=r"^the game is over$"):
        rules.check(state, first, seat)
