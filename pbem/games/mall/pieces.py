"""The pieces a mall is made of: its tiles and customers, the kinds of tile that are
not stores, `derived` (what a mall computes once, on first use), and the words of
why a piece cannot stand somewhere."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pbem.i18n import N_
from pbem.i18n import gettext as _

Cell = tuple[int, int]
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
MAIN, DOCK, ATTRACTION = "main", "dock", "attraction"
UNREACHABLE = 1 << 30
PROBLEMS = {  # why a tile, attraction or bay cannot stand somewhere
    "below": N_("(%(x)s,%(y)s) would be below floor 1"),
    "taken": N_("(%(x)s,%(y)s) is taken by %(id)s"),
    "base": N_("the base plate at (%(x)s,%(y)s) needs a tile of your mall directly below it"),
    "bay": N_("a bay must touch your Main Entrance or your other bay"),
}


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a piece cannot stand somewhere: one of PROBLEMS and its places, said in the
    reader's language only when shown (the rules ask often, and only to know if)."""

    kind: str
    values: tuple[tuple[str, Any], ...]

    def __str__(self) -> str:
        return _(PROBLEMS[self.kind], **dict(self.values))


def problem(kind: str, /, **values: Any) -> Problem:
    """One of PROBLEMS with its places filled in."""
    return Problem(kind, tuple(values.items()))


T = TypeVar("T")


class derived(Generic[T]):
    """Like functools.cached_property without its lock (Python 3.11 takes one on every
    first access): the value is computed once and stored in the instance."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


def floor_first(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    kind: str  # main, dock, attraction, or an element category
    cells: tuple[Cell, ...]
    platforms: frozenset[Cell] = frozenset()  # attractions: the cells marked P
    mirror: bool = False
    _row: list[Any] | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def is_element(self) -> bool:
        return self.kind not in (MAIN, DOCK, ATTRACTION)

    def snapshot_row(self) -> list[Any]:
        """The tile as a snapshot holds it: [id, kind, cells, platforms sorted,
        mirror]. Made once per tile, since a tile never changes and every later mall
        holds the same tile, so its row is shared by every snapshot that has it: the
        snapshot's JSON data is for writing out, never for changing."""
        if self._row is None:
            cells, platforms = [list(c) for c in self.cells], sorted(map(list, self.platforms))
            row: list[Any] = [self.id, self.kind, cells, platforms, self.mirror]
            object.__setattr__(self, "_row", row)  # frozen: a cache, not a change
            return row
        return self._row

    @property
    def floor(self) -> int:
        return self.cells[0][1]


@dataclass(frozen=True, slots=True)
class Customer:
    id: str
    want: str
    on: str  # id of the tile it stands on
    satisfied: bool = False
