"""The Dispenser 3000 (docs/games/mall.md section 4): two columns of four rows, row 1 at the
bottom; taking a tile slides the column down and refills its top from the supply."""

from __future__ import annotations

import re
from functools import lru_cache

from .actions import IllegalAction

Column = tuple[str | None, ...]  # bottom to top
Dispenser = tuple[Column, ...]  # one per column, in the content set's column order

_SLOT = re.compile(r"([A-Z])(\d+)")


def fill(columns: tuple[str, ...], rows: int, tiles: tuple[str, ...]) -> Dispenser:
    """The Dispenser filled from the first tiles of the supply: L1..L4, then R1..R4."""
    return tuple(
        tuple(tiles[i * rows + r] if i * rows + r < len(tiles) else None for r in range(rows))
        for i in range(len(columns))
    )


@lru_cache(maxsize=64)  # the rules ask twice a move; a refusal raises, so is never kept
def slot_position(columns: tuple[str, ...], rows: int, slot: str) -> tuple[int, int]:
    """(column index, row) of a slot name such as "L3"."""
    match = _SLOT.fullmatch(slot)
    if not match or match[1] not in columns or not 1 <= int(match[2]) <= rows:
        names = f"{columns[0]}1 to {columns[-1]}{rows}"
        raise IllegalAction(f"there is no Dispenser slot {slot}: slots are {names}", "4")
    return columns.index(match[1]), int(match[2])


def take(
    dispenser: Dispenser, supply: tuple[str, ...], column: int, row: int
) -> tuple[str, Dispenser, tuple[str, ...], bool]:
    """Remove the tile at (column, row): the tiles above slide down one row and the
    top is refilled from the supply. Returns the tile, the new Dispenser, the new
    supply, and whether this refill placed the last supply tile (end trigger A)."""
    cells = dispenser[column]
    tile = cells[row - 1]
    assert tile is not None, "taking from an empty slot"
    slid = [t for t in cells[: row - 1] + cells[row:] if t is not None]
    last_drawn = False
    if supply:
        slid.append(supply[0])
        supply = supply[1:]
        last_drawn = not supply
    new_column = tuple(slid) + (None,) * (len(cells) - len(slid))
    new = dispenser[:column] + (new_column,) + dispenser[column + 1 :]
    return tile, new, supply, last_drawn
