"""docs/games/mall.md section 3: seats and rounds, the seeded deal and its pinned draw order,
commons and secret cards, and explicit setups."""

import hashlib
import json
import random

import pytest

from pbem.games.mall import SetupError, setup, view

from builders import Plan, docks_legal, game, play, position

PURPLE = [
    "zero-g-carousel",
    "holo-fountain",
    "meteor-slide",
    "haunted-hotel",
    "giant-fishbowl",
    "robot-arena",
]
PINK = ["galaxy-wheel", "roller-coaster", "space-elevator", "aqua-dome"]
CARDS = ["O1", "O2", "O3", "O4", "O5", "O6"]


def draw_list(players: int) -> list[str]:
    """The P-player element tiles in draw-list order: Y, B, G, R, each by number."""
    stores = [f"{c}{n:02d}" for c in "YBG" for n in range(1, 6 * players + 1)]
    entrances = [f"R{n:02d}" for n in range(1, 25) if (n - 1) % 4 < players]
    return stores + entrances


def test_seat_1_moves_first_then_each_seat_then_a_new_round():
    """Section 3.1, with rounds as docs/design.md counts them."""
    state = game(players=3)
    seen = []
    for _ in range(4):
        seen.append((state.round, state.turn))
        state = play(state, "money L")
    assert seen == [(1, 1), (1, 2), (1, 3), (2, 1)]


def test_the_first_8_tiles_fill_l1_to_l4_then_r1_to_r4():
    """Section 3.2: the rest form the supply, drawn in order."""
    order = ["Y01", "B01", "G01", "R01", "Y02", "B02", "G02", "R02", "Y03", "B03"]
    state = setup(["Ann", "Ben"], supply=order, commons=[], secrets={"1": "O1", "2": "O2"})
    assert state.dispenser == (("Y01", "B01", "G01", "R01"), ("Y02", "B02", "G02", "R02"))
    assert state.supply == ("Y03", "B03")
    assert view(state, None)["dispenser"] == {
        "L": ["Y01", "B01", "G01", "R01"],
        "R": ["Y02", "B02", "G02", "R02"],
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_seeded_deal_follows_the_pinned_generator_and_draw_order(players):
    """Section 3: py-random-v1 is random.Random(seed); shuffles, in order, of the tiles
    (Y, B, G, R by number), the purple commons, the pink commons (table order) and
    O1-O6, dealt to seat 1 first. Reading: each shuffle is Random.shuffle."""
    seed = "a pinned seed"
    rng = random.Random(seed)
    tiles = draw_list(players)
    rng.shuffle(tiles)
    purple, pink, cards = list(PURPLE), list(PINK), list(CARDS)
    rng.shuffle(purple)
    rng.shuffle(pink)
    rng.shuffle(cards)

    state = setup(["A", "B", "C", "D"][:players], seed=seed)
    assert [t for column in state.dispenser for t in column] == tiles[:8]
    assert list(state.supply) == tiles[8:]
    assert list(state.commons) == purple[: 3 if players == 2 else 4] + pink[:2]  # as drawn
    assert [p.secret for p in state.players] == cards[:players]


def test_the_same_seed_deals_the_same_game():
    """Section 3: all randomness comes from the seed, so a replay rebuilds the same game."""
    first, second = setup(["A", "B"], seed="same"), setup(["A", "B"], seed="same")
    assert (first.dispenser, first.supply, first.commons) == (
        second.dispenser,
        second.supply,
        second.commons,
    )
    assert [p.secret for p in first.players] == [p.secret for p in second.players]


@pytest.mark.parametrize(("players", "purple"), [(2, 3), (3, 4), (4, 4)])
def test_commons_in_play_are_3_or_4_purple_and_2_pink(players, purple):
    """Section 3.3."""
    for seed in ("one", "two", "three"):
        commons = setup(["A", "B", "C", "D"][:players], seed=seed).commons
        assert len(commons) == len(set(commons)) == purple + 2
        assert sum(c in PURPLE for c in commons) == purple
        assert sum(c in PINK for c in commons) == 2


def test_each_player_gets_a_different_orange_card():
    """Section 3.4: cards are dealt from the shuffled O1-O6."""
    for seed in ("one", "two", "three"):
        secrets = [p.secret for p in setup(["A", "B", "C", "D"], seed=seed).players]
        assert len(set(secrets)) == 4
        assert set(secrets) <= set(CARDS)


def test_all_8_docking_bays_are_available():
    """Section 3.5: with 2 elements of each category every bay may be built."""
    plan = Plan(1).stack(0, 2, "Y", "B", "G", "R01").stack(1, 2, "R02", "Y", "B", "G")
    bays = {text.split()[1] for text in docks_legal(position(plan))}
    assert bays == {"GD1", "GD2", "GD3", "GD4", "BD1", "BD2", "BD3", "BD4"}


def test_an_explicit_setup_replaces_every_draw():
    """Section 3: supply order, commons and secrets may all be given."""
    state = setup(
        ["Ann", "Ben"],
        supply=["R13", "Y05"] + [f"B{n:02d}" for n in range(1, 8)],
        commons=["aqua-dome", "haunted-hotel"],
        secrets={"1": "O6", "2": "O5"},
    )
    assert state.dispenser[0] == ("R13", "Y05", "B01", "B02")
    assert state.supply == ("B07",)
    assert state.commons == ("aqua-dome", "haunted-hotel")  # in the order given
    assert [p.secret for p in state.players] == ["O6", "O5"]


def test_explicit_parts_beside_a_seed_replace_their_draws_only():
    """Section 3: a given part replaces its draw; the others come from the seed."""
    order = [f"Y{n:02d}" for n in range(1, 10)]
    state = setup(["Ann", "Ben"], seed="mixed", supply=order)
    again = setup(["Ann", "Ben"], seed="mixed", supply=order)
    assert [t for column in state.dispenser for t in column] + list(state.supply) == order
    assert len(state.commons) == 5
    assert state.commons == again.commons
    assert [p.secret for p in state.players] == [p.secret for p in again.players]


def test_an_empty_commons_list_puts_no_common_attraction_in_play():
    """Section 3: "`[]` means trigger B never happens"."""
    assert game(commons=[]).commons == ()


def test_without_a_seed_every_part_must_be_given():
    """Section 3: "without a seed every part must be given"."""
    with pytest.raises(SetupError, match="without a seed"):
        setup(["Ann", "Ben"], supply=["Y01"], commons=[])


@pytest.mark.parametrize(
    ("supply", "message"),
    [
        (["Y01", "Y25"], "unknown tiles: Y25"),
        (["Y01", "X01"], "unknown tiles: X01"),
        (["Y01", "B02", "Y01"], "twice: Y01"),
    ],
)
def test_an_explicit_supply_names_known_tiles_without_repeats(supply, message):
    """Section 3: "known ids, no repeats"."""
    with pytest.raises(SetupError, match=message):
        setup(["Ann", "Ben"], supply=supply, commons=[], secrets={"1": "O1", "2": "O2"})


def test_an_explicit_supply_may_use_any_of_the_96_tiles():
    """Section 3: any subset of the 96 tiles, even ones a 2-player deal leaves out."""
    state = setup(["Ann", "Ben"], supply=["Y24", "R24"], commons=[], secrets={"1": "O1", "2": "O2"})
    assert state.dispenser[0] == ("Y24", "R24", None, None)


@pytest.mark.parametrize("players", [1, 5])
def test_the_game_takes_2_to_4_players(players):
    """Section 2: player count P is 2 to 4."""
    with pytest.raises(SetupError):
        setup([f"P{n}" for n in range(players)], seed="x")


def test_the_public_hash_is_the_sha256_of_the_seed_utf8_bytes():
    """Section 3: "The public hash is the SHA-256 of the seed's UTF-8 bytes"."""
    seed = "café ☕ 42"
    doc = json.dumps(view(setup(["Ann", "Ben"], seed=seed), None))
    assert hashlib.sha256(seed.encode("utf-8")).hexdigest() in doc
