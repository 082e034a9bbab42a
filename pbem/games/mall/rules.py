"""Turns (RULES.md sections 5 to 9): which actions are legal, why an action is not,
and the state an action leads to."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .actions import Action, Build, BuildAttraction, Dock, IllegalAction, Money, Pass
from .content import AttractionSpec, Condition
from .dispenser import slot_position, take
from .mall import ATTRACTION, DOCK, Mall, Tile
from .notation import format_action
from .state import PlayerState, State


def legal_actions(state: State, seat: int | None = None) -> list[Action]:
    """The legal actions of the player to move (or of `seat`: none unless it is the
    one to move), each once and canonical, in the order of RULES.md section 5; empty
    once the game has ended."""
    if state.turn is None or (seat is not None and seat != state.turn):
        return []
    player = state.player(state.turn)
    mall = player.mall
    content = state.content
    actions: list[Action] = [
        Money(name) for i, name in enumerate(content.columns) if state.dispenser[i][0]
    ]
    for i, name in enumerate(content.columns):
        for row in range(1, content.rows + 1):
            tile = state.dispenser[i][row - 1]
            if tile is None or content.cost(row) > player.money:
                continue
            slot = f"{name}{row}"
            category = content.elements[tile].category
            want = category if category in content.stores else None
            actions += [Build(slot, x, y, c) for x, y, c in mall.build_choices(want)]
    for spec in content.attractions.values():
        if _attraction_open(state, player, spec):
            actions.extend(BuildAttraction(spec.id, x, y, m) for y, x, m in mall.placements(spec))
    open_types = _bay_types_open(state, player)
    if open_types:
        for bay in content.bays.values():
            if bay.type in open_types and bay.id not in state.bay_owner:
                actions.extend(Dock(bay.id, x) for x in mall.bay_positions)
    return actions or [Pass()]


def check(state: State, action: Action, seat: int | None = None) -> Action:
    """The canonical form of `action` for the player to move (or for `seat`, which
    must be that player); raises IllegalAction naming the rule that forbids it."""
    if state.turn is None:
        raise IllegalAction("the game is over", "9")
    if seat is not None and seat != state.turn:
        raise IllegalAction(f"not seat {seat}'s turn", "3")
    player = state.player(state.turn)
    if isinstance(action, Money):
        return _check_money(state, action)
    if isinstance(action, Build):
        return _check_build(state, player, action)
    if isinstance(action, BuildAttraction):
        return _check_attraction(state, player, action)
    if isinstance(action, Dock):
        return _check_dock(state, player, action)
    if isinstance(action, Pass):
        others = [a for a in legal_actions(state) if not isinstance(a, Pass)]
        if others:
            raise IllegalAction(
                f"you may pass only when no other action is legal (you can, for example, "
                f"{format_action(others[0])})",
                "5",
            )
        return action
    raise IllegalAction(f"not an action: {action!r}", "5")


def apply(state: State, action: Action, seat: int | None = None) -> State:
    """The state after the player to move takes `action`; raises IllegalAction (and
    changes nothing) when the rules forbid it."""
    return perform(state, check(state, action, seat))


# -- checks ---------------------------------------------------------------------------


def _check_money(state: State, action: Money) -> Action:
    columns = state.content.columns
    if action.column not in columns:
        raise IllegalAction(
            f"there is no column {action.column}: columns are {' and '.join(columns)}", "4"
        )
    if state.dispenser[columns.index(action.column)][0] is None:
        raise IllegalAction(f"column {action.column} of the Dispenser is empty", "5")
    return action


def _check_build(state: State, player: PlayerState, action: Build) -> Action:
    content = state.content
    column, row = slot_position(content.columns, content.rows, action.slot)
    tile_id = state.slot_tile(column, row)
    if tile_id is None:
        raise IllegalAction(f"{action.slot} is empty", "4")
    cost = content.cost(row)
    if cost > player.money:
        raise IllegalAction(f"{action.slot} costs {cost} notes; you have {player.money}", "6")
    mall = player.mall
    x, y = action.x, action.y
    taken = mall.owner.get((x, y))
    if taken is not None:
        raise IllegalAction(f"({x},{y}) is taken by {taken.id}", "6")
    if y < 1:
        raise IllegalAction(f"({x},{y}) is below floor 1: nothing stands below the ground", "1")
    if y == 1:
        raise IllegalAction(
            f"({x},{y}) is on the ground floor: elements go on floor 2 or higher", "6"
        )
    below = mall.owner.get((x, y - 1))
    if below is None:
        raise IllegalAction(f"({x},{y}) would float: nothing below supports it", "6")
    if not mall.supports((x, y - 1)):
        raise IllegalAction(
            f"({x},{y}) would float: ({x},{y - 1}) is part of {below.id} but not a platform cell",
            "6",
        )
    category = content.elements[tile_id].category
    if category not in content.stores:
        if action.customer is not None:
            raise IllegalAction(
                f"{tile_id} is an entrance: no customer moves onto it, so "
                f'"for {action.customer}" is not allowed',
                "5",
            )
        return action
    choices = mall.reachers((x, y), category)
    if action.customer is None:
        if len(choices) > 1:
            raise IllegalAction(
                f"several customers can reach it: say which — for {_either(choices)}", "6"
            )
        return action
    if action.customer not in choices:
        raise IllegalAction(_why_not_reach(mall, action.customer, (x, y), category), "6")
    return action if len(choices) > 1 else replace(action, customer=None)


def _either(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1]


def _why_not_reach(mall: Mall, customer_id: str, cell: tuple[int, int], category: str) -> str:
    customer = mall.customer.get(customer_id)
    if customer is None:
        return f"there is no customer {customer_id} in your mall"
    if customer.satisfied:
        return f"{customer_id} is already satisfied on {customer.on}"
    if customer.want != category:
        return f"{customer_id} wants {customer.want}, not {category}"
    return (
        f"{customer_id} cannot reach ({cell[0]},{cell[1]}): a customer walks at most "
        f"{mall.content.reach} tiles (attractions count 0)"
    )


def _condition(state: State, player: PlayerState, spec: AttractionSpec) -> Condition:
    if spec.personal:
        return state.content.cards[player.secret]
    if spec.condition is None:
        raise ValueError(f"the content gives attraction {spec.id} no condition")
    return spec.condition


def _attraction_open(state: State, player: PlayerState, spec: AttractionSpec) -> bool:
    """Whether the player may build this attraction now, somewhere."""
    if spec.personal:
        return not player.statue_built and player.mall.meets(_condition(state, player, spec))
    return (
        spec.id in state.commons
        and spec.id not in state.built_by
        and player.mall.meets(_condition(state, player, spec))
    )


def _attraction_problem(state: State, player: PlayerState, spec: AttractionSpec) -> str | None:
    """Why the player cannot build this attraction anywhere now, or None."""
    if _attraction_open(state, player, spec):
        return None
    if spec.personal and player.statue_built:
        return f"you have already built your {spec.id}"
    if not spec.personal and spec.id not in state.commons:
        return f"{spec.id} is not in play in this game"
    if not spec.personal and spec.id in state.built_by:
        return f"{spec.id} was already built by seat {state.built_by[spec.id]}"
    card = f" (your card {player.secret})" if spec.personal else ""
    condition = _condition(state, player, spec)
    return f"{spec.id} needs {condition.describe()} in your mall{card}"


def _check_attraction(state: State, player: PlayerState, action: BuildAttraction) -> Action:
    spec = state.content.attractions.get(action.id)
    if spec is None:
        raise IllegalAction(f"there is no attraction {action.id!r}", "7")
    problem = _attraction_problem(state, player, spec)
    if problem:
        raise IllegalAction(problem, "7")
    mirror = action.mirror and not spec.symmetric
    shape = spec.mirror_shape if mirror else spec.shape
    problem = player.mall.placement_problem(shape, action.x, action.y)
    if problem:
        raise IllegalAction(f"{spec.id} cannot stand at {action.x},{action.y}: {problem}", "7")
    return action if mirror == action.mirror else replace(action, mirror=False)


def _bay_types_open(state: State, player: PlayerState) -> set[str]:
    """The bay types (grey, brown) the player may build now: none of that type yet,
    and enough elements of each category."""
    content = state.content
    fewest = min(player.mall.counts.values())
    owned = {content.bays[t.id].type for t in player.mall.bays}
    return {
        kind
        for kind, need in content.bay_requirements.items()
        if kind not in owned and fewest >= need
    }


def _bay_problem(state: State, player: PlayerState, bay_id: str) -> str | None:
    """Why the player cannot build this bay anywhere now, or None."""
    bay = state.content.bays[bay_id]
    owner = state.bay_owner.get(bay_id)
    if owner is not None:
        return f"{bay_id} was already built by seat {owner}"
    if bay.type in _bay_types_open(state, player):
        return None
    for own in player.mall.bays:
        if state.content.bays[own.id].type == bay.type:
            return f"you already have a {bay.type} bay ({own.id})"
    need = state.content.bay_requirements[bay.type]
    counts = player.mall.counts
    short = ", ".join(f"{n} {c}" for c, n in counts.items() if n < need)
    plural = "s" if need > 1 else ""
    return (
        f"a {bay.type} bay needs at least {need} element{plural} of each category; you have {short}"
    )


def _check_dock(state: State, player: PlayerState, action: Dock) -> Action:
    if action.id not in state.content.bays:
        raise IllegalAction(
            f"there is no docking bay {action.id}: bays are {', '.join(state.content.bays)}", "8"
        )
    problem = _bay_problem(state, player, action.id) or player.mall.bay_problem(action.x)
    if problem:
        raise IllegalAction(f"{action.id} cannot be built at {action.x}: {problem}", "8")
    return action


# -- performing a checked action ------------------------------------------------------

# What an action changes: the new values of some State fields, the mover, and
# whether an end trigger happened.
Outcome = tuple[dict[str, Any], PlayerState, bool]


def perform(state: State, action: Action) -> State:
    """The state after a legal, canonical action (see `check`) by the player to move."""
    seat = state.seat_to_move
    player = state.player(seat)
    changes: dict[str, Any] = {}
    triggered = False
    if isinstance(action, Money):
        changes, player, triggered = _take_money(state, player, action)
    elif isinstance(action, Build):
        changes, player, triggered = _build(state, player, action)
    elif isinstance(action, BuildAttraction):
        changes, player, triggered = _build_attraction(state, player, action)
    elif isinstance(action, Dock):
        changes, player, triggered = _dock(state, player, action)
    changes["players"] = state.players[: seat - 1] + (player,) + state.players[seat:]
    changes.update(_next_turn(state, seat, triggered))
    return replace(state, **changes)


def _take_money(state: State, player: PlayerState, action: Money) -> Outcome:
    content = state.content
    column = content.columns.index(action.column)
    cells = state.dispenser[column]
    bottom = cells[0]
    if bottom is None:  # `check` refuses this; a caller skipping it learns why
        raise IllegalAction(f"column {action.column} of the Dispenser is empty", "5")
    category = content.elements[bottom].category
    k = sum(1 for t in cells[1:] if t is not None and content.elements[t].category == category)
    bonus = min(k, state.bank)
    tile, dispenser, supply, last = take(state.dispenser, state.supply, column, 1)
    changes = {
        "dispenser": dispenser,
        "supply": supply,
        "bank": state.bank - bonus,
        "notes": state.notes + (tile,),
    }
    return changes, replace(player, money=player.money + 1 + bonus), last


def _build(state: State, player: PlayerState, action: Build) -> Outcome:
    content = state.content
    column, row = slot_position(content.columns, content.rows, action.slot)
    cost = content.cost(row)
    tile_id, dispenser, supply, last = take(state.dispenser, state.supply, column, row)
    spec = content.elements[tile_id]
    tile = Tile(tile_id, spec.category, ((action.x, action.y),))
    mall = player.mall
    if spec.category in content.stores:
        choices = mall.reachers((action.x, action.y), spec.category)
        mover = action.customer or (choices[0] if choices else None)
        mall = mall.add(tile, mover=mover)
    else:
        mall = mall.add(tile, arrivals=spec.wants)
    changes = {"dispenser": dispenser, "supply": supply, "bank": state.bank + cost}
    return changes, replace(player, money=player.money - cost, mall=mall), last


def _build_attraction(state: State, player: PlayerState, action: BuildAttraction) -> Outcome:
    spec = state.content.attractions[action.id]
    shape = spec.mirror_shape if action.mirror else spec.shape
    cells = tuple(sorted((action.x + c, action.y + r) for c, r, _ in shape.cells))
    platforms = frozenset((action.x + c, action.y + r) for c, r, k in shape.cells if k == "P")
    tile = Tile(spec.id, ATTRACTION, cells, platforms, action.mirror)
    player = replace(player, mall=player.mall.add(tile))
    triggered = False
    if not spec.personal:
        built = set(state.built_by) | {spec.id}
        triggered = all(c in built for c in state.commons)  # end trigger B
    return {}, player, triggered


def _dock(state: State, player: PlayerState, action: Dock) -> Outcome:
    bay = state.content.bays[action.id]
    tile = Tile(bay.id, DOCK, ((action.x, 1), (action.x + 1, 1)))
    notes = min(bay.notes, state.bank)
    player = replace(player, money=player.money + notes, mall=player.mall.add(tile, bay.customers))
    return {"bank": state.bank - notes}, player, False


def _next_turn(state: State, seat: int, triggered: bool) -> dict[str, Any]:
    """Pass the turn on; after the last seat's turn in a round that saw an end
    trigger, the game is over (RULES.md section 9)."""
    end = state.end_triggered or triggered
    last_seat = len(state.players)
    if end and seat == last_seat:
        return {"end_triggered": True, "turn": None}
    following = seat % last_seat + 1
    return {
        "end_triggered": end,
        "turn": following,
        "round": state.round + (1 if following == 1 else 0),
    }
