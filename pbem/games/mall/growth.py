"""How a mall's grid parts (and its tiles' snapshot rows) follow from its parent's when
one tile is added (Mall.add): the tile changes them only around itself, so each is the
parent's with that change, much cheaper than working it out afresh from every tile.
A part grows when first asked, not when the mall is made: a preview of a move, whose
mall is never asked, pays nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .pieces import ATTRACTION, STEPS, Cell, Tile, derived, floor_first

T = TypeVar("T")
PARENT = "_parent"  # where a new mall keeps (the tile added, its parent's parts by name)
HANDED = "_handed"  # where a mall keeps the parts it hands on


class Grid(Protocol):
    @property
    def owner(self) -> dict[Cell, Tile]: ...


class _Grown(derived[T]):
    def __init__(self, compute: Callable[[Any], T], grow: Callable[[Grid, Tile, T], T]) -> None:
        super().__init__(compute)
        self.grow = grow

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]
        known = instance.__dict__
        parent = known.get(PARENT)
        part = None if parent is None else parent[1].get(self.name)
        if part is None:
            value = known[self.name] = self.compute(instance)
        else:
            value = known[self.name] = self.grow(instance, parent[0], part)
        return value


def grown(grow: Callable[[Grid, Tile, T], T]) -> Callable[[Callable[[Any], T]], derived[T]]:
    """A `derived` part that a new mall grows with `grow(mall, added tile, parent's
    part)` when its parent had worked that part out, else computes afresh. A test
    checks every grown part against a fresh mall's."""
    return lambda compute: _Grown(compute, grow)


def parts(kind: type) -> tuple[str, ...]:
    """The names of the grown parts of a class."""
    return tuple(name for name, part in vars(kind).items() if isinstance(part, _Grown))


def handed_on(mall: object, names: tuple[str, ...]) -> dict[str, Any]:
    """The grown parts (of `names`) that `mall` hands on to every new mall made from
    it, by name. Worked out once per mall: the moves previewed from one position each
    make a new mall from the same one. The parts it was handed and never asked for are
    grown first, so that a part is not lost down a line of malls that never asked for
    it; then it lets go of its parent's parts, so that no line of malls holds older
    parts. (A part it works out only after that, new malls work out afresh: as right,
    if slower.)"""
    known = mall.__dict__
    handed: dict[str, Any] | None = known.get(HANDED)
    if handed is None:
        parent = known.get(PARENT)
        if parent is not None:
            for name in parent[1]:
                if name not in known:
                    getattr(mall, name)
            known.pop(PARENT, None)  # another thread may have let go of it already
        handed = known[HANDED] = {name: known[name] for name in names if name in known}
    return handed


def owner(mall: Grid, added: Tile, parent: dict[Cell, Tile]) -> dict[Cell, Tile]:
    return {**parent, **dict.fromkeys(added.cells, added)}


def tile(mall: Grid, added: Tile, parent: dict[str, Tile]) -> dict[str, Tile]:
    return {**parent, added.id: added}


def elements(mall: Grid, added: Tile, parent: dict[Cell, str]) -> dict[Cell, str]:
    return {**parent, added.cells[0]: added.kind} if added.is_element else parent


def tile_rows(mall: Grid, added: Tile, parent: list[list[Any]]) -> list[list[Any]]:
    return [*parent, added.snapshot_row()]


def height(mall: Grid, added: Tile, parent: int) -> int:
    return max(parent, max(y for _, y in added.cells))


def build_cells(mall: Grid, added: Tile, parent: tuple[Cell, ...]) -> tuple[Cell, ...]:
    """The parent's cells but those the tile took, and those the tile now holds up."""
    cells = set(parent).difference(added.cells)
    below = added.platforms if added.kind == ATTRACTION else added.cells
    owner = mall.owner
    cells.update((x, y + 1) for x, y in below if (x, y + 1) not in owner and y >= 1)
    return tuple(sorted(cells, key=floor_first))


def neighbours(
    mall: Grid, added: Tile, parent: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """The parent's, with the tile beside every tile it touches and they beside it."""
    near, owner = dict(parent), mall.owner
    touching = {
        other.id
        for x, y in added.cells
        for dx, dy in STEPS
        if (other := owner.get((x + dx, y + dy))) is not None and other is not added
    }
    for other_id in touching:
        near[other_id] = near[other_id] | {added.id}
    near[added.id] = frozenset(touching)
    return near
