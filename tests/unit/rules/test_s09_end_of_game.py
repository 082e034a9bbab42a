"""docs/games/mall.md section 9 (with the triggers of sections 4 and 7): the round in which an end
trigger happens is finished, so every seat plays the same number of turns."""

from collections import Counter

import pytest

from pbem.games.mall import IllegalAction, Money, apply, legal_actions, parse, view

from builders import Plan, dealt, play, position

TILES = [f"{c}{n:02d}" for n in range(1, 9) for c in "YBG"]  # Y01, B01, G01, Y02, ...


def play_out(state, *actions: str):
    """Play `actions`; return the final state and how many turns each seat played."""
    turns = Counter()
    for text in actions:
        turns[state.turn] += 1
        state = apply(state, parse(text))
    return state, turns


def test_trigger_a_by_seat_1_lets_the_other_seats_finish_the_round():
    """Section 9: the current round is finished; the game ends after seat P's turn."""
    state, turns = play_out(dealt(TILES[:9], players=3), "money L")
    assert state.end_triggered and state.turn == 2
    state, more = play_out(state, "money L", "money L")
    assert state.turn is None
    assert turns + more == Counter({1: 1, 2: 1, 3: 1})


def test_trigger_a_by_the_last_seat_ends_the_game_at_once():
    """Section 9: "at once, if seat P triggered it"."""
    state = play(dealt(TILES[:10]), "money L")
    assert not state.end_triggered
    state = play(state, "money L")
    assert state.end_triggered
    assert (state.round, state.turn) == (1, None)


def test_trigger_a_in_round_2_by_seat_2_of_3_lets_seat_3_play():
    """Section 9: "Every player has then played the same number of turns"."""
    state, turns = play_out(dealt(TILES[:13], players=3), *["money L"] * 4)
    assert (state.round, state.turn, state.end_triggered) == (2, 2, False)
    state, more = play_out(state, "money L")
    assert state.end_triggered and state.turn == 3
    state, last = play_out(state, "money R")
    assert (state.round, state.turn) == (2, None)
    assert turns + more + last == Counter({1: 2, 2: 2, 3: 2})


def test_a_setup_trigger_gives_every_seat_exactly_one_turn():
    """Sections 4 and 9: trigger A at setup, so the game lasts one round."""
    state, turns = play_out(dealt(TILES[:8], players=4), *["money L"] * 4)
    assert state.turn is None
    assert turns == Counter({1: 1, 2: 1, 3: 1, 4: 1})


def carousel_and_hotel(commons: list[str]):
    """Ann can build zero-g-carousel (and her statue, card O1); Ben haunted-hotel."""
    ann = Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "G", "G", "G")
    ben = Plan(2).put("G", 0, 2).put("G", 1, 2).put("G", 0, 3).put("G", 1, 3)
    return position(ann, ben, commons=commons)


def test_building_the_last_common_attraction_is_trigger_b():
    """Section 7: "Building the last common attraction in play is end trigger B"."""
    state = play(carousel_and_hotel(["zero-g-carousel"]), "attraction zero-g-carousel at 0,5")
    assert state.end_triggered and state.turn == 2
    state = play(state, "money L")
    assert (state.round, state.turn) == (1, None)


def test_trigger_b_waits_for_the_last_common_in_play_and_ends_at_once_by_seat_p():
    """Sections 7 and 9: the first of two commons triggers nothing; seat P building the last ends
    the game at once."""
    state = carousel_and_hotel(["zero-g-carousel", "haunted-hotel"])
    state = play(state, "attraction zero-g-carousel at 0,5")
    assert not state.end_triggered
    state = play(state, "attraction haunted-hotel at 0,4")
    assert state.end_triggered
    assert (state.round, state.turn) == (1, None)


@pytest.mark.parametrize("commons", [[], ["haunted-hotel"]])
def test_the_personal_attraction_is_no_end_trigger(commons):
    """Section 7: only the last common attraction is trigger B (and `[]` never triggers)."""
    state = play(carousel_and_hotel(commons), "attraction founders-statue at 0,5")
    assert "founders-statue" in state.player(1).mall.tile
    assert not state.end_triggered


def test_nothing_is_legal_once_the_game_has_ended():
    """Section 9 and docs/design.md: a finished game has no turn and no legal action."""
    state = play(dealt(TILES[:8]), "money L", "money L")
    assert legal_actions(state) == []
    with pytest.raises(IllegalAction, match="the game is over"):
        apply(state, Money("L"))
    doc = view(state, None)
    assert (doc["status"], doc["turn"], doc["round"], doc["end_triggered"]) == (
        "finished",
        None,
        1,
        True,
    )
