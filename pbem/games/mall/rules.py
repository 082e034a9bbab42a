"""Turns (docs/games/mall.md sections 5 to 9): which actions are legal, why an action is not,
and the state an action leads to."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.i18n import gettext as _

from .actions import Action, Build, BuildAttraction, Dock, IllegalAction, Money, Pass
from .content import AttractionSpec, Condition
from .dispenser import slot_position, take
from .mall import ATTRACTION, DOCK, Mall, Tile
from .notation import format_action
from .refusals import both, either, refusal, refuse, too_few
from .state import PlayerState, State


def legal_actions(state: State, seat: int | None = None) -> list[Action]:
    """The legal actions of the player to move (or of `seat`: none unless it is the
    one to move), each once and canonical, in the order of docs/games/mall.md section 5; empty
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
        raise refuse("over", "9")
    if seat is not None and seat != state.turn:
        raise refuse("not_your_turn", "3", seat=seat)
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
            raise refuse("pass", "5", example=format_action(others[0]))
        return action
    raise refuse("not_an_action", "5", action=action)


def apply(state: State, action: Action, seat: int | None = None) -> State:
    """The state after the player to move takes `action`; raises IllegalAction (and
    changes nothing) when the rules forbid it."""
    return perform(state, check(state, action, seat))


# -- checks ---------------------------------------------------------------------------


def _check_money(state: State, action: Money) -> Action:
    columns = state.content.columns
    if action.column not in columns:
        raise refuse("no_column", "4", column=action.column, columns=both(columns))
    if state.dispenser[columns.index(action.column)][0] is None:
        raise refuse("column_empty", "5", column=action.column)
    return action


def _check_build(state: State, player: PlayerState, action: Build) -> Action:
    content = state.content
    column, row = slot_position(content.columns, content.rows, action.slot)
    tile_id = state.slot_tile(column, row)
    if tile_id is None:
        raise refuse("slot_empty", "4", slot=action.slot)
    cost = content.cost(row)
    if cost > player.money:
        raise refuse("costs", "6", slot=action.slot, cost=cost, money=player.money)
    mall = player.mall
    x, y = action.x, action.y
    taken = mall.owner.get((x, y))
    if taken is not None:
        raise refuse("taken", "6", x=x, y=y, id=taken.id)
    if y < 1:
        raise refuse("underground", "1", x=x, y=y)
    if y == 1:
        raise refuse("ground", "6", x=x, y=y)
    below = mall.owner.get((x, y - 1))
    if below is None:
        raise refuse("floats", "6", x=x, y=y)
    if not mall.supports((x, y - 1)):
        raise refuse("no_platform", "6", x=x, y=y, below=y - 1, id=below.id)
    category = content.elements[tile_id].category
    if category not in content.stores:
        if action.customer is not None:
            raise refuse("entrance_customer", "5", id=tile_id, customer=action.customer)
        return action
    choices = mall.reachers((x, y), category)
    if action.customer is None:
        if len(choices) > 1:
            raise refuse("say_which", "6", choices=either(choices))
        return action
    if action.customer not in choices:
        raise IllegalAction(_why_not_reach(mall, action.customer, (x, y), category), "6")
    return action if len(choices) > 1 else replace(action, customer=None)


def _why_not_reach(mall: Mall, customer_id: str, cell: tuple[int, int], category: str) -> str:
    customer = mall.customer.get(customer_id)
    if customer is None:
        return refusal("no_customer", id=customer_id)
    if customer.satisfied:
        return refusal("satisfied", id=customer_id, on=customer.on)
    if customer.want != category:
        return refusal("wants", id=customer_id, want=_(customer.want), kind=_(category))
    x, y, reach = cell[0], cell[1], mall.content.reach
    return refusal("out_of_reach", id=customer_id, x=x, y=y, reach=reach)


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
        return refusal("statue_built", id=spec.id)
    if not spec.personal and spec.id not in state.commons:
        return refusal("not_in_play", id=spec.id)
    if not spec.personal and spec.id in state.built_by:
        return refusal("built_by", id=spec.id, seat=state.built_by[spec.id])
    needs = _condition(state, player, spec).describe()
    if spec.personal:
        return refusal("needs_card", id=spec.id, condition=needs, card=player.secret)
    return refusal("needs", id=spec.id, condition=needs)


def _check_attraction(state: State, player: PlayerState, action: BuildAttraction) -> Action:
    spec = state.content.attractions.get(action.id)
    if spec is None:
        raise refuse("no_attraction", "7", id=action.id)
    problem = _attraction_problem(state, player, spec)
    if problem:
        raise IllegalAction(problem, "7")
    mirror = action.mirror and not spec.symmetric
    shape = spec.mirror_shape if mirror else spec.shape
    placed = player.mall.placement_problem(shape, action.x, action.y)
    if placed:
        raise refuse("cannot_stand", "7", id=spec.id, x=action.x, y=action.y, problem=placed)
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
        return refusal("built_by", id=bay_id, seat=owner)
    if bay.type in _bay_types_open(state, player):
        return None
    for own in player.mall.bays:
        if state.content.bays[own.id].type == bay.type:
            return refusal("have_bay", type=_(bay.type), id=own.id)
    need = state.content.bay_requirements[bay.type]
    counts = player.mall.counts
    return too_few(bay.type, need, ", ".join(f"{n} {_(c)}" for c, n in counts.items() if n < need))


def _check_dock(state: State, player: PlayerState, action: Dock) -> Action:
    if action.id not in state.content.bays:
        raise refuse("no_bay", "8", id=action.id, bays=", ".join(state.content.bays))
    problem = _bay_problem(state, player, action.id) or player.mall.bay_problem(action.x)
    if problem:
        raise refuse("bay_cannot", "8", id=action.id, x=action.x, problem=problem)
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
    players = state.players[: seat - 1] + (player,) + state.players[seat:]
    end, turn, round_ = _next_turn(state, seat, triggered)
    changed = changes.get
    # Field by field: dataclasses.replace, with its loop over every field, costs half
    # as much again, on every move.
    return State(
        content=state.content,
        players=players,
        dispenser=changed("dispenser", state.dispenser),
        supply=changed("supply", state.supply),
        bank=changed("bank", state.bank),
        commons=state.commons,
        turn=turn,
        round=round_,
        end_triggered=end,
        notes=changed("notes", state.notes),
        seed=state.seed,
        seed_sha256=state.seed_sha256,
        rng=state.rng,
    )


def _take_money(state: State, player: PlayerState, action: Money) -> Outcome:
    content = state.content
    column = content.columns.index(action.column)
    cells = state.dispenser[column]
    bottom = cells[0]
    if bottom is None:  # `check` refuses this; a caller skipping it learns why
        raise refuse("column_empty", "5", column=action.column)
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
    return changes, _changed(player, player.money + 1 + bonus, player.mall), last


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
    return changes, _changed(player, player.money - cost, mall), last


def _build_attraction(state: State, player: PlayerState, action: BuildAttraction) -> Outcome:
    spec = state.content.attractions[action.id]
    shape = spec.mirror_shape if action.mirror else spec.shape
    cells = tuple(sorted((action.x + c, action.y + r) for c, r, _ in shape.cells))
    platforms = frozenset((action.x + c, action.y + r) for c, r, k in shape.cells if k == "P")
    tile = Tile(spec.id, ATTRACTION, cells, platforms, action.mirror)
    player = _changed(player, player.money, player.mall.add(tile))
    triggered = False
    if not spec.personal:
        built = set(state.built_by) | {spec.id}
        triggered = all(c in built for c in state.commons)  # end trigger B
    return {}, player, triggered


def _dock(state: State, player: PlayerState, action: Dock) -> Outcome:
    bay = state.content.bays[action.id]
    tile = Tile(bay.id, DOCK, ((action.x, 1), (action.x + 1, 1)))
    notes = min(bay.notes, state.bank)
    player = _changed(player, player.money + notes, player.mall.add(tile, bay.customers))
    return {"bank": state.bank - notes}, player, False


def _changed(player: PlayerState, money: int, mall: Mall) -> PlayerState:
    """The player with new money and mall (dataclasses.replace, looping over every
    field, costs as much again). Every field by name: a field added to PlayerState
    without a default fails here at once, not later."""
    return PlayerState(
        seat=player.seat, name=player.name, money=money, secret=player.secret, mall=mall
    )


def _next_turn(state: State, seat: int, triggered: bool) -> tuple[bool, int | None, int]:
    """(end triggered, seat to move, round) after `seat`'s turn: after the last
    seat's turn in a round that saw an end trigger, the game is over (docs/games/mall.md
    section 9)."""
    end = state.end_triggered or triggered
    last_seat = len(state.players)
    if end and seat == last_seat:
        return True, None, state.round
    following = seat % last_seat + 1
    return end, following, state.round + (1 if following == 1 else 0)
