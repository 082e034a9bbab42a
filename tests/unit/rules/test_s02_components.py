"""docs/games/mall.md section 2: the `standard` content set — element tiles and their customers,
the tiles of a P-player game, Main Entrances, customer ids and money."""

import pytest

from pbem.games.mall import load, setup, view

from builders import ENTRANCE_WANTS, game, play

STORE_NAMES = {
    "food": ("Burger Bar", "Noodle Dome", "Cosmic Creamery"),
    "hobby": ("Arcade", "Zero-G Gym", "Holo Cinema"),
    "fashion": ("Boot Orbit", "Hat Nebula", "Suit Station"),
}


def tiles_dealt(players: int) -> list[str]:
    state = setup(["A", "B", "C", "D"][:players], seed="section-2")
    return [t for column in state.dispenser for t in column] + list(state.supply)


def expected_tiles(players: int) -> set[str]:
    stores = {f"{c}{n:02d}" for c in "YBG" for n in range(1, 6 * players + 1)}
    entrances = {f"R{4 * g + i:02d}" for g in range(6) for i in range(1, players + 1)}
    return stores | entrances


def test_there_are_96_element_tiles_24_of_each_category():
    """Section 2: Y01-Y24 food, B01-B24 hobby, G01-G24 fashion, R01-R24 entrance."""
    elements = load().elements
    assert sorted(elements) == sorted(f"{c}{n:02d}" for c in "YBGR" for n in range(1, 25))
    kinds = {c: {e.category for i, e in elements.items() if i[0] == c} for c in "YBGR"}
    assert kinds == {"Y": {"food"}, "B": {"hobby"}, "G": {"fashion"}, "R": {"entrance"}}


@pytest.mark.parametrize("number", [1, 8, 9, 16, 17, 24])
def test_store_names_go_by_number_and_colour(number):
    """Section 2: numbers 01-08, 09-16 and 17-24 carry the three names of each colour."""
    band = (number - 1) // 8
    elements = load().elements
    for letter, category in (("Y", "food"), ("B", "hobby"), ("G", "fashion")):
        assert elements[f"{letter}{number:02d}"].name == STORE_NAMES[category][band]


@pytest.mark.parametrize("number", range(1, 25))
def test_an_entrance_brings_the_two_customers_its_group_shows(number):
    """Section 2: each entrance tile carries two customers, spot 1 then spot 2."""
    tile = f"R{number:02d}"
    state = play(game(left=[tile]), "build L1 at 0,2")
    arrived = [c for c in state.player(1).mall.customers if c.on == tile]
    first, second = ENTRANCE_WANTS[(number - 1) // 4]
    assert [(c.id, c.want, c.satisfied) for c in arrived] == [
        (f"{tile}.1", first, False),
        (f"{tile}.2", second, False),
    ]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_p_player_game_uses_24_p_tiles(players):
    """Section 2: stores 01 to 6·P of each colour, the first P entrances of each group."""
    dealt = tiles_dealt(players)
    assert len(dealt) == 24 * players
    assert set(dealt) == expected_tiles(players)


def test_a_two_player_game_uses_these_twelve_entrances():
    """Section 2: the list docs/games/mall.md gives for P=2."""
    entrances = sorted(t for t in tiles_dealt(2) if t.startswith("R"))
    assert entrances == [
        "R01", "R02", "R05", "R06", "R09", "R10",
        "R13", "R14", "R17", "R18", "R21", "R22",
    ]  # fmt: skip


def test_each_player_has_a_main_entrance_with_three_customers():
    """Section 2: tile M<seat>; M<seat>.1 wants food, .2 hobby, .3 fashion."""
    doc = view(game(players=4), None)
    for seat, player in enumerate(doc["players"], start=1):
        assert player["customers"] == [
            {"id": f"M{seat}.1", "want": "food", "on": f"M{seat}", "satisfied": False},
            {"id": f"M{seat}.2", "want": "hobby", "on": f"M{seat}", "satisfied": False},
            {"id": f"M{seat}.3", "want": "fashion", "on": f"M{seat}", "satisfied": False},
        ]


def test_players_start_with_3_notes_and_the_bank_with_none():
    """Section 2: "Each player starts with 3 notes. The bank starts with 0 notes"."""
    state = game(players=3)
    assert [p.money for p in state.players] == [3, 3, 3]
    assert state.bank == 0


def test_notes_paid_for_a_tile_go_to_the_bank():
    """Section 2: notes paid for tiles go to the bank (L3 costs 2, section 4)."""
    state = play(game(left=["B01", "B02", "Y01"]), "build L3 at 0,2")
    assert state.player(1).money == 1
    assert state.bank == 2
