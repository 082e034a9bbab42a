"""Text drawings for terminals and mails: a mall floor by floor, the Dispenser, and a
whole position as one player or a spectator may see it."""

from __future__ import annotations

from .actions import Action, Build, BuildAttraction, Dock, Money
from .content import Content
from .document import secret_visible
from .explain import attraction_name, place_words
from .mall import ATTRACTION, MAIN, Mall
from .pieces import Tile
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
    names = {p.seat: p.name for p in state.players}
    status = (
        f"round {state.round}, {names[state.turn]} to move"
        if state.turn is not None and not state.finished
        else "finished"
    )
    lines = [
        f"Game {status}; bank {state.bank}, supply {len(state.supply)}"
        + ("; the end is triggered" if state.end_triggered and not state.finished else ""),
        "",
        draw_dispenser(state),
        "",
        "Commons: "
        + (
            ", ".join(
                attraction_name(c)
                + (f" (built by {names[state.built_by[c]]})" if c in state.built_by else "")
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
            f"{player.name} (seat {player.seat}): {player.money} notes, secret {secret}, "
            f"score {points.total} ({balloons}, attractions {points.attractions}, "
            f"bays {points.docks})",
            draw_mall(mall),
        ]
        waiting = ", ".join(f"{c.id} {c.want} on {c.on}" for c in mall.waiting)
        satisfied = ", ".join(f"{c.id} {c.want} on {c.on}" for c in mall.satisfied)
        lines.append(f"  waiting: {waiting or 'none'}")
        lines.append(f"  satisfied: {satisfied or 'none'}")
    if state.finished:
        winners = " and ".join(names[s] for s in standings.winners)
        lines += ["", f"Winner: {winners}"]
    return "\n".join(lines)


def tile_words(tile_id: str, content: Content) -> str:
    """A tile as the log names it: "Burger Bar (Y01)", "Entrance (R13)", "the Shuttle
    Stop (GD1)", "Robot Arena", "the Main Entrance". An element's id stays beside its
    name in brackets, so a reader can find it, and so a tile an undo hid again goes
    from the sentence whole (the censor of hidden words takes "Name (ID)" together)."""
    if tile_id in content.attractions:
        return attraction_name(tile_id)
    spec = content.elements.get(tile_id)
    if spec is not None:
        return f"{spec.name or spec.category.capitalize()} ({tile_id})"
    return place_words(tile_id, content)


def _notes(n: int) -> str:
    return f"{n} note{'' if n == 1 else 's'}"


def _what(before: State, action: Action, placed: tuple[Tile, ...]) -> str:
    """The first part of a narration: what was played, by its name, and where."""
    content = before.content
    if isinstance(action, Money):
        taken = before.dispenser[content.columns.index(action.column)][0] or ""
        return f"{tile_words(taken, content)} from {action.column}1 as money"
    if isinstance(action, Build):
        names = " and ".join(tile_words(t.id, content) for t in placed)
        return f"{names} from {action.slot} at {action.x},{action.y}"
    if isinstance(action, BuildAttraction):
        mirrored = ", mirrored" if action.mirror else ""
        return f"{attraction_name(action.id)} at {action.x},{action.y}{mirrored}"
    if isinstance(action, Dock):
        return f"{place_words(action.id, content)} at column {action.x}"
    return "a pass"


def _arrivals(wants: list[str]) -> str:
    """ "a customer arrives, wanting food", "2 customers arrive, both wanting hobby",
    "3 customers arrive, wanting food, hobby and fashion"."""
    if len(wants) == 1:
        return f"a customer arrives, wanting {wants[0]}"
    if len(set(wants)) == 1:
        every = "both" if len(wants) == 2 else "all"
        return f"{len(wants)} customers arrive, {every} wanting {wants[0]}"
    return f"{len(wants)} customers arrive, wanting {', '.join(wants[:-1])} and {wants[-1]}"


def narrate(before: State, action: Action, after: State) -> str:
    """What an action did, in words that follow a player's name and "played" (so
    they read the same after "Ann" and after "you"): the tile, attraction or bay by
    its name and where it went, the notes paid or gained, each customer who moved
    from where to where, customers who arrived, the end triggered."""
    seat = before.seat_to_move
    old, new = before.player(seat), after.player(seat)
    content = before.content
    placed = new.mall.tiles[len(old.mall.tiles) :]
    first = _what(before, action, placed)
    change = new.money - old.money
    if change:
        first += f", {'gaining' if change > 0 else 'paying'} {_notes(abs(change))}"
    parts = [first]
    moved = {c.id for c in new.mall.satisfied} - {c.id for c in old.mall.satisfied}
    for customer_id in sorted(moved):
        was, now = old.mall.customer[customer_id], new.mall.customer[customer_id]
        parts.append(
            f"a customer wanting {now.want} moves from {tile_words(was.on, content)}"
            f" to {tile_words(now.on, content)}"
        )
    arrived = new.mall.customers[len(old.mall.customers) :]
    if arrived:
        parts.append(_arrivals([c.want for c in arrived]))
    if after.end_triggered and not before.end_triggered:
        parts.append("the end of the game is triggered")
    return "; ".join(parts)
