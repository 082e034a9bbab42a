"""The content set: every number of the rules (docs/games/mall.md sections 2, 7, 8, 10), read
from a data file in this package so another set can be dropped in without touching
rule code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pbem.i18n import N_
from pbem.i18n import gettext as _

from .pieces import derived

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True, eq=False)  # identity: a cheap key for a mall's cache
class Condition:
    """What a mall must show before an attraction may be built (docs/games/mall.md section 7)."""

    type: str
    n: int
    category: str | None = None
    direction: str | None = None

    @property
    def named_category(self) -> str:
        """The category of a line, cluster or count condition."""
        if self.category is None:
            raise ValueError(f"a {self.type} condition names a category")
        return self.category

    @property
    def named_direction(self) -> str:
        """The direction of a line condition: horizontal or vertical."""
        if self.direction is None:
            raise ValueError(f"a {self.type} condition names a direction")
        return self.direction

    def describe(self) -> str:
        """The condition in the rules' own words, e.g. "cluster of 4 fashion" (in the
        reader's language: the category is one of the content's words)."""
        n, category = self.n, _(self.category) if self.category else ""
        if self.type == "line":
            direction = _(_DIRECTIONS.get(self.direction or "", self.direction or ""))
            return _(
                "line of %(n)s %(kind)s, %(direction)s", n=n, kind=category, direction=direction
            )
        if self.type == "cluster":
            return _("cluster of %(n)s %(kind)s", n=n, kind=category)
        if self.type == "height":
            return _("height %(n)s", n=n)
        if self.type == "satisfied":
            return _("%(n)s satisfied customers", n=n)
        if self.type == "satisfied_each":
            return _("%(n)s satisfied customers of each want", n=n)
        if self.type == "row_distinct":
            return _("row of %(n)s distinct", n=n)
        if self.type == "count":
            return _("%(n)s %(kind)s elements", n=n, kind=category)
        if self.type == "count_each":
            return _("%(n)s elements of each of the four categories", n=n)
        raise ValueError(f"unknown condition type {self.type!r}")


_DIRECTIONS = {"vertical": N_("vertical"), "horizontal": N_("horizontal")}


@dataclass(frozen=True, slots=True)
class Shape:
    """An attraction's footprint. `cells` holds (column, row, kind) with both counted
    from the bottom-left of the bounding box and kind one of B, P, X."""

    rows: tuple[str, ...]
    cells: tuple[tuple[int, int, str], ...]
    width: int
    height: int

    @classmethod
    def from_rows(cls, rows: list[str] | tuple[str, ...]) -> Shape:
        rows = tuple(rows)
        height = len(rows)
        width = max(len(row) for row in rows)
        cells = tuple(
            (c, height - 1 - i, ch)
            for i, row in enumerate(rows)
            for c, ch in enumerate(row)
            if ch != "."
        )
        for _column, _row, ch in cells:
            if ch not in "BPX":
                raise ValueError(f"unknown shape character {ch!r} in {rows}")
        return cls(rows, cells, width, height)

    def mirrored(self) -> Shape:
        return Shape.from_rows(tuple(row.ljust(self.width, ".")[::-1] for row in self.rows))


@dataclass(frozen=True, slots=True)
class AttractionSpec:
    id: str
    colour: str
    points: int
    shape: Shape
    mirror_shape: Shape
    condition: Condition | None  # None for the personal attraction: the card decides
    personal: bool = False

    @property
    def symmetric(self) -> bool:
        return self.shape.cells == self.mirror_shape.cells


@dataclass(frozen=True, slots=True)
class ElementSpec:
    id: str
    category: str
    number: int
    name: str | None  # store name, display only
    wants: tuple[str, ...]  # entrances: the wants of spots 1 and 2


@dataclass(frozen=True, slots=True)
class BaySpec:
    id: str
    name: str
    type: str  # grey or brown
    points: int
    customers: tuple[str, ...] = ()
    notes: int = 0
    bonus_per: str | None = None  # "entrance" or "satisfied"
    bonus_max: int = 0

    def describe(self) -> str:
        """What the bay does once built, in words (in the reader's language)."""
        if self.customers:
            wants = [_(w) for w in self.customers]
            if len(wants) == 2:
                said = _("%(first)s and %(second)s", first=wants[0], second=wants[1])
            else:
                said = ", ".join(wants)
            return _(
                "%(count)s customers arrive on it, wanting %(wants)s", count=len(wants), wants=said
            )
        if self.notes:
            return _("you take up to %(notes)s notes from the bank", notes=self.notes)
        if self.bonus_per == "entrance":
            return _(
                "at the end, +1 point per entrance tile, at most +%(most)s", most=self.bonus_max
            )
        if self.bonus_per == "satisfied":
            return _(
                "at the end, +1 point per satisfied customer, at most +%(most)s",
                most=self.bonus_max,
            )
        return _("no effect")


@dataclass(frozen=True, slots=True)
class BalloonSet:
    name: str
    ranked_by: str  # "satisfied" or a store category
    values: tuple[int, ...]


@dataclass(frozen=True)
class Content:
    name: str
    min_players: int
    max_players: int
    categories: tuple[str, ...]
    stores: tuple[str, ...]
    elements: dict[str, ElementSpec]  # draw-list order: Y, B, G, R, each by number
    stores_per_player: int
    main_cells: tuple[Cell, ...]
    main_wants: tuple[str, ...]
    start_money: int
    start_bank: int
    columns: tuple[str, ...]
    rows: int
    reach: int
    purple_in_play: dict[int, int]
    pink_in_play: dict[int, int]
    attractions: dict[str, AttractionSpec]  # table order, the personal one last
    personal_id: str
    cards: dict[str, Condition]
    bays: dict[str, BaySpec]
    bay_requirements: dict[str, int]
    balloons: tuple[BalloonSet, ...]

    @derived
    def said(self) -> dict[tuple[object, str | tuple[str, ...]], str]:
        """Words about this content's pieces, kept once said, by the catalog that said
        them and the piece (render.tile_words) or the wants of customers arriving
        (render._arrivals): the content never changes, and a catalog says a piece one
        way only."""
        return {}

    @property
    def commons(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.attractions.values() if not a.personal)

    def commons_of_colour(self, colour: str) -> tuple[str, ...]:
        return tuple(
            a.id for a in self.attractions.values() if not a.personal and a.colour == colour
        )

    def tiles_for(self, players: int) -> list[str]:
        """The element tiles used by a P-player game, in the rules' draw-list order."""
        entrance_per_group = players
        chosen = []
        for spec in self.elements.values():
            if spec.category == "entrance":
                if (spec.number - 1) % 4 < entrance_per_group:
                    chosen.append(spec.id)
            elif spec.number <= self.stores_per_player * players:
                chosen.append(spec.id)
        return chosen

    def cost(self, row: int) -> int:
        """Notes a Dispenser row costs: row r costs r - 1."""
        return row - 1


def _elements(data: dict[str, Any], categories: tuple[str, ...]) -> dict[str, ElementSpec]:
    letters = data["letters"]
    names = data["store_names"]
    groups = data["entrance_groups"]
    elements: dict[str, ElementSpec] = {}
    for category in categories:
        for number in range(1, data["per_colour"] + 1):
            tile_id = f"{letters[category]}{number:02d}"
            if category == "entrance":
                wants = next(g["wants"] for g in groups if g["from"] <= number <= g["to"])
                elements[tile_id] = ElementSpec(tile_id, category, number, None, tuple(wants))
            else:
                name = next(n[category] for n in names if n["from"] <= number <= n["to"])
                elements[tile_id] = ElementSpec(tile_id, category, number, name, ())
    return elements


def _condition(data: dict[str, Any]) -> Condition:
    return Condition(data["type"], data["n"], data.get("category"), data.get("direction"))


def _attraction(data: dict[str, Any], personal: bool = False) -> AttractionSpec:
    shape = Shape.from_rows(data["shape"])
    condition = None if personal else _condition(data["condition"])
    return AttractionSpec(
        data["id"], data["colour"], data["points"], shape, shape.mirrored(), condition, personal
    )


def parse_content(data: dict[str, Any]) -> Content:
    """Build a content set from its JSON document."""
    categories = tuple(data["categories"])
    attractions = {a["id"]: _attraction(a) for a in data["attractions"]}
    personal = _attraction(data["personal"], personal=True)
    attractions[personal.id] = personal
    bays = {
        b["id"]: BaySpec(
            b["id"],
            b["name"],
            b["type"],
            b["points"],
            tuple(b.get("customers", ())),
            b.get("notes", 0),
            b.get("bonus", {}).get("per"),
            b.get("bonus", {}).get("max", 0),
        )
        for b in data["bays"]
    }
    in_play = data["commons_in_play"]
    return Content(
        name=data["name"],
        min_players=data["players"]["min"],
        max_players=data["players"]["max"],
        categories=categories,
        stores=tuple(data["stores"]),
        elements=_elements(data["elements"], categories),
        stores_per_player=data["elements"]["stores_per_player"],
        main_cells=tuple((x, y) for x, y in data["main_entrance"]["cells"]),
        main_wants=tuple(data["main_entrance"]["wants"]),
        start_money=data["money"]["start"],
        start_bank=data["money"]["bank"],
        columns=tuple(data["dispenser"]["columns"]),
        rows=data["dispenser"]["rows"],
        reach=data["reach"],
        purple_in_play={int(k): v for k, v in in_play["purple"].items()},
        pink_in_play={int(k): v for k, v in in_play["pink"].items()},
        attractions=attractions,
        personal_id=personal.id,
        cards={c["id"]: _condition(c["condition"]) for c in data["cards"]},
        bays=bays,
        bay_requirements=dict(data["bay_requirements"]),
        balloons=tuple(
            BalloonSet(b["set"], b["ranked_by"], tuple(b["values"])) for b in data["balloons"]
        ),
    )


@cache
def load(name: str = "standard") -> Content:
    """The content set shipped in this package under `name`.json."""
    text = resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    return parse_content(json.loads(text))
