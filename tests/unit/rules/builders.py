"""Explicit setups and hand-built malls for the rules tests. A `Plan` places tiles under
the rules of docs/games/mall.md sections 1, 6, 7 and 8, checked here independently of the engine
(its own reach walk included), so every position it makes is one the rules allow."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from pbem.games.mall import (
    IllegalAction,
    State,
    apply,
    format_action,
    legal_actions,
    load,
    parse,
    setup,
)
from pbem.games.mall.mall import Customer, Mall, Tile

CONTENT = load()
NAMES = ("Ann", "Ben", "Cid", "Dee")
SECRETS = {"1": "O1", "2": "O2", "3": "O3", "4": "O4"}
CATEGORY = {"Y": "food", "B": "hobby", "G": "fashion", "R": "entrance"}
STORES = ("food", "hobby", "fashion")

# docs/games/mall.md section 2: the wants of entrance tiles, by group of four numbers.
ENTRANCE_WANTS = (
    ("food", "food"),
    ("hobby", "hobby"),
    ("fashion", "fashion"),
    ("food", "hobby"),
    ("hobby", "fashion"),
    ("fashion", "food"),
)

# docs/games/mall.md section 7, shapes drawn top row first.
SHAPES = {
    "zero-g-carousel": ("PP", "BB"),
    "holo-fountain": ("P", "X", "B"),
    "meteor-slide": ("P..", "XX.", ".XB"),
    "haunted-hotel": ("PPP", "XX.", ".B."),
    "giant-fishbowl": (".P.", "XXX", "XBX"),
    "robot-arena": ("PP.", "XXX", "..B"),
    "galaxy-wheel": (".P.", "XXX", ".X.", ".B."),
    "roller-coaster": ("P..P", "XXXX", ".B.."),
    "space-elevator": ("P", "X", "X", "X", "B"),
    "aqua-dome": ("PPP", "XXX", "B.B"),
    "founders-statue": ("P", "B"),
}

# docs/games/mall.md section 8: the customers arriving on a bay, and the elements of each category
# a bay needs (by the first letter of its id: Grey or Brown).
BAY_ARRIVALS = {
    "GD1": ("food", "fashion"),
    "GD2": ("hobby", "food"),
    "BD1": ("food", "hobby", "fashion"),
    "BD2": ("fashion", "hobby"),
}
BAY_NEEDS = {"G": 1, "B": 2}

# Tiles no test builds with: they pad the Dispenser and the supply so that it does not
# run out (end trigger A) before a test is done.
PADDING = tuple(f"{c}{n:02d}" for n in range(17, 25) for c in "GBY")
ALL_TILES = tuple(f"{c}{n:02d}" for c in "YBGR" for n in range(1, 25))

Cell = tuple[int, int]


def category(tile_id: str) -> str:
    return CATEGORY[tile_id[0]]


def entrance_wants(tile_id: str) -> tuple[str, str]:
    return ENTRANCE_WANTS[(int(tile_id[1:]) - 1) // 4]


def shape_cells(attraction: str, x: int, y: int, mirror: bool = False) -> dict[Cell, str]:
    """Cells of an attraction placed with its bounding box's bottom-left at (x, y):
    the character in row r from the bottom, column c from the left covers (x+c, y+r)."""
    rows = SHAPES[attraction]
    width = max(len(r) for r in rows)
    cells = {}
    for r, row in enumerate(reversed(rows)):
        row = row.ljust(width, ".")
        if mirror:
            row = row[::-1]
        for c, char in enumerate(row):
            if char != ".":
                cells[(x + c, y + r)] = char
    return cells


# -- games from explicit setups ---------------------------------------------------------


def game(
    left: Iterable[str] = (),
    right: Iterable[str] = (),
    supply: Iterable[str] = (),
    *,
    players: int = 2,
    commons: Iterable[str] = (),
    secrets: dict[str, str] | None = None,
    avoid: Iterable[str] = (),
) -> State:
    """A game whose Dispenser column L holds `left` and column R `right` (bottom to top,
    the rest of each column padding), then `supply`, then every other tile as padding
    (never the tiles in `avoid`), so that the supply does not run out."""
    left, right, supply = list(left), list(right), list(supply)
    taken = set(left + right + supply) | set(avoid)
    spare = [t for t in dict.fromkeys(PADDING + ALL_TILES) if t not in taken]
    left += [spare.pop(0) for _ in range(4 - len(left))]
    right += [spare.pop(0) for _ in range(4 - len(right))]
    order = left + right + supply + spare
    secrets = secrets or {k: v for k, v in SECRETS.items() if int(k) <= players}
    return setup(list(NAMES[:players]), supply=order, commons=list(commons), secrets=secrets)


def dealt(order: Iterable[str], *, players: int = 2, commons: Iterable[str] = ()) -> State:
    """A game dealt from exactly `order` (no padding): the first 8 fill the Dispenser."""
    secrets = {k: v for k, v in SECRETS.items() if int(k) <= players}
    return setup(list(NAMES[:players]), supply=list(order), commons=list(commons), secrets=secrets)


def position(
    *plans: Plan,
    players: int | None = None,
    money: int | None = None,
    bank: int | None = None,
    **options: Any,
) -> State:
    """A game (see `game` for the options) in which each plan's seat has that mall."""
    players = players or max([2, *(plan.seat for plan in plans)])
    built = {t.id for plan in plans for t in plan.tiles}
    state = game(players=players, avoid=built, **options)
    return with_malls(state, *plans, money=money, bank=bank)


def play(state: State, *actions: str) -> State:
    """The state after each action in turn, each by whoever is to move."""
    for text in actions:
        state = apply(state, parse(text))
    return state


def refusal(state: State, text: str) -> str:
    """Why the player to move may not take the action `text` (it must be refused)."""
    with pytest.raises(IllegalAction) as error:
        apply(state, parse(text))
    return str(error.value)


def legal_texts(state: State) -> list[str]:
    return [format_action(a) for a in legal_actions(state)]


def can_build(state: State, attraction: str) -> bool:
    """Whether the player to move has any legal placement of `attraction`."""
    return any(text.startswith(f"attraction {attraction} at ") for text in legal_texts(state))


def docks_legal(state: State) -> list[str]:
    return [text for text in legal_texts(state) if text.startswith("dock ")]


def with_malls(
    state: State, *plans: Plan, money: int | None = None, bank: int | None = None
) -> State:
    """`state` with each plan's mall given to the plan's seat (and every player's money,
    and the bank, set if given). No tile may be both in a mall and in the Dispenser or
    the supply."""
    players = list(state.players)
    for plan in plans:
        players[plan.seat - 1] = replace(players[plan.seat - 1], mall=plan.mall())
    if money is not None:
        players = [replace(p, money=money) for p in players]
    built = [t.id for p in players for t in p.mall.tiles if t.kind in CATEGORY.values()]
    loose = {t for column in state.dispenser for t in column if t} | set(state.supply)
    clash = sorted(set(built) & loose)
    assert not clash, f"tiles both built and in the Dispenser or supply: {clash}"
    assert len(built) == len(set(built)), "a tile is built twice"
    new_bank = state.bank if bank is None else bank
    return replace(state, players=tuple(players), bank=new_bank)


# -- malls built by hand --------------------------------------------------------------


class Plan:
    """One seat's mall, built tile by tile. Each step checks the placement rules and
    moves customers as section 6 says; a store several customers can reach needs
    `customer=`. Attraction conditions are the caller's to respect."""

    def __init__(self, seat: int = 1) -> None:
        self.seat = seat
        main = f"M{seat}"
        self.tiles: list[Tile] = [Tile(main, "main", ((0, 1), (1, 1)))]
        self.customers: list[Customer] = [
            Customer(f"{main}.{spot}", want, main) for spot, want in enumerate(STORES, start=1)
        ]
        # Stores given by colour letter only get numbers of their own per seat.
        self.numbers = dict.fromkeys("YBG", (seat - 1) * 6 + 1)

    # -- the grid --

    def owner(self) -> dict[Cell, Tile]:
        return {cell: tile for tile in self.tiles for cell in tile.cells}

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(CATEGORY.values(), 0)
        for tile in self.tiles:
            if tile.kind in counts:
                counts[tile.kind] += 1
        return counts

    def walk(self, start: str, target: Cell) -> float:
        """Cheapest walk from tile `start` onto a new store at `target`: each tile
        entered counts 1 (the store too), attraction tiles 0; empty cells never."""
        owner = self.owner()
        kind = {t.id: t.kind for t in self.tiles}
        best = {start: 0}
        queue = [(0, start)]
        found = float("inf")
        while queue:
            cost, here = heapq.heappop(queue)
            if cost > best.get(here, float("inf")):
                continue
            for (x, y), tile in owner.items():
                if tile.id != here:
                    continue
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    cell = (x + dx, y + dy)
                    if cell == target:
                        found = min(found, cost + 1)
                    there = owner.get(cell)
                    if there is None or there.id == here:
                        continue
                    step = cost + (0 if kind[there.id] == "attraction" else 1)
                    if step < best.get(there.id, float("inf")):
                        best[there.id] = step
                        heapq.heappush(queue, (step, there.id))
        return found

    def reachers(self, cell: Cell, want: str) -> list[str]:
        return sorted(
            c.id
            for c in self.customers
            if not c.satisfied and c.want == want and self.walk(c.on, cell) <= 3
        )

    # -- placing tiles --

    def put(self, tile_id: str, x: int, y: int, customer: str | None = None) -> Plan:
        """Build element `tile_id` on (x, y) (section 6). A bare colour letter (`"Y"`)
        is the seat's next store of that colour. With several customers able to reach
        a store, `customer` names the one that moves ("first": the first by id)."""
        if len(tile_id) == 1:
            number = self.numbers[tile_id]
            self.numbers[tile_id] += 1
            tile_id = f"{tile_id}{number:02d}"
        owner = self.owner()
        assert (x, y) not in owner, f"({x},{y}) is taken"
        assert y >= 2, "no element on the ground floor"
        below = owner.get((x, y - 1))
        assert below is not None, f"({x},{y}) would float"
        assert below.kind != "attraction" or (x, y - 1) in below.platforms, "not a platform"
        kind = category(tile_id)
        if kind == "entrance":
            assert customer in (None, "first"), "no customer moves onto an entrance"
            self.customers += [
                Customer(f"{tile_id}.{spot}", want, tile_id)
                for spot, want in enumerate(entrance_wants(tile_id), start=1)
            ]
        else:
            choices = self.reachers((x, y), kind)
            if customer == "first":
                customer = choices[0] if choices else None
            elif customer is None:
                assert len(choices) <= 1, f"{tile_id} at ({x},{y}): say which of {choices}"
                customer = choices[0] if choices else None
            assert customer is None or customer in choices, f"{customer} cannot reach"
            self.customers = [
                replace(c, on=tile_id, satisfied=True) if c.id == customer else c
                for c in self.customers
            ]
        self.tiles.append(Tile(tile_id, kind, ((x, y),)))
        return self

    def stack(self, x: int, y: int, *tile_ids: str) -> Plan:
        """Build `tile_ids` one above the other from (x, y) up; a store several
        customers can reach takes the first of them by id."""
        for floor, tile_id in enumerate(tile_ids, start=y):
            self.put(tile_id, x, floor, customer="first")
        return self

    def dock(self, bay_id: str, x: int) -> Plan:
        """Build a docking bay on (x,1) and (x+1,1) (section 8)."""
        need = BAY_NEEDS[bay_id[0]]
        assert all(n >= need for n in self.counts().values()), f"{bay_id} needs {need} each"
        assert not any(t.kind == "dock" and t.id[0] == bay_id[0] for t in self.tiles)
        owner = self.owner()
        cells = ((x, 1), (x + 1, 1))
        assert not any(cell in owner for cell in cells), "bay cells taken"
        touching = {
            owner[(cx + dx, 1)].kind
            for cx, _ in cells
            for dx in (-1, 1)
            if (cx + dx, 1) in owner and (cx + dx, 1) not in cells
        }
        assert touching & {"main", "dock"}, "a bay must touch the Main Entrance or a bay"
        self.tiles.append(Tile(bay_id, "dock", cells))
        self.customers += [
            Customer(f"{bay_id}.{spot}", want, bay_id)
            for spot, want in enumerate(BAY_ARRIVALS.get(bay_id, ()), start=1)
        ]
        return self

    def attraction(self, attraction: str, x: int, y: int, mirror: bool = False) -> Plan:
        """Place an attraction with its bounding box's bottom-left at (x, y) (section 7)."""
        cells = shape_cells(attraction, x, y, mirror)
        owner = self.owner()
        for (cx, cy), char in cells.items():
            assert cy >= 1 and (cx, cy) not in owner, f"({cx},{cy}) is not free"
            assert char != "B" or (cx, cy - 1) in owner, "base plate needs a tile below"
        platforms = frozenset(c for c, char in cells.items() if char == "P")
        self.tiles.append(Tile(attraction, "attraction", tuple(sorted(cells)), platforms, mirror))
        return self

    def mall(self) -> Mall:
        ids = [t.id for t in self.tiles]
        assert len(ids) == len(set(ids)), f"a tile is built twice: {ids}"
        return Mall(CONTENT, tuple(self.tiles), tuple(self.customers))

    def satisfied(self) -> list[str]:
        return sorted(c.id for c in self.customers if c.satisfied)


def customer(state: State, seat: int, customer_id: str) -> tuple[str, bool]:
    """Where a customer stands, and whether it is satisfied."""
    found = state.player(seat).mall.customer[customer_id]
    return found.on, found.satisfied


def hobby_square() -> Plan:
    """Seat 1: a 2x2 hobby cluster B01 B02 / B03 B04 over the Main Entrance (the
    condition of robot-arena)."""
    return Plan(1).put("B01", 0, 2).put("B02", 1, 2).put("B03", 0, 3).put("B04", 1, 3)


def arena_overhang() -> Plan:
    """Seat 1: a 2x2 hobby cluster, then robot-arena mirrored at 1,4: base plate (1,4)
    on B04, X cells (1,5) (2,5) (3,5), platforms (2,6) (3,6), overhanging the empty
    columns x=2 and x=3."""
    return hobby_square().attraction("robot-arena", 1, 4, mirror=True)
