"""The pieces a mall is made of: its tiles and customers, the kinds of tile that are
not stores, and `derived` (what a mall computes once, on first use)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Cell = tuple[int, int]
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
MAIN, DOCK, ATTRACTION = "main", "dock", "attraction"
UNREACHABLE = 1 << 30


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

    @property
    def is_element(self) -> bool:
        return self.kind not in (MAIN, DOCK, ATTRACTION)

    @property
    def floor(self) -> int:
        return self.cells[0][1]


@dataclass(frozen=True, slots=True)
class Customer:
    id: str
    want: str
    on: str  # id of the tile it stands on
    satisfied: bool = False
