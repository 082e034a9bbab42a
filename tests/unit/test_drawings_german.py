"""The mall's drawings in German: every drawing (a mall, the Dispenser, an
attraction's shape, the mail's picture of the malls), drawn for positions from a
new game to a finished one and for a mall holding every piece of the content set,
says no English word in what a reader is shown — its text, its <title> and <desc>,
its tooltips and screen-reader names — neither the site's English nor the game's
own (shop, bay and attraction names, categories, "costs", "floor", the bots' names).
Drawn in English, the same check finds those words: it sees inside the drawings."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem import i18n
from pbem.games import GAMES
from pbem.games.mall import apply, load, setup, view
from pbem.games.mall.bots import make_bot
from pbem.games.mall.document import mall_of
from pbem.games.mall.explain import attraction_name
from pbem.games.mall.mall import ATTRACTION, DOCK, MAIN, Customer, Mall
from pbem.games.mall.pieces import Tile
from pbem.games.mall.svg_common import fit
from pbem.games.mall.svg_dispenser import dispenser_svg
from pbem.games.mall.svg_mall import mall_svg
from pbem.games.mall.svg_shape import shape_svg
from pbem.games.names import said_players

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))
from german import english_left, game_english_left, visible_text

CONTENT = load()
NAMES = ["Anna", "Greedy bot", "Random bot"]
MOVES = (0, 3, 24, 60, 400)  # from a new game to its end


def played(moves: int) -> Any:
    """A game of three, played by bots for `moves` moves (or to its end)."""
    state = setup(NAMES, seed="drawings in german")
    bots = [make_bot("greedy", "a"), make_bot("greedy", "b"), make_bot("random", "c")]
    for _n in range(moves):
        if state.turn is None:
            break
        state = apply(state, bots[state.turn - 1](state))
    return state


STATES = {moves: played(moves) for moves in MOVES}


def showcase() -> Mall:
    """A mall holding every piece of the content: every element (a customer of
    every want waiting on each entrance, one satisfied on each store), the Main
    Entrance, every docking bay and every attraction, each where it fits the
    drawing (the rules need not allow it: only the words are looked at)."""
    tiles = [Tile("M1", MAIN, CONTENT.main_cells)]
    customers = [Customer(f"M1.{i}", want, "M1") for i, want in enumerate(CONTENT.main_wants, 1)]
    for i, spec in enumerate(CONTENT.elements.values()):
        tiles.append(Tile(spec.id, spec.category, ((i % 16, 2 + i // 16),)))
        for spot, want in enumerate(spec.wants, start=1):
            customers.append(Customer(f"{spec.id}.{spot}", want, spec.id))
        if not spec.wants:
            customers.append(Customer(f"S{spec.id}", spec.category, spec.id, True))
    for i, bay in enumerate(CONTENT.bays.values()):
        tiles.append(Tile(bay.id, DOCK, ((20 + 2 * i, 1), (21 + 2 * i, 1))))
    x = 0
    for spec in CONTENT.attractions.values():
        cells = tuple((x + c, 12 + r) for c, r, _k in spec.shape.cells)
        platforms = frozenset((x + c, 12 + r) for c, r, k in spec.shape.cells if k == "P")
        tiles.append(Tile(spec.id, ATTRACTION, cells, platforms))
        x += spec.shape.width + 1
    return Mall(CONTENT, tuple(tiles), tuple(customers))


def drawings() -> Iterator[tuple[str, str]]:
    """(what, markup) of every drawing, in the language of the moment."""
    everything = showcase()
    yield "every piece", mall_svg(everything, label="Anna", targets=True)
    yield "every piece, changed", mall_svg(everything, label="Anna", changed=frozenset({"Y01"}))
    elements = list(CONTENT.elements)
    columns = {"L": [*elements[:48], None], "R": [None, *elements[48:]]}
    yield "every element in the Dispenser", dispenser_svg(columns, CONTENT)
    for spec in CONTENT.attractions.values():
        yield f"shape {spec.id}", shape_svg(spec, attraction_name(spec.id))
    mails = GAMES["mall"].part("mails")
    for moves, state in STATES.items():
        for seat in (None, 1, 2, 3):
            doc = said_players(view(state, seat))  # as the service gives it to a reader
            yield f"{moves}: Dispenser", dispenser_svg(doc["dispenser"], CONTENT)
            for p in doc["players"]:
                mall = mall_of(dict(p), CONTENT)
                label = i18n.gettext("%(name)s's mall", name=p["name"])
                yield f"{moves}: mall {p['seat']}", mall_svg(mall, label=label, targets=True)
            yield f"{moves}: picture", mails.picture(doc) or ""
            yield f"{moves}: board", board(doc, seat)


def board(doc: dict[str, Any], seat: int | None) -> str:
    """The drawings of the game page's board for `seat`."""
    pages = GAMES["mall"].part("pages")
    made = pages.board({**doc, "seq": 3}, seat, your_turn=doc["turn"] == seat)
    svgs = [p.svg for p in made["players"]] + [c["shape"] for c in made["commons"]]
    return "\n".join([*svgs, made["dispenser"]])


@pytest.fixture(scope="module")
def german() -> list[tuple[str, str]]:
    with i18n.speaking("de"):
        return list(drawings())


def test_no_drawing_says_an_english_word_in_german(german: list[tuple[str, str]]) -> None:
    allowed = frozenset({"Anna"})
    for what, svg in german:
        said = visible_text(svg)
        assert english_left(said, allowed=allowed) == [], what
        assert game_english_left(said) == [], what


def test_the_german_drawings_say_the_games_words_in_german(
    german: list[tuple[str, str]],
) -> None:
    said = visible_text("\n".join(svg for _what, svg in german))
    for word in ("kostet 3", "Stiefel-Orbit", "Haupteingang", "Gieriger Bot", "Zufallsbot"):
        assert word in said, word
    for word in ("Hobby", "Mode", "Gastro", "Weltraumaufzug", "Grundplatte", "Etage"):
        assert word in said, word


def test_the_check_sees_the_english_words_of_the_drawings() -> None:
    found = {w for _what, svg in drawings() for w in game_english_left(visible_text(svg))}
    expected = {"costs", "Burger", "Orbit", "hobby", "fashion", "food", "Greedy", "Random"}
    expected |= {"Elevator", "Shuttle", "Entrance", "platform", "plate", "floor"}
    assert expected <= found, expected - found


def test_a_long_name_breaks_after_its_own_hyphen() -> None:
    assert fit("Burger-Bar", 9) == ["Burger-", "Bar"]
    assert fit("Zero-G-Karussell", 9) == ["Zero-G-", "Karussell"]
    assert fit("Shuttle-Haltestelle", 9) == ["Shuttle-", "Halteste…"]
    assert fit("Burger-Bar", 10) == ["Burger-Bar"]  # a name that fits stays whole
    # English names break at their spaces as before
    assert fit("Zero-G Carousel", 9) == ["Zero-G", "Carousel"]
    assert fit("Star Liner Dock", 9) == ["Star", "Liner Do…"]


def test_the_german_drawings_break_names_after_their_hyphens(
    german: list[tuple[str, str]],
) -> None:
    drawn = "\n".join(svg for what, svg in german if what.startswith("every"))
    for line in ("Burger-", "Bar", "Stiefel-", "Orbit", "Roboter-", "Arena"):
        assert f">{line}</text>" in drawn, line
    assert ">Burger-B…</text>" not in drawn
