"""One player's mall: its tiles and customers, and everything the rules read off it —
where an element may stand, which customers can reach a cell, clusters, lines and
heights for attraction conditions and balloons (docs/games/mall.md sections 1, 6, 7, 8, 10).

A mall is immutable; what is derived from it is computed once, on first use."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from . import growth, pieces
from .content import AttractionSpec, Condition, Content, Shape
from .growth import grown
from .pieces import ATTRACTION, DOCK, MAIN, STEPS, UNREACHABLE, Cell, Customer, Tile, derived

__all__ = ["ATTRACTION", "DOCK", "MAIN", "Cell", "Customer", "Mall", "Tile"]


@dataclass(frozen=True)
class Mall:
    content: Content = field(compare=False, repr=False)
    tiles: tuple[Tile, ...]
    customers: tuple[Customer, ...]

    # -- building a new mall -------------------------------------------------------

    @classmethod
    def start(cls, content: Content, seat: int) -> Mall:
        main_id = f"M{seat}"
        main = Tile(main_id, MAIN, content.main_cells)
        customers = tuple(
            Customer(f"{main_id}.{spot}", want, main_id)
            for spot, want in enumerate(content.main_wants, start=1)
        )
        return cls(content, (main,), customers)

    def add(self, tile: Tile, arrivals: tuple[str, ...] = (), mover: str | None = None) -> Mall:
        """This mall with `tile` placed, `arrivals` (wants) waiting on it, and the
        customer `mover` satisfied on it."""
        customers = self.customers
        if mover is not None:
            customers = tuple(
                Customer(c.id, c.want, tile.id, True) if c.id == mover else c for c in customers
            )
        if arrivals:
            customers += tuple(
                Customer(f"{tile.id}.{spot}", want, tile.id)
                for spot, want in enumerate(arrivals, start=1)
            )
        mall = Mall(self.content, self.tiles + (tile,), customers)
        # The grid parts worked out here, for the new mall to grow from when first
        # asked (growth.py): the parts, not this mall, so no line of malls stays alive.
        mall.__dict__[growth.PARENT] = (tile, growth.handed_on(self, GROWN))
        return mall

    # -- the grid ------------------------------------------------------------------

    @grown(growth.owner)
    def owner(self) -> dict[Cell, Tile]:
        return {cell: tile for tile in self.tiles for cell in tile.cells}

    @grown(growth.tile)
    def tile(self) -> dict[str, Tile]:
        return {tile.id: tile for tile in self.tiles}

    @grown(growth.tile_rows)
    def tile_rows(self) -> list[list[Any]]:
        """The tiles as a snapshot holds them (Tile.snapshot_row), in order: to write
        out, never to change."""
        return [t.snapshot_row() for t in self.tiles]

    @derived
    def customer(self) -> dict[str, Customer]:
        return {c.id: c for c in self.customers}

    @grown(growth.elements)
    def elements(self) -> dict[Cell, str]:
        """Category of every cell that holds an element."""
        return {t.cells[0]: t.kind for t in self.tiles if t.is_element}

    @grown(growth.height)
    def height(self) -> int:
        return max(y for tile in self.tiles for _, y in tile.cells)

    def supports(self, cell: Cell) -> bool:
        """Whether an element may stand on `cell` (docs/games/mall.md 6.3)."""
        tile = self.owner.get(cell)
        if tile is None:
            return False
        if tile.kind == ATTRACTION:
            return cell in tile.platforms
        return True

    @grown(growth.build_cells)
    def build_cells(self) -> tuple[Cell, ...]:
        """Every cell where an element may be placed, by floor then column."""
        cells = {
            (x, y + 1)
            for (x, y) in self.owner
            if (x, y + 1) not in self.owner and y + 1 >= 2 and self.supports((x, y))
        }
        return tuple(sorted(cells, key=pieces.floor_first))

    # -- customers and reach (docs/games/mall.md section 6) ------------------------------------

    @derived
    def waiting(self) -> tuple[Customer, ...]:
        return tuple(c for c in self.customers if not c.satisfied)

    @grown(growth.neighbours)
    def neighbours(self) -> dict[str, frozenset[str]]:
        near: dict[str, set[str]] = {tile.id: set() for tile in self.tiles}
        owner = self.owner
        for (x, y), tile in owner.items():
            for dx, dy in STEPS:
                other = owner.get((x + dx, y + dy))
                if other is not None and other is not tile:
                    near[tile.id].add(other.id)
        return {tile_id: frozenset(ids) for tile_id, ids in near.items()}

    def walk_costs(self, start: str) -> dict[str, int]:
        """Cheapest walk from tile `start` to every tile within the reach limit: each
        tile entered counts 1, attraction tiles 0."""
        cache = self._walks
        if start in cache:
            return cache[start]
        limit = self.content.reach - 1  # the new store itself counts 1 more
        costs = {start: 0}
        queue = deque([start])
        kinds = self.tile
        while queue:
            here = queue.popleft()
            base = costs[here]
            for there in self.neighbours[here]:
                cost = base + (0 if kinds[there].kind == ATTRACTION else 1)
                if cost <= limit and cost < costs.get(there, UNREACHABLE):
                    costs[there] = cost
                    if cost == base:
                        queue.appendleft(there)
                    else:
                        queue.append(there)
        cache[start] = costs
        return costs

    @derived
    def _walks(self) -> dict[str, dict[str, int]]:
        return {}

    def reach_cells(self, start: str) -> frozenset[Cell]:
        """Cells where a new store would be within reach of a customer waiting on
        tile `start` (occupied cells included; callers ask only about empty ones)."""
        cache = self._reach_cells
        if start not in cache:
            limit = self.content.reach - 1  # entering the new store counts 1
            cells: set[Cell] = set()
            for tile_id, cost in self.walk_costs(start).items():
                if cost <= limit:
                    for x, y in self.tile[tile_id].cells:
                        cells.update(((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
            cache[start] = frozenset(cells)
        return cache[start]

    @derived
    def _reach_cells(self) -> dict[str, frozenset[Cell]]:
        return {}

    def reachers(self, cell: Cell, want: str) -> tuple[str, ...]:
        """Ids of the waiting customers wanting `want` that can reach a new store at
        `cell`, sorted: those whose walk reaches a tile beside it (for one cell, much
        cheaper than `reach_cells`, which answers for every cell at once). Kept per
        cell and want: a move's check and perform ask alike, and so do the previews of
        every tile of one kind built on one cell."""
        cache = self._reachers
        found = cache.get((cell, want))
        if found is None:
            x, y = cell
            owner = self.owner
            beside = {t.id for dx, dy in STEPS if (t := owner.get((x + dx, y + dy))) is not None}
            wanting = [c for c in self.waiting if c.want == want]
            found = tuple(
                sorted(c.id for c in wanting if not beside.isdisjoint(self.walk_costs(c.on)))
            )
            cache[cell, want] = found
        return found

    @derived
    def _reachers(self) -> dict[tuple[Cell, str], tuple[str, ...]]:
        return {}

    def build_choices(self, want: str | None) -> tuple[tuple[int, int, str | None], ...]:
        """(x, y, customer to name) for every placement of a new element, in list
        order: one per customer when several could move onto it, else one with
        None. `want` None (an entrance) moves no one."""
        cache = self._choices
        if want not in cache:
            wanting = sorted((c.id, self.reach_cells(c.on)) for c in self.waiting if c.want == want)
            choices: list[tuple[int, int, str | None]] = []
            for x, y in self.build_cells:
                movers = [cid for cid, cells in wanting if (x, y) in cells] if wanting else []
                if len(movers) > 1:
                    choices.extend((x, y, cid) for cid in movers)
                else:
                    choices.append((x, y, None))
            cache[want] = tuple(choices)
        return cache[want]

    @derived
    def _choices(self) -> dict[str | None, tuple[tuple[int, int, str | None], ...]]:
        return {}

    # -- counts, lines and clusters (docs/games/mall.md sections 7 and 10) ---------------------

    @derived
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(self.content.categories, 0)
        for category in self.elements.values():
            counts[category] += 1
        return counts

    @derived
    def satisfied(self) -> tuple[Customer, ...]:
        return tuple(c for c in self.customers if c.satisfied)

    def satisfied_wanting(self, want: str) -> int:
        return sum(1 for c in self.satisfied if c.want == want)

    @derived
    def clusters(self) -> dict[str, list[frozenset[Cell]]]:
        """Connected groups of same-category elements, per category."""
        elements = self.elements
        found: dict[str, list[frozenset[Cell]]] = {c: [] for c in self.content.categories}
        seen: set[Cell] = set()
        for start, category in elements.items():
            if start in seen:
                continue
            group = {start}
            stack = [start]
            while stack:
                x, y = stack.pop()
                for dx, dy in STEPS:
                    cell = (x + dx, y + dy)
                    if cell not in group and elements.get(cell) == category:
                        group.add(cell)
                        stack.append(cell)
            seen |= group
            found[category].append(frozenset(group))
        return found

    def largest_cluster(self, category: str) -> tuple[int, int]:
        """(size of the largest cluster of `category`, most satisfied customers standing
        in a cluster of that size); (0, 0) without such an element."""
        groups = self.clusters[category]
        if not groups:
            return (0, 0)
        size = max(len(g) for g in groups)
        occupied = {c.on for c in self.satisfied}  # a store holds at most one customer
        best = max(
            sum(1 for cell in g if self.owner[cell].id in occupied)
            for g in groups
            if len(g) == size
        )
        return (size, best)

    def line(self, category: str, direction: str) -> int:
        """Longest run of consecutive cells of one column (vertical) or one floor
        (horizontal) holding elements of `category`."""
        dx, dy = (0, 1) if direction == "vertical" else (1, 0)
        cells = {cell for cell, kind in self.elements.items() if kind == category}
        longest = 0
        for x, y in cells:
            if (x - dx, y - dy) in cells:
                continue  # not the start of a run
            run = 1
            while (x + dx * run, y + dy * run) in cells:
                run += 1
            longest = max(longest, run)
        return longest

    def distinct_row(self, n: int) -> bool:
        """n elements on n consecutive cells of one floor, one of each category."""
        elements = self.elements
        wanted = set(self.content.categories)
        for x, y in elements:
            kinds = {elements.get((x + i, y)) for i in range(n)}
            if None not in kinds and kinds == wanted and len(kinds) == n:
                return True
        return False

    def meets(self, condition: Condition) -> bool:
        """Whether the mall, as it stands, satisfies an attraction condition."""
        cache = self._conditions
        if condition not in cache:
            cache[condition] = self._meets(condition)
        return cache[condition]

    @derived
    def _conditions(self) -> dict[Condition, bool]:
        return {}

    def _meets(self, c: Condition) -> bool:
        if c.category is not None and self.counts[c.category] < c.n:
            return False  # every condition on a category needs n elements of it
        if c.type == "line":
            return self.line(c.named_category, c.named_direction) >= c.n
        if c.type == "cluster":
            return self.largest_cluster(c.named_category)[0] >= c.n
        if c.type == "height":
            return self.height >= c.n
        if c.type == "satisfied":
            return len(self.satisfied) >= c.n
        if c.type == "satisfied_each":
            return all(self.satisfied_wanting(w) >= c.n for w in self.content.stores)
        if c.type == "row_distinct":
            return min(self.counts.values()) > 0 and self.distinct_row(c.n)
        if c.type == "count":
            return self.counts[c.named_category] >= c.n
        if c.type == "count_each":
            return all(n >= c.n for n in self.counts.values())
        raise ValueError(f"unknown condition type {c.type!r}")

    # -- attractions and bays (docs/games/mall.md sections 7 and 8) ----------------------------

    def placement_problem(self, shape: Shape, x: int, y: int) -> pieces.Problem | None:
        """Why `shape` cannot stand with its box's bottom-left at (x, y); None if it can."""
        footprint = [((x + c, y + r), kind) for c, r, kind in shape.cells]
        for (cx, cy), _kind in footprint:
            if cy < 1:
                return pieces.problem("below", x=cx, y=cy)
            taken = self.owner.get((cx, cy))
            if taken is not None:
                return pieces.problem("taken", x=cx, y=cy, id=taken.id)
        for (cx, cy), kind in footprint:
            if kind == "B" and (cx, cy - 1) not in self.owner:
                return pieces.problem("base", x=cx, y=cy)
        return None

    def placements(self, spec: AttractionSpec) -> tuple[tuple[int, int, bool], ...]:
        """Every (y, x, mirror) where the attraction may stand, in list order; mirrored
        placements only when the mirrored shape differs."""
        cache = self._placements
        if spec.id in cache:
            return cache[spec.id]
        shapes = [(spec.shape, False)]
        if not spec.symmetric:
            shapes.append((spec.mirror_shape, True))
        found = set()
        for shape, mirror in shapes:
            bc, br, _ = next(cell for cell in shape.cells if cell[2] == "B")
            for ox, oy in self.owner:
                x, y = ox - bc, oy + 1 - br
                if self.placement_problem(shape, x, y) is None:
                    found.add((y, x, mirror))
        cache[spec.id] = tuple(sorted(found))
        return cache[spec.id]

    @derived
    def _placements(self) -> dict[str, tuple[tuple[int, int, bool], ...]]:
        return {}

    @derived
    def bays(self) -> tuple[Tile, ...]:
        return tuple(t for t in self.tiles if t.kind == DOCK)

    @derived
    def attraction_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tiles if t.kind == ATTRACTION)

    def bay_problem(self, x: int) -> pieces.Problem | None:
        """Why a docking bay cannot stand on (x,1) and (x+1,1), or None when it can."""
        cells = ((x, 1), (x + 1, 1))
        for cell in cells:
            taken = self.owner.get(cell)
            if taken is not None:
                return pieces.problem("taken", x=cell[0], y=cell[1], id=taken.id)
        anchors = {t.id for t in self.tiles if t.kind in (MAIN, DOCK)}
        for cx, cy in cells:
            for dx, dy in STEPS:
                other = self.owner.get((cx + dx, cy + dy))
                if other is not None and other.id in anchors:
                    return None
        return pieces.problem("bay")

    @derived
    def bay_positions(self) -> tuple[int, ...]:
        xs = [x for t in self.tiles if t.kind in (MAIN, DOCK) for x, _ in t.cells]
        return tuple(x for x in range(min(xs) - 2, max(xs) + 2) if self.bay_problem(x) is None)


GROWN = growth.parts(Mall)
