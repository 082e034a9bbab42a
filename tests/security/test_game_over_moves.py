"""A move performed on a game that is over is refused in a player's words by the
rules of every game (docs/games/mall.md section 9: no turn follows the end), not a crash deep
inside them."""

from dataclasses import replace

import pytest

from pbem.games import NAMES, IllegalAction, get


@pytest.mark.parametrize("name", NAMES)
def test_performing_a_move_after_the_end_says_the_game_is_over(name):
    rules = get(name)
    state = rules.setup(["Ann", "Ben"], {"seed": "s" * 40})
    move = rules.legal_actions(state)[0]
    over = replace(state, turn=None)
    assert rules.to_move(over) is None
    with pytest.raises(IllegalAction, match=r"^the game is over$"):
        rules.perform(over, move)
