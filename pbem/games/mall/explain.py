"""The mall in a player's words, all drawn from the content set: the names and short
explanations of attractions, docking bays and balloons, what each player's balloons
are for in the standings, and customer choices said as who wants what from where."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .content import AttractionSpec, BalloonSet, BaySpec, Condition, Content
from .document import mall_of
from .scoring import ranking_key

# One word of an id said otherwise than its capitalised self.
_SPELLED = {"founders": "Founder's"}
_PLACES = {1: "1st", 2: "2nd", 3: "3rd"}


def kind_words(category: str, n: int = 2) -> str:
    """Elements of a category in words: "food stores", "entrance tiles"."""
    noun = "entrance tile" if category == "entrance" else f"{category} store"
    return noun if n == 1 else noun + "s"


def attraction_name(attraction_id: str) -> str:
    """An attraction's name from its id: "zero-g-carousel" is "Zero-G Carousel"."""
    words: list[str] = []
    for word in attraction_id.split("-"):
        if len(word) == 1 and words:
            words[-1] += "-" + word.upper()  # "zero-g" reads "Zero-G"
        else:
            words.append(_SPELLED.get(word, word.capitalize()))
    return " ".join(words)


def condition_words(condition: Condition, content: Content) -> str:
    """What a mall must show, said plainly: "3 food stores stacked in one column"."""
    n, kind = condition.n, condition.type
    if kind == "line":
        where = (
            "stacked in one column"
            if condition.direction == "vertical"
            else "side by side on one floor"
        )
        return f"{n} {kind_words(condition.named_category, n)} {where}"
    if kind == "cluster":
        return f"a group of {n} {kind_words(condition.named_category, n)} joined edge to edge"
    if kind == "height":
        return f"a tile on floor {n} or higher"
    if kind == "satisfied":
        return f"{n} satisfied customers"
    if kind == "satisfied_each":
        return f"{n} satisfied customers of each want ({', '.join(content.stores)})"
    if kind == "row_distinct":
        kinds = ", ".join(content.categories)
        return f"{n} elements side by side on one floor, one of each kind ({kinds})"
    if kind == "count":
        return f"{n} {kind_words(condition.named_category, n)}"
    if kind == "count_each":
        return f"{n} elements of each of the {len(content.categories)} kinds"
    return condition.describe()


def attraction_words(spec: AttractionSpec, content: Content) -> str:
    """An attraction's short explanation: points, when it may be built, who takes it."""
    name = attraction_name(spec.id)
    if spec.personal:
        return (
            f"{name}: {spec.points} points, one for each player; build yours once your "
            "secret card's condition holds in your mall (building it shows your card)."
        )
    condition = condition_words(spec.condition, content) if spec.condition else "nothing"
    return (
        f"{name}: {spec.points} points; build it once your mall has {condition}. "
        f"A {spec.colour} common attraction: only the first player to build it has it."
    )


def bay_requirement(bay: BaySpec, content: Content) -> str:
    """What a player needs before building a bay of this type."""
    n = content.bay_requirements[bay.type]
    return (
        f"needs {n} element{'' if n == 1 else 's'} of each of the {len(content.categories)} kinds"
    )


def bay_label(bay: BaySpec, content: Content) -> str:
    """A bay on its button: "Shuttle Stop (GD1), 3 points, needs 1 element of each ..."."""
    return f"{bay.name} ({bay.id}), {bay.points} points, {bay_requirement(bay, content)}"


def bay_words(bay: BaySpec, content: Content) -> str:
    """A bay's short explanation: name, type, points, requirement and effect."""
    return (
        f"{bay.name} ({bay.id}): {bay.type} docking bay, {bay.points} points; "
        f"{bay_requirement(bay, content)}; when built, {bay.describe()}. "
        "Each player may have one grey and one brown bay; the first to build a bay has it."
    )


def bay_tile_words(bay: BaySpec) -> str:
    """A built bay's tooltip: "GD2 Buggy Port: grey docking bay, 3 points; when built, ..."."""
    return (
        f"{bay.id} {bay.name}: {bay.type} docking bay, {bay.points} points;"
        f" when built, {bay.describe()}"
    )


def attraction_tile_words(attraction_id: str, content: Content) -> str:
    """A built attraction's tooltip: "Robot Arena: attraction, 6 points; needs ..."."""
    name = attraction_name(attraction_id)
    spec = content.attractions.get(attraction_id)
    if spec is None:
        return f"{name}: attraction"
    what = "personal attraction" if spec.personal else "attraction"
    needs = f"; needs {condition_words(spec.condition, content)}" if spec.condition else ""
    return f"{name}: {what}, {spec.points} points{needs}"


# -- balloons ---------------------------------------------------------------------------


def balloon_title(balloon: BalloonSet) -> str:
    """ "Rainbow", or "Yellow" with nothing more: the set's own name."""
    return balloon.name.capitalize()


def balloon_rule(balloon: BalloonSet) -> str:
    """What a balloon set rewards: "most satisfied customers"."""
    if balloon.ranked_by == "satisfied":
        return "most satisfied customers"
    return f"largest group of {kind_words(balloon.ranked_by)} joined edge to edge"


def balloon_values(balloon: BalloonSet, players: int) -> tuple[int, ...]:
    """The values a set gives out in a game of `players` (its first P - 1)."""
    return balloon.values[: players - 1]


def balloon_words(balloon: BalloonSet, players: int) -> str:
    """A balloon set's short explanation for a game of `players`."""
    places = ", ".join(
        f"{_PLACES.get(i, f'{i}th')} {v}" for i, v in enumerate(balloon_values(balloon, players), 1)
    )
    return f"{balloon_title(balloon)}: {balloon_rule(balloon)} ({places})"


@dataclass(frozen=True)
class BalloonLine:
    """One player's balloon of one set: what it is for, how they stand, its points."""

    set: str
    title: str
    rule: str
    standing: str  # "5 satisfied, 1st", "none yet"
    points: int

    @property
    def text(self) -> str:
        return f"{self.title}: {self.rule} ({self.standing}) — {self.points}"


def balloon_lines(doc: Mapping[str, Any], content: Content) -> dict[int, list[BalloonLine]]:
    """Per seat, a line for each balloon set of the standings in a state document."""
    malls = {p["seat"]: mall_of(dict(p), content) for p in doc["players"]}
    lines: dict[int, list[BalloonLine]] = {seat: [] for seat in malls}
    for balloon in content.balloons:
        keys = {seat: ranking_key(balloon, mall) for seat, mall in malls.items()}
        ranked = sorted((k for k in keys.values() if k is not None), reverse=True)
        for p in doc["players"]:
            key = keys[p["seat"]]
            if key is None:
                standing = (
                    "none yet"
                    if balloon.ranked_by == "satisfied"
                    else f"no {balloon.ranked_by} store"
                )
            else:
                place = ranked.index(key) + 1
                tied = ranked.count(key) > 1
                measure = (
                    f"{key[0]} satisfied"
                    if balloon.ranked_by == "satisfied"
                    else f"{key[0]} joined"
                )
                standing = f"{measure}, {'tied ' if tied else ''}{_PLACES.get(place, f'{place}th')}"
            lines[p["seat"]].append(
                BalloonLine(
                    balloon.name,
                    balloon_title(balloon),
                    balloon_rule(balloon),
                    standing,
                    int(p["score"][balloon.name]),
                )
            )
    return lines


# -- customers ----------------------------------------------------------------------------


def place_words(tile_id: str, content: Content) -> str:
    """Where a customer waits: "the Main Entrance", "entrance R01", "the Shuttle Stop (GD1)"."""
    if tile_id in content.bays:
        return f"the {content.bays[tile_id].name} ({tile_id})"
    spec = content.elements.get(tile_id)
    if spec is not None and spec.category == "entrance":
        return f"entrance {tile_id}"
    if tile_id.startswith("M"):
        return "the Main Entrance"
    return tile_id


@dataclass(frozen=True)
class Choice:
    """One customer who could move onto a new store, or several who are the same
    choice (the same want, waiting on the same tile): `option` is the legal action's
    text that moves the first of them."""

    option: str
    words: str
    customers: tuple[str, ...]


def customer_choices(
    options: Sequence[Mapping[str, Any]], player: Mapping[str, Any], content: Content
) -> list[Choice]:
    """The build options of one cell that name a customer, as choices in words, the
    identical ones merged, in the options' order."""
    customers = {c["id"]: c for c in player["customers"]}
    merged: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for option in options:
        customer = customers.get(option["action"].get("customer") or "")
        if customer is None:
            continue
        key = (customer["want"], customer["on"])
        merged.setdefault(key, []).append((option["text"], customer["id"]))
    choices = []
    for (want, on), found in merged.items():
        where = place_words(on, content)
        if len(found) == 1:
            words = f"The customer wanting {want}, from {where}"
        else:
            words = f"A customer wanting {want}, from {where} (one of {len(found)} alike)"
        choices.append(Choice(found[0][0], words, tuple(c for _, c in found)))
    return choices
