"""The mall said in a player's words (pbem/games/mall/explain.py): customer choices as
who wants what from where, identical ones merged; balloons explained with the
player's standing and points; attractions and bays by name with their condition,
requirement and effect — all from the content set (docs/games/mall.md sections 2, 7, 8, 10)."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.games.mall import GAME, apply, load, parse, setup, view
from pbem.games.mall.explain import (
    attraction_name,
    attraction_words,
    balloon_lines,
    balloon_rule,
    balloon_title,
    balloon_words,
    bay_label,
    bay_words,
    customer_choices,
)

CONTENT = load()
SUPPLY = ["R01", "Y01", "Y02", "Y03", "Y05", "Y06", "Y07", "Y08"]
SUPPLY += ["B01", "Y09", "G01", "Y10", "G02", "Y11", "G03", "Y12", "B02", "B03"]


def played(*moves: str):
    state = setup(
        ["Ann", "Ben"], supply=SUPPLY, commons=["robot-arena"], secrets={"1": "O3", "2": "O5"}
    )
    for move in moves:
        state = apply(state, parse(move))
    return state


def options_at(state, slot: str, x: int, y: int) -> list[dict]:
    found = []
    for action in GAME.legal_actions(state):
        form = GAME.to_json(action)
        if form["type"] == "build" and (form["slot"], form["x"], form["y"]) == (slot, x, y):
            found.append({"text": GAME.format(action), "action": form})
    return found


def test_customer_choices_say_who_wants_what_from_where_and_merge_identical_ones():
    # Ann's entrance R01 brings two food customers; a food store beside it can take
    # either of them, or the Main Entrance's food customer.
    state = played("build L1 at 1,2", "money R")
    options = options_at(state, "L1", 0, 2)
    assert [o["action"]["customer"] for o in options] == ["M1.1", "R01.1", "R01.2"]
    ann = view(state, 1)["players"][0]
    choices = customer_choices(options, ann, CONTENT)
    assert [c.words for c in choices] == [
        "The customer wanting food, from the Main Entrance",
        "A customer wanting food, from entrance R01 (one of 2 alike)",
    ]
    assert [c.option for c in choices] == ["build L1 at 0,2 for M1.1", "build L1 at 0,2 for R01.1"]
    assert choices[1].customers == ("R01.1", "R01.2")
    assert not any("." in c.words.split("(")[0].replace("entrance R01", "") for c in choices)


def test_customers_arrived_at_a_bay_are_said_to_come_from_the_bay_by_name():
    ann = {"customers": [{"id": "GD1.1", "want": "food", "on": "GD1", "satisfied": False}]}
    options = [
        {"text": "build L1 at 2,2 for GD1.1", "action": {"type": "build", "customer": "GD1.1"}}
    ]
    (choice,) = customer_choices(options, ann, CONTENT)
    assert choice.words == "The customer wanting food, from the Shuttle Stop (GD1)"


def test_each_balloon_line_says_what_it_rewards_where_the_player_stands_and_its_points():
    # Ann satisfies one customer with a food store; Ben has nothing yet.
    state = played("build L1 at 1,2", "money R", "build L1 at 0,2 for M1.1")
    doc = view(state, None)
    lines = balloon_lines(doc, CONTENT)
    assert [line.text for line in lines[1]] == [
        "Rainbow: most satisfied customers (1 satisfied, 1st) — 12",
        "Yellow: largest group of food stores joined edge to edge (1 joined, 1st) — 8",
        "Blue: largest group of hobby stores joined edge to edge (no hobby store) — 0",
        "Green: largest group of fashion stores joined edge to edge (no fashion store) — 0",
    ]
    assert lines[2][0].text == "Rainbow: most satisfied customers (none yet) — 0"
    for seat, seat_lines in lines.items():
        score = doc["players"][seat - 1]["score"]
        assert [line.points for line in seat_lines] == [score[b.name] for b in CONTENT.balloons]


def test_players_level_on_a_balloon_are_said_to_be_tied_and_share_its_points():
    # Ann: entrance R01, then a food store for M1.1; Ben: a food store for M2.1. One
    # satisfied customer each, the highest on floor 2 each: level on rainbow and yellow.
    state = played("build L1 at 1,2", "build L1 at 0,2", "build L1 at 0,2 for M1.1")
    lines = balloon_lines(view(state, None), CONTENT)
    for seat in (1, 2):
        assert (
            lines[seat][0].text == "Rainbow: most satisfied customers (1 satisfied, tied 1st) — 6"
        )
        assert lines[seat][1].standing == "1 joined, tied 1st"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_balloon_words_give_the_values_of_the_player_count(players):
    rainbow = next(b for b in CONTENT.balloons if b.name == "rainbow")
    expected = {2: "(1st 12)", 3: "(1st 12, 2nd 8)", 4: "(1st 12, 2nd 8, 3rd 4)"}[players]
    assert balloon_words(rainbow, players) == f"Rainbow: most satisfied customers {expected}"


def test_attractions_are_named_in_words_with_their_condition_and_points():
    assert attraction_name("zero-g-carousel") == "Zero-G Carousel"
    assert attraction_name("founders-statue") == "Founder's Statue"
    words = attraction_words(CONTENT.attractions["zero-g-carousel"], CONTENT)
    assert words == (
        "Zero-G Carousel: 4 points; build it once your mall has 3 food stores stacked in "
        "one column. A purple common attraction: only the first player to build it has it."
    )
    for spec in CONTENT.attractions.values():
        text = attraction_words(spec, CONTENT)
        assert spec.id not in text and f"{spec.points} points" in text


def test_bays_are_named_with_points_requirement_and_effect():
    bay = CONTENT.bays["GD1"]
    assert bay_label(bay, CONTENT) == (
        "Shuttle Stop (GD1), 3 points, needs 1 element of each of the 4 kinds"
    )
    assert "2 customers arrive on it, wanting food and fashion" in bay_words(bay, CONTENT)
    assert "needs 2 elements of each" in bay_words(CONTENT.bays["BD3"], CONTENT)
    assert "take up to 5 notes from the bank" in bay_words(CONTENT.bays["BD3"], CONTENT)
    assert "+1 point per satisfied customer, at most +8" in bay_words(CONTENT.bays["BD4"], CONTENT)


def mail_partial(name: str, table: list[dict]) -> str:
    """A mall mail partial rendered as the mails render it (the game's templates under
    its name, blocks trimmed, HTML escaped)."""
    from importlib.resources import files

    from jinja2 import (
        Environment,
        FileSystemLoader,
        PrefixLoader,
        StrictUndefined,
        select_autoescape,
    )

    folder = str(files("pbem.games.mall").joinpath("templates"))
    env = Environment(
        loader=PrefixLoader({"mall": FileSystemLoader(folder)}),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    i18n.install(env)  # the mails' gettext, as pbem.mail.templating gives it
    return env.get_template(f"mall/mail/{name}").render(table=table)


@pytest.mark.parametrize("part", ["_standings.txt", "_standings.html"])
def test_the_mail_standings_explain_each_balloon_in_the_rules_own_words(part):
    # Ann: rainbow and yellow balloons (tied with Ben: 6 and 4 each); nobody scored blue.
    state = played("build L1 at 1,2", "build L1 at 0,2", "build L1 at 0,2 for M1.1")
    table = view(state, None)["players"]
    text = mail_partial(part, table)
    for p in table:
        for balloon in CONTENT.balloons:
            line = f"{balloon_title(balloon)}: {balloon_rule(balloon)} — {p['score'][balloon.name]}"
            assert (line in text) == (p["score"][balloon.name] > 0), (p["name"], line)
    assert "Rainbow: most satisfied customers — 6" in text
    assert "Yellow: largest group of food stores joined edge to edge — 4" in text


def test_a_player_without_balloons_is_said_to_have_none_in_the_mail():
    table = view(played(), None)["players"]
    text = mail_partial("_standings.txt", table)
    assert "  Ann:\n    no balloon yet\n" in text and "  Ben:\n    no balloon yet\n" in text
