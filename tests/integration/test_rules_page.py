"""The rules pages (/rules/<game>): the mall's page shows everything of its content set
— every tile kind, the entrances' wants, every attraction with its shape, condition
and points, every docking bay, the balloons' values for 2 to 4 players, the
founder's statue and its cards, the end — drawn from the content set, not copied;
nim has a short page; an unknown game is a clear 404; the site and each game page
link to them."""

from __future__ import annotations

import copy
import html
import json
import re
from importlib.resources import files

import pytest

from pbem.games import GAMES
from pbem.games.mall.content import load, parse_content
from pbem.games.mall.explain import (
    attraction_name,
    balloon_rule,
    bay_requirement,
    condition_words,
)
from pbem.games.mall.rulebook import rules

from support import SHORT, two_players

CONTENT = load()
INLINE = re.compile(r"</?(?:span|strong|code|a|em)\b[^>]*>")
TAGS = re.compile(r"<[^>]+>")


def text_of(fragment: str) -> str:
    """The words of an HTML fragment: inline tags dropped, the others a space."""
    return " ".join(html.unescape(TAGS.sub(" ", INLINE.sub("", fragment))).split())


def element(page: str, element_id: str) -> str:
    """The HTML of the element with `element_id` (an article or a table row)."""
    found = re.search(
        rf'<(article|tr)[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</\1>', page, re.S
    )
    assert found, f"no element #{element_id} on the page"
    return found[2]


@pytest.fixture
def mall_page(web) -> str:
    app, _ = web
    answer = app.test_client().get("/rules/mall")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_the_mall_rules_show_every_tile_kind_with_its_count_for_2_to_4_players(mall_page):
    kinds = element_row_texts(mall_page, "rules-kinds")
    assert kinds[0].startswith("Main Entrance")
    for category in CONTENT.categories:
        row = next(k for k in kinds if k.lower().startswith(category))
        counts = [
            sum(1 for t in CONTENT.tiles_for(p) if CONTENT.elements[t].category == category)
            for p in (2, 3, 4)
        ]
        assert row.endswith(" ".join(str(n) for n in counts)), row
        for spec in CONTENT.elements.values():
            if spec.category == category and spec.name:
                assert spec.name in row
    assert any(k.startswith("Docking bay") for k in kinds)
    assert any(k.startswith("Attraction") for k in kinds)
    # the store kinds count 6 per player, e.g. 12, 18, 24 food tiles
    assert next(k for k in kinds if k.startswith("Food")).endswith("12 18 24")


def element_row_texts(page: str, table_class: str) -> list[str]:
    table = re.search(rf'<table class="{table_class}">(.*?)</table>', page, re.S)
    assert table, table_class
    body = table[1].split("<tbody>")[1]
    return [text_of(row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_the_mall_rules_list_what_the_customers_of_each_entrance_want(mall_page):
    entrances = text_of(re.search(r'<ul class="rules-entrances">(.*?)</ul>', mall_page, re.S)[1])
    assert "R01–R04: 2 customers wanting food" in entrances
    assert "R13–R16: customers wanting food and hobby" in entrances
    assert "R21–R24: customers wanting fashion and food" in entrances
    assert "wanting food, hobby, fashion" in text_of(mall_page)  # the Main Entrance's three


def test_every_attraction_shows_its_name_points_condition_and_shape(mall_page):
    for spec in CONTENT.attractions.values():
        part = element(mall_page, f"attraction-{spec.id}")
        words = text_of(part)
        assert f"{spec.points} points" in words
        if spec.condition:
            assert attraction_name(spec.id) in words
            assert condition_words(spec.condition, CONTENT) in words
            assert spec.condition.describe() in words
        drawn = re.findall(r'class="shape-cell kind-([BPX])"', part)
        assert sorted(drawn) == sorted(k for _, _, k in spec.shape.cells), spec.id
        assert "<title" in part  # the drawing is named for screen readers
    assert "The Founder's Statue" in text_of(mall_page)
    for card, condition in CONTENT.cards.items():
        assert f"{card} {condition_words(condition, CONTENT)}" in text_of(mall_page)


def test_every_bay_shows_its_points_requirement_and_effect(mall_page):
    for bay in CONTENT.bays.values():
        words = text_of(element(mall_page, f"bay-{bay.id}"))
        assert words == (
            f"{bay.name} ({bay.id}, {bay.type}) {bay.points} "
            f"{bay_requirement(bay, CONTENT)} {bay.describe()}"
        )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_balloon_shows_its_values_for_the_player_count(mall_page, players):
    header = text_of(
        re.search(r'<table class="rules-balloons">\s*<thead>(.*?)</thead>', mall_page, re.S)[1]
    )
    for balloon in CONTENT.balloons:
        row = element(mall_page, f"balloon-{balloon.name}")
        cells = [text_of(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        expected = ", ".join(str(v) for v in balloon.values[: players - 1])
        assert cells[0] == balloon_rule(balloon)
        assert cells[players - 1] == expected, (balloon.name, cells)
    assert header.endswith("2 players 3 players 4 players")  # cells[1] is 2 players


def test_the_end_trigger_and_the_attractions_in_play_per_player_count(mall_page):
    words = text_of(mall_page)
    assert "when the last supply tile enters the Dispenser" in words
    assert "the last common attraction in play is built" in words
    assert "40 tiles with 2 players, 64 tiles with 3 players, 88 tiles with 4 players" in words
    assert "2 players, 3 purple and 2 pink; 3 players, 4 purple and 2 pink" in words


def test_the_page_follows_the_content_set_not_a_copy_of_it():
    data = json.loads(files("pbem.games.mall").joinpath("standard.json").read_text())
    changed = copy.deepcopy(data)
    changed["attractions"][0]["points"] = 11
    changed["bays"][0]["name"] = "Moon Gate"
    changed["balloons"][0]["values"] = [15, 9, 3]
    page = rules(parse_content(changed))
    first = page["attractions"][0]
    assert (first["id"], first["points"]) == (data["attractions"][0]["id"], 11)
    assert page["bays"][0]["name"] == "Moon Gate"
    assert page["balloons"][0]["values"] == {2: [15], 3: [15, 9], 4: [15, 9, 3]}


def test_nim_has_a_short_plain_rules_page_without_a_word_of_the_mall(web):
    app, _ = web
    answer = app.test_client().get("/rules/nim")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200
    words = text_of(page.split('<main id="main">')[1].split("</main>")[0])
    assert "Whoever takes the last token wins." in words
    assert "take 1 to 3 tokens" in words
    assert not re.search(r"dispenser|balloon|attraction|customer", words, re.I)


@pytest.mark.parametrize("name", ["chess", "x" * 5000, "MALL", "<b>mall", "mall%00", "..%2Fetc"])
def test_an_unknown_game_has_no_rules_page_and_says_which_games_there_are(web, name):
    app, _ = web
    answer = app.test_client().get(f"/rules/{name}")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 404
    if "%" not in name:  # a NUL or a slash names no page at all
        titles = ", ".join(p.title for p in GAMES.values())
        assert f"There are no rules for such a game; this server runs {titles}." in text_of(page)
    assert "x" * 100 not in page and "<b>mall" not in page and "chess" not in page


def test_the_site_and_every_game_page_link_to_the_rules(web):
    app, parts = web
    client = app.test_client()
    listing = client.get("/rules").get_data(as_text=True)
    for name, plugin in GAMES.items():
        assert f'href="/rules/{name}">Rules of {plugin.title}</a>' in listing
    assert 'href="/rules">Rules</a>' in client.get("/").get_data(as_text=True)
    created = two_players(parts.service, SHORT, public=True)
    watch = client.get(f"/g/{created.game_id}/watch").get_data(as_text=True)
    assert 'href="/rules/mall">Rules of Mall</a>' in watch


def test_the_game_page_names_and_explains_each_attraction_and_balloon(web):
    app, parts = web
    created = two_players(parts.service, SHORT, public=True)
    client = app.test_client()
    client.get(f"/g/{created.game_id}/{created.seats[0].token}")
    page = client.get(f"/g/{created.game_id}").get_data(as_text=True)
    for spec_id in SHORT["commons"]:
        spec = CONTENT.attractions[spec_id]
        tip = re.search(
            rf'role="tooltip" id="tip-common-{spec_id}">(.*?)</span>\s*</span>',
            page,
            re.S,
        )
        assert tip and text_of(tip[1]).startswith(
            f"{attraction_name(spec_id)}: {spec.points} points"
        )
        assert f'aria-describedby="tip-common-{spec_id}">{attraction_name(spec_id)}</span>' in page
    for balloon in CONTENT.balloons:
        assert (
            f'aria-describedby="tip-balloon-{balloon.name}">{balloon.name.capitalize()}</span>'
            in page
        )
    words = text_of(page.split('<section class="standings"')[1])
    assert "Rainbow: most satisfied customers (none yet) — 0" in words
    # what the turn script names: the offers by name, with their explanations
    data = json.loads(html.unescape(re.search(r'id="turn-data">(.*?)</script>', page, re.S)[1]))
    assert set(data["names"]) == set(data["explain"])
