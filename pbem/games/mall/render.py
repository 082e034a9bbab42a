"""Text drawings for terminals and mails: a mall floor by floor, the Dispenser, and a
whole position as one player or a spectator may see it."""

from __future__ import annotations

from .actions import Action, Money
from .document import secret_visible
from .mall import ATTRACTION, MAIN, Mall
from .notation import format_action
from .scoring import score
from .state import State

WIDTH = 5


def _label(mall: Mall, cell: tuple[int, int]) -> str:
    tile = mall.owner.get(cell)
    if tile is None:
        return "."
    if tile.kind == ATTRACTION:
        initials = "".join(word[0] for word in tile.id.split("-"))
        return initials + ("^" if cell in tile.platforms else "")
    if tile.kind == MAIN:
        return tile.id
    here = [c for c in mall.customers if c.on == tile.id]
    if tile.is_element and tile.kind != "entrance":
        return tile.id + ("*" if here else "")
    waiting = sum(1 for c in here if not c.satisfied)
    return tile.id + (f"+{waiting}" if waiting and tile.kind != "dock" else "")


def draw_mall(mall: Mall) -> str:
    """The mall as rows of cells, top floor first, floor numbers on the left and
    column numbers below. `^` marks a platform, `*` a satisfied customer on a store,
    `+n` customers waiting on an entrance."""
    xs = [x for x, _ in mall.owner]
    left, right = min(xs), max(xs)
    lines = []
    for y in range(mall.height, 0, -1):
        cells = "".join(_label(mall, (x, y)).center(WIDTH) for x in range(left, right + 1))
        lines.append(f"{y:>3} |{cells.rstrip()}")
    lines.append("    +" + "-" * WIDTH * (right - left + 1))
    lines.append("     " + "".join(str(x).center(WIDTH) for x in range(left, right + 1)))
    return "\n".join(lines)


def draw_dispenser(state: State) -> str:
    content = state.content
    lines = []
    for row in range(content.rows, 0, -1):
        cells = []
        for i, name in enumerate(content.columns):
            tile = state.dispenser[i][row - 1] or "--"
            cells.append(f"{name}{row} {tile:<4}")
        lines.append("  ".join(cells) + f"  costs {content.cost(row)}")
    return "\n".join(lines)


def describe(state: State, viewer: int | None = None) -> str:
    """A whole position as text; hidden information stays hidden from `viewer`."""
    standings = score(state)
    status = "finished" if state.finished else f"round {state.round}, seat {state.turn} to move"
    lines = [
        f"Game {status}; bank {state.bank}, supply {len(state.supply)}"
        + ("; the end is triggered" if state.end_triggered and not state.finished else ""),
        "",
        draw_dispenser(state),
        "",
        "Commons: "
        + (
            ", ".join(
                c + (f" (built by seat {state.built_by[c]})" if c in state.built_by else "")
                for c in state.commons
            )
            or "none"
        ),
    ]
    for player, points in zip(state.players, standings.scores, strict=True):
        mall = player.mall
        secret = player.secret if secret_visible(state, player, viewer) else "hidden"
        balloons = ", ".join(f"{k} {v}" for k, v in points.balloons.items())
        lines += [
            "",
            f"Seat {player.seat} {player.name}: {player.money} notes, secret {secret}, "
            f"score {points.total} ({balloons}, attractions {points.attractions}, "
            f"bays {points.docks})",
            draw_mall(mall),
        ]
        waiting = ", ".join(f"{c.id} {c.want} on {c.on}" for c in mall.waiting)
        satisfied = ", ".join(f"{c.id} {c.want} on {c.on}" for c in mall.satisfied)
        lines.append(f"  waiting: {waiting or 'none'}")
        lines.append(f"  satisfied: {satisfied or 'none'}")
    if state.finished:
        names = " and ".join(f"seat {s}" for s in standings.winners)
        lines += ["", f"Winner: {names}"]
    return "\n".join(lines)


def narrate(before: State, action: Action, after: State) -> str:
    """One line on what an action did: the tile placed, customers moved or arrived,
    notes paid or gained, the end triggered."""
    seat = before.seat_to_move
    old, new = before.player(seat), after.player(seat)
    content = before.content
    parts = [format_action(action)]
    placed = new.mall.tiles[len(old.mall.tiles) :]
    for tile in placed:
        spec = content.elements.get(tile.id)
        what = f"{tile.id} {spec.name or spec.category}" if spec else tile.id
        parts.append(f"places {what}")
    if isinstance(action, Money):
        parts.append(f"takes {before.dispenser[content.columns.index(action.column)][0]} as money")
    moved = {c.id for c in new.mall.satisfied} - {c.id for c in old.mall.satisfied}
    for customer_id in sorted(moved):
        parts.append(f"{customer_id} moves to {new.mall.customer[customer_id].on}")
    arrived = len(new.mall.customers) - len(old.mall.customers)
    if arrived:
        parts.append(f"{arrived} customers arrive")
    change = new.money - old.money
    if change:
        verb = "gains" if change > 0 else "costs"
        parts.append(f"{verb} {abs(change)} note{'' if abs(change) == 1 else 's'}")
    if after.end_triggered and not before.end_triggered:
        parts.append("triggers the end of the game")
    return "; ".join(parts)
