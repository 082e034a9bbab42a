"""The mall in a player's words, all drawn from the content set: the names and short
explanations of attractions, docking bays and balloons, what each player's balloons
are for in the standings, and customer choices said as who wants what from where.

Every sentence is in the language of the moment (pbem.i18n); a content name (a store,
bay or attraction) is translated where it is shown, with `gettext(name)`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.i18n import N_, ngettext
from pbem.i18n import gettext as _

from .content import AttractionSpec, BalloonSet, BaySpec, Condition, Content
from .document import mall_of
from .scoring import ranking_key

# One word of an id said otherwise than its capitalised self.
_SPELLED = {"founders": "Founder's"}
_PLACES = {1: N_("1st"), 2: N_("2nd"), 3: N_("3rd")}
# The content's words for kinds, wants, colours and bay types, as shown to players.
WORDS = {
    "food": N_("food"),
    "hobby": N_("hobby"),
    "fashion": N_("fashion"),
    "entrance": N_("entrance"),
    "purple": N_("purple"),
    "pink": N_("pink"),
    "orange": N_("orange"),
    "grey": N_("grey"),
    "brown": N_("brown"),
    "rainbow": N_("rainbow"),
    "yellow": N_("yellow"),
    "blue": N_("blue"),
    "green": N_("green"),
}
TITLES = {  # a kind or a balloon set as a heading
    "food": N_("Food"),
    "hobby": N_("Hobby"),
    "fashion": N_("Fashion"),
    "entrance": N_("Entrance"),
    "rainbow": N_("Rainbow"),
    "yellow": N_("Yellow"),
    "blue": N_("Blue"),
    "green": N_("Green"),
}
# The standard content's names that its JSON does not hold as a "name": its stores'
# names (a table by number) and its attractions' (made from their ids), for the catalog.
CONTENT_NAMES = (
    N_("Burger Bar"),
    N_("Arcade"),
    N_("Boot Orbit"),
    N_("Noodle Dome"),
    N_("Zero-G Gym"),
    N_("Hat Nebula"),
    N_("Cosmic Creamery"),
    N_("Holo Cinema"),
    N_("Suit Station"),
    N_("Zero-G Carousel"),
    N_("Holo Fountain"),
    N_("Meteor Slide"),
    N_("Haunted Hotel"),
    N_("Giant Fishbowl"),
    N_("Robot Arena"),
    N_("Galaxy Wheel"),
    N_("Roller Coaster"),
    N_("Space Elevator"),
    N_("Aqua Dome"),
    N_("Founder's Statue"),
)


def said(word: str) -> str:
    """A kind, want, colour or bay type in the reader's language: "food", "grey"."""
    return _(WORDS.get(word, word))


def title(word: str) -> str:
    """A kind or a balloon set as a heading: "Food", "Rainbow"."""
    return _(TITLES.get(word, word.capitalize()))


def both(first: str, second: str) -> str:
    """Two things: "food and hobby"."""
    return _("%(first)s and %(second)s", first=first, second=second)


def ordinal(place: int) -> str:
    """A place in words: "1st", "4th"."""
    return _(_PLACES[place]) if place in _PLACES else _("%(n)sth", n=place)


def kind_words(category: str, n: int = 2) -> str:
    """Elements of a category in words: "food stores", "entrance tiles"."""
    if category == "entrance":
        return ngettext("entrance tile", "entrance tiles", n)
    if category == "food":
        return ngettext("food store", "food stores", n)
    if category == "hobby":
        return ngettext("hobby store", "hobby stores", n)
    if category == "fashion":
        return ngettext("fashion store", "fashion stores", n)
    noun = f"{category} store"
    return noun if n == 1 else noun + "s"


def attraction_name(attraction_id: str) -> str:
    """An attraction's name from its id: "zero-g-carousel" is "Zero-G Carousel" (in
    the reader's language)."""
    words: list[str] = []
    for word in attraction_id.split("-"):
        if len(word) == 1 and words:
            words[-1] += "-" + word.upper()  # "zero-g" reads "Zero-G"
        else:
            words.append(_SPELLED.get(word, word.capitalize()))
    name = " ".join(words)
    return _(name)


def condition_words(condition: Condition, content: Content) -> str:
    """What a mall must show, said plainly: "3 food stores stacked in one column"."""
    n, kind = condition.n, condition.type
    if kind == "line":
        kinds = kind_words(condition.named_category, n)
        if condition.direction == "vertical":
            return _("%(n)s %(kinds)s stacked in one column", n=n, kinds=kinds)
        return _("%(n)s %(kinds)s side by side on one floor", n=n, kinds=kinds)
    if kind == "cluster":
        kinds = kind_words(condition.named_category, n)
        return _("a group of %(n)s %(kinds)s joined edge to edge", n=n, kinds=kinds)
    if kind == "height":
        return _("a tile on floor %(n)s or higher", n=n)
    if kind == "satisfied":
        return _("%(n)s satisfied customers", n=n)
    if kind == "satisfied_each":
        wants = ", ".join(said(w) for w in content.stores)
        return _("%(n)s satisfied customers of each want (%(wants)s)", n=n, wants=wants)
    if kind == "row_distinct":
        kinds = ", ".join(said(c) for c in content.categories)
        return _(
            "%(n)s elements side by side on one floor, one of each kind (%(kinds)s)",
            n=n,
            kinds=kinds,
        )
    if kind == "count":
        return f"{n} {kind_words(condition.named_category, n)}"
    if kind == "count_each":
        return _(
            "%(n)s elements of each of the %(kinds)s kinds", n=n, kinds=len(content.categories)
        )
    return condition.describe()


def attraction_words(spec: AttractionSpec, content: Content) -> str:
    """An attraction's short explanation: points, when it may be built, who takes it."""
    name = attraction_name(spec.id)
    if spec.personal:
        return _(
            "%(name)s: %(points)s points, one for each player; build yours once your "
            "secret card's condition holds in your mall (building it shows your card).",
            name=name,
            points=spec.points,
        )
    condition = condition_words(spec.condition, content) if spec.condition else _("nothing")
    return _(
        "%(name)s: %(points)s points; build it once your mall has %(condition)s. "
        "A %(colour)s common attraction: only the first player to build it has it.",
        name=name,
        points=spec.points,
        condition=condition,
        colour=said(spec.colour),
    )


def bay_requirement(bay: BaySpec, content: Content) -> str:
    """What a player needs before building a bay of this type."""
    n = content.bay_requirements[bay.type]
    return ngettext(
        "needs %(num)d element of each of the %(kinds)s kinds",
        "needs %(num)d elements of each of the %(kinds)s kinds",
        n,
        kinds=len(content.categories),
    )


def bay_label(bay: BaySpec, content: Content) -> str:
    """A bay on its button: "Shuttle Stop (GD1), 3 points, needs 1 element of each ..."."""
    return _(
        "%(name)s (%(id)s), %(points)s points, %(requirement)s",
        name=_(bay.name),
        id=bay.id,
        points=bay.points,
        requirement=bay_requirement(bay, content),
    )


def bay_words(bay: BaySpec, content: Content) -> str:
    """A bay's short explanation: name, type, points, requirement and effect."""
    return _(
        "%(name)s (%(id)s): %(type)s docking bay, %(points)s points; "
        "%(requirement)s; when built, %(effect)s. "
        "Each player may have one grey and one brown bay; the first to build a bay has it.",
        name=_(bay.name),
        id=bay.id,
        type=said(bay.type),
        points=bay.points,
        requirement=bay_requirement(bay, content),
        effect=bay.describe(),
    )


def bay_tile_words(bay: BaySpec) -> str:
    """A built bay's tooltip: "GD2 Buggy Port: grey docking bay, 3 points; when built, ..."."""
    return _(
        "%(id)s %(name)s: %(type)s docking bay, %(points)s points; when built, %(effect)s",
        id=bay.id,
        name=_(bay.name),
        type=said(bay.type),
        points=bay.points,
        effect=bay.describe(),
    )


def attraction_tile_words(attraction_id: str, content: Content) -> str:
    """A built attraction's tooltip: "Robot Arena: attraction, 6 points; needs ..."."""
    name = attraction_name(attraction_id)
    spec = content.attractions.get(attraction_id)
    if spec is None:
        return _("%(name)s: attraction", name=name)
    what = _("personal attraction") if spec.personal else _("attraction")
    if spec.condition:
        return _(
            "%(name)s: %(what)s, %(points)s points; needs %(condition)s",
            name=name,
            what=what,
            points=spec.points,
            condition=condition_words(spec.condition, content),
        )
    return _("%(name)s: %(what)s, %(points)s points", name=name, what=what, points=spec.points)


# -- balloons ---------------------------------------------------------------------------


def balloon_title(balloon: BalloonSet) -> str:
    """ "Rainbow", or "Yellow" with nothing more: the set's own name."""
    return title(balloon.name)


def balloon_rule(balloon: BalloonSet) -> str:
    """What a balloon set rewards: "most satisfied customers"."""
    if balloon.ranked_by == "satisfied":
        return _("most satisfied customers")
    return _("largest group of %(kinds)s joined edge to edge", kinds=kind_words(balloon.ranked_by))


def balloon_values(balloon: BalloonSet, players: int) -> tuple[int, ...]:
    """The values a set gives out in a game of `players` (its first P - 1)."""
    return balloon.values[: players - 1]


def balloon_words(balloon: BalloonSet, players: int) -> str:
    """A balloon set's short explanation for a game of `players`."""
    places = ", ".join(
        _("%(place)s %(points)s", place=ordinal(i), points=v)
        for i, v in enumerate(balloon_values(balloon, players), 1)
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
                    _("none yet")
                    if balloon.ranked_by == "satisfied"
                    else _("no %(kind)s store", kind=said(balloon.ranked_by))
                )
            else:
                place = ranked.index(key) + 1
                tied = ranked.count(key) > 1
                measure = (
                    _("%(n)s satisfied", n=key[0])
                    if balloon.ranked_by == "satisfied"
                    else _("%(n)s joined", n=key[0])
                )
                standing = (
                    _("%(measure)s, tied %(place)s", measure=measure, place=ordinal(place))
                    if tied
                    else f"{measure}, {ordinal(place)}"
                )
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
        return _("the %(name)s (%(id)s)", name=_(content.bays[tile_id].name), id=tile_id)
    spec = content.elements.get(tile_id)
    if spec is not None and spec.category == "entrance":
        return _("entrance %(id)s", id=tile_id)
    if tile_id.startswith("M"):
        return _("the Main Entrance")
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
            words = _("The customer wanting %(want)s, from %(place)s", want=said(want), place=where)
        else:
            words = _(
                "A customer wanting %(want)s, from %(place)s (one of %(count)s alike)",
                want=said(want),
                place=where,
                count=len(found),
            )
        choices.append(Choice(found[0][0], words, tuple(c for _, c in found)))
    return choices
