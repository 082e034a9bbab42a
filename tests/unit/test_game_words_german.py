"""The games' own words in German: inside `i18n.speaking("de")` the mall's and nim's
page parts, rules page, explanations, refusals, page-script words and mail partials
leave no English word, content names read differently, and outside the block the
same calls speak English again."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jinja2 import (
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    Undefined,
    select_autoescape,
)

from pbem import i18n
from pbem.games import GAMES, IllegalAction
from pbem.games.mall import GAME, apply, explain, load, parse, setup, view
from pbem.games.mall.bots import make_bot
from pbem.games.mall.refusals import REFUSALS, refusal
from pbem.games.mall.turn_words import SCRIPT_WORDS

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))
from german import english_left, visible_text

CONTENT = load()
NAMES = ("Anna", "Bernd")
# The move notation and the mail commands read the same in every language.
NOTATION = frozenset({"money", "build", "at", "for", "attraction", "mirror", "dock", "pass"})
NOTATION |= {"take", "status", "legal", "undo", "help"}
ALLOWED = NOTATION | set(NAMES)
SUPPLY = ["R01", "Y01", "Y02", "Y03", "Y05", "Y06", "Y07", "Y08"]
SUPPLY += ["B01", "Y09", "G01", "Y10", "G02", "Y11", "G03", "Y12", "B02", "B03"]


def environment(strict: bool) -> Environment:
    """The games' templates as the site (lenient) and the mails (strict) load them,
    under the game's name, with the gettext the server installs."""
    loaders = {name: FileSystemLoader(str(plugin.templates)) for name, plugin in GAMES.items()}
    env = Environment(
        loader=PrefixLoader(loaders),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined if strict else Undefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    i18n.install(env)
    return env


PAGES, MAILS = environment(strict=False), environment(strict=True)


def render(template: str, **context: Any) -> str:
    env = MAILS if "/mail/" in template else PAGES
    return env.get_template(template).render(**context)


def german(text: str, html: bool = True) -> list[str]:
    """The English words left in a rendered part."""
    return english_left(visible_text(text) if html else text, allowed=frozenset(ALLOWED))


def options(rules: Any, state: Any, seat: int) -> list[dict[str, Any]]:
    """The legal actions with their previews, as the service gives them to a page."""
    found = []
    for action in rules.legal_actions(state, seat):
        text = rules.format(action)
        told = rules.narrate(state, action, rules.perform(state, action), None)
        preview = told.removeprefix(text).removeprefix("; ") or "-"
        found.append({"text": text, "action": rules.to_json(action), "preview": preview})
    return found


def mall_game(moves: int, seed: str = "german words") -> Any:
    """A mall game of two, played by bots for `moves` moves (or to its end)."""
    state = setup(list(NAMES), seed=seed)
    bots = [make_bot("greedy", seed), make_bot("random", seed)]
    for _n in range(moves):
        if state.turn is None:
            break
        state = apply(state, bots[state.turn - 1](state))
    return state


@pytest.fixture(scope="module")
def middle() -> Any:
    return mall_game(24)


@pytest.fixture(scope="module")
def finished() -> Any:
    state = mall_game(400)
    assert state.finished
    return state


def mall_page(state: Any, seat: int | None) -> str:
    """The mall's board, Dispenser and turn panel as the game page shows them."""
    pages = GAMES["mall"].part("pages")
    doc = {**view(state, seat), "seq": 7}
    your_turn = seat is not None and state.turn == seat
    board = pages.board(doc, seat, your_turn=your_turn)
    standings = GAMES["mall"].standings(doc)
    html = render("mall/board.html", doc=doc, board=board, standings=standings)
    html += render("mall/dispenser.html", doc=doc, board=board)
    if your_turn:
        turn = pages.turn(doc, seat, options(GAME, state, seat))
        html += render("mall/turn.html", turn=turn, chosen=None, typed=None)
    return html


# -- pages -----------------------------------------------------------------------------


def test_the_mall_page_parts_are_german(middle: Any) -> None:
    with i18n.speaking("de"):
        for seat in (middle.turn, None):
            html = mall_page(middle, seat)
            assert german(html) == [], seat
            assert "Attraktionen im Spiel" in html and "Der Dispenser 3000" in html


def test_the_mall_turn_panel_and_its_script_words_are_german(middle: Any) -> None:
    pages = GAMES["mall"].part("pages")
    doc = {**view(middle, middle.turn), "seq": 7}
    with i18n.speaking("de"):
        turn = pages.turn(doc, middle.turn, options(GAME, middle, middle.turn))
        words = turn["script"]["words"]
        for group in turn["groups"]:
            assert german(group.title, html=False) == [], group.title
        for said in [*turn["script"]["names"].values(), *turn["script"]["explain"].values()]:
            assert german(said, html=False) == [], said
    assert set(words) == set(SCRIPT_WORDS)
    for key, english in SCRIPT_WORDS.items():
        assert words[key] != english, key
        assert german(re.sub(r"%\(\w+\)s", " ", words[key]), html=False) == [], key
        assert sorted(i18n_places(words[key])) == sorted(i18n_places(english)), key


def i18n_places(text: str) -> list[str]:
    return re.findall(r"%\((\w+)\)s", text)


def test_the_finished_mall_page_is_german(finished: Any) -> None:
    with i18n.speaking("de"):
        html = mall_page(finished, None)
    assert german(html) == []
    assert "Endstand" in html


def test_the_rules_pages_are_german() -> None:
    with i18n.speaking("de"):
        mall = render("mall/rules.html", rules=GAMES["mall"].part("pages").rules())
        nim = render("nim/rules.html", rules=GAMES["nim"].part("pages").rules())
    assert german(mall) == [] and german(nim) == []
    assert "Gründerstatue" in mall and "Andockstationen" in mall
    assert "10.000" in nim  # the biggest pile as German writes it


def test_the_nim_page_parts_are_german() -> None:
    nim = GAMES["nim"]
    pages = nim.part("pages")
    state = nim.rules.setup(list(NAMES), {"pile": 9})
    before = state
    state = nim.rules.perform(state, nim.rules.parse("take 2"))
    doc = {**nim.rules.view(state, 2), "seq": 1}
    with i18n.speaking("de"):
        changed = pages.changed(nim.rules.view(before, 2), doc)
        board = pages.board(doc, 2, your_turn=True, changed=changed)
        html = render("nim/board.html", doc=doc, board=board, standings=nim.standings(doc))
        html += render("nim/pile.html", doc=doc, board=board)
        turn = pages.turn(doc, 2, options(nim.rules, state, 2))
        html += render("nim/turn.html", turn=turn, chosen=None, typed=None)
        html += render("nim/setup.html", form={})
    assert german(html) == []
    assert "Spielsteine" in html


# -- explanations ----------------------------------------------------------------------


def test_every_explanation_is_german(middle: Any) -> None:
    with i18n.speaking("de"):
        said = [explain.attraction_words(a, CONTENT) for a in CONTENT.attractions.values()]
        said += [explain.attraction_tile_words(a, CONTENT) for a in CONTENT.attractions]
        said += [explain.bay_words(b, CONTENT) for b in CONTENT.bays.values()]
        said += [explain.bay_label(b, CONTENT) for b in CONTENT.bays.values()]
        said += [explain.bay_tile_words(b) for b in CONTENT.bays.values()]
        said += [explain.balloon_words(b, p) for b in CONTENT.balloons for p in (2, 3, 4)]
        said += [explain.condition_words(c, CONTENT) for c in CONTENT.cards.values()]
        said += [c.describe() for c in CONTENT.cards.values()]
        said += [a.condition.describe() for a in CONTENT.attractions.values() if a.condition]
        for lines in explain.balloon_lines(view(middle, None), CONTENT).values():
            said += [line.text for line in lines]
        said.append(GAME.describe(middle, 1))
    for text in said:
        assert german(text, html=False) == [], text


def test_customer_choices_are_german() -> None:
    state = apply(
        apply(
            setup(
                list(NAMES), supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}
            ),
            parse("build L1 at 1,2"),
        ),
        parse("money R"),
    )
    found = [o for o in options(GAME, state, 1) if o["action"].get("slot") == "L1"]
    at = [o for o in found if (o["action"]["x"], o["action"]["y"]) == (0, 2)]
    with i18n.speaking("de"):
        choices = explain.customer_choices(at, view(state, 1)["players"][0], CONTENT)
    assert [c.words for c in choices] == [
        "Der Kunde, der Gastro möchte, von Haupteingang",
        "Ein Kunde, der Gastro möchte, von Eingang R01 (einer von 2 gleichen)",
    ]


def test_content_names_read_differently_in_german() -> None:
    stores = sorted({s.name for s in CONTENT.elements.values() if s.name})
    bays = [b.name for b in CONTENT.bays.values()]
    attractions = [explain.attraction_name(a) for a in CONTENT.attractions]
    with i18n.speaking("de"):
        said = {name: i18n.gettext(name) for name in [*stores, *bays]}
        said |= {
            name: explain.attraction_name(a)
            for name, a in zip(attractions, CONTENT.attractions, strict=True)
        }
    for english, german_name in said.items():
        assert german_name != english, english
        # A hidden tile is blanked out with its name: every word of a name is capitalised.
        assert all(word[:1].isupper() for word in german_name.split()), german_name


# -- refusals --------------------------------------------------------------------------


ILLEGAL = [
    ("pass", "you may pass only"),
    ("money X", "there is no column"),
    ("build L1 at 0,1", "is taken by"),
    ("build L1 at 5,1", "ground floor"),
    ("build L1 at 5,0", "below floor 1"),
    ("build L1 at 5,3", "would float"),
    ("build L1 at 1,2 for M1.1", "is an entrance"),
    ("attraction robot-arena at 0,2", "needs"),
    ("attraction founders-statue at 0,2", "needs"),
    ("attraction haunted-hotel at 0,2", "is not in play"),
    ("attraction no-such-thing at 0,2", "there is no attraction"),
    ("dock XD9 at 2", "there is no docking bay"),
    ("dock GD1 at 2", "bay needs at least"),
]


@pytest.mark.parametrize(("move", "english"), ILLEGAL)
def test_a_refusal_is_german_inside_the_block_and_english_outside(move: str, english: str) -> None:
    state = setup(
        list(NAMES), supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}
    )

    def refused() -> str:
        with pytest.raises(IllegalAction) as caught:
            GAME.check(state, GAME.parse(move), 1)
        return str(caught.value)

    with i18n.speaking("de"):
        said = refused()
    assert german(said, html=False) == [], said
    assert english not in said
    assert english in refused()  # English again outside the block


def test_a_customer_who_cannot_move_in_is_refused_in_german() -> None:
    state = apply(
        setup(list(NAMES), supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}),
        parse("build L1 at 1,2"),
    )
    state = apply(state, parse("money R"))
    for move in ("build L1 at 0,2", "build L1 at 0,2 for M1.2", "build L1 at 0,2 for Q1.1"):
        with i18n.speaking("de"), pytest.raises(IllegalAction) as caught:
            GAME.check(state, GAME.parse(move), 1)
        assert german(str(caught.value), html=False) == [], str(caught.value)


def test_every_refusal_of_the_rules_has_german_words() -> None:
    values: dict[str, Any] = {
        "seat": 2, "example": "money L", "action": "x", "column": "X", "columns": "L, R",
        "slot": "L2", "cost": 1, "money": 0, "x": 1, "y": 2, "id": "Y01", "below": 1,
        "customer": "M1.1", "choices": "M1.1, M1.2", "on": "M1", "want": "Gastro",
        "kind": "Mode", "reach": 3, "condition": "3 Gastro-Geschäfte", "card": "O3",
        "problem": "-", "type": "grau", "bays": "GD1, GD2",
    }  # fmt: skip
    with i18n.speaking("de"):
        for key in REFUSALS:
            said = refusal(key, **values)
            assert said != REFUSALS[key] % values, key
            assert german(said, html=False) == [], (key, said)


def test_a_notation_error_is_german_but_keeps_the_notation() -> None:
    with i18n.speaking("de"), pytest.raises(IllegalAction) as caught:
        GAME.parse("xyzzy 3")
    said = str(caught.value)
    assert "money L | money R | build L2 at 1,3" in said
    assert german(said.split(":")[0], html=False) == [], said


# -- mails -----------------------------------------------------------------------------


def mail_parts(game: str, state: Any, rules: Any, seat: int) -> dict[str, str]:
    doc = view(state, seat) if game == "mall" else rules.view(state, seat)
    context = {
        "doc": doc,
        "since": [{"text": "Bernd"}],
        "link": "https://example.org/g/1",
        "position": rules.describe(state, seat),
        "options": options(rules, state, seat) if rules.to_move(state) == seat else [],
    }
    players = doc["players"]
    table = [players[s - 1] for s in GAMES[game].standings(doc)]
    parts = {}
    for kind in ("txt", "html"):
        parts[f"_turn.{kind}"] = render(f"{game}/mail/_turn.{kind}", **context)
        parts[f"_standings.{kind}"] = render(f"{game}/mail/_standings.{kind}", table=table, doc=doc)
    return parts


def test_the_mall_mail_parts_are_german(middle: Any, finished: Any) -> None:
    with i18n.speaking("de"):
        parts = mail_parts("mall", middle, GAME, middle.turn)
        doc = view(finished, 1)
        table = [doc["players"][s - 1] for s in GAMES["mall"].standings(doc)]
        words = GAMES["mall"].part("mails")
        ending = words.game_over(doc)  # the attractions by name, in German
        for kind in ("txt", "html"):
            parts[f"_game_over.{kind}"] = render(
                f"mall/mail/_game_over.{kind}", doc=doc, final=table, ending=ending
            )
        parts["help"] = "\n".join(i18n.gettext(line) for line in words.HELP)
        parts["tagline"] = i18n.gettext(words.TAGLINE)
        parts["picture"] = i18n.gettext(words.PICTURE_ALT)
        parts["turn picture"] = i18n.gettext(words.TURN_PICTURE_ALT)
        parts["final picture"] = i18n.gettext(words.FINAL_PICTURE_ALT)
    for name, text in parts.items():
        assert german(text, html=name.endswith(".html")) == [], name
    assert "Deine erlaubten Aktionen" in parts["_turn.txt"]


def test_the_mail_balloons_say_what_the_rules_page_says_in_german(finished: Any) -> None:
    doc = view(finished, None)
    table = doc["players"]
    with i18n.speaking("de"):
        text = render("mall/mail/_standings.txt", table=table, doc=doc)
        for p in table:
            for balloon in CONTENT.balloons:
                if p["score"][balloon.name]:
                    title, rule = explain.balloon_title(balloon), explain.balloon_rule(balloon)
                    assert f"{title}: {rule} — {p['score'][balloon.name]}" in text


def test_the_nim_mail_parts_are_german() -> None:
    nim = GAMES["nim"]
    state = nim.rules.setup(list(NAMES), {"pile": 5})
    with i18n.speaking("de"):
        parts = mail_parts("nim", state, nim.rules, 1)
        done = nim.rules.perform(
            nim.rules.perform(state, nim.rules.parse("take 3")), nim.rules.parse("take 2")
        )
        doc = nim.rules.view(done, None)
        table = [doc["players"][s - 1] for s in nim.standings(doc)]
        for kind in ("txt", "html"):
            parts[f"_game_over.{kind}"] = render(
                f"nim/mail/_game_over.{kind}", doc=doc, final=table, winners=["Bernd"]
            )
    for name, text in parts.items():
        assert german(text, html=name.endswith(".html")) == [], name


# -- the language comes back -------------------------------------------------------------


def test_outside_the_block_the_same_calls_speak_english(middle: Any) -> None:
    calls: list[Callable[[], str]] = [
        lambda: mall_page(middle, middle.turn),
        lambda: render("mall/rules.html", rules=GAMES["mall"].part("pages").rules()),
        lambda: explain.attraction_words(CONTENT.attractions["robot-arena"], CONTENT),
        lambda: GAME.describe(middle, 1),
    ]
    english = [call() for call in calls]
    with i18n.speaking("de"):
        german_said = [call() for call in calls]
    again = [call() for call in calls]
    assert again == english
    assert all(g != e for g, e in zip(german_said, english, strict=True))
    assert "Attractions in play" in english[0] and "Robot Arena" in english[2]
    assert "Roboter-Arena" in german_said[2]


def test_the_picture_of_the_malls_is_drawn_once_per_language(middle: Any) -> None:
    mails = GAMES["mall"].part("mails")
    doc = view(middle, None)
    english = mails.picture(doc)
    with i18n.speaking("de"):
        german_picture = mails.picture(doc)
    assert english is not None and german_picture is not None
    assert "Burger Bar" in english or "Arcade" in english or "Main Entrance" in english
    assert german_picture != english and "Haupteingang" in german_picture
    assert mails.picture(doc) == english


def test_a_random_game_never_narrates_english_in_german() -> None:
    rng = random.Random(11)
    state = setup(list(NAMES), seed="narration")
    with i18n.speaking("de"):
        for _n in range(60):
            if state.turn is None:
                break
            action = rng.choice(GAME.legal_actions(state))
            after = GAME.perform(state, action)
            told = GAME.narrate(state, action, after, None)
            assert german(told, html=False) == [], told
            state = after
