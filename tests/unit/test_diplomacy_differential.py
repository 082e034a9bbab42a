"""The rules against the `diplomacy` package itself: random legal orders (seeded), as
a player would write them, go through the game (parse, check, perform, the
resolution) while a package game processes the same orders directly; phase by
phase both must stand in the same position (phase, units, dislodged units and
their retreats, centres, who orders). A log of such a game replays through the
package alone into the same final position.

The CI series plays a few games of ten years; `PBEM_DIPLOMACY_GAMES=100` (or `make
diplomacy-long`) plays the full series."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from diplomacy import Game as PackageGame
from diplomacy_helpers import NAMES, phase

from pbem.games.diplomacy import GAME, DipState, Orders
from pbem.games.diplomacy.position import POWERS, results_of
from pbem.games.diplomacy.replay import replay

GAMES = int(os.environ.get("PBEM_DIPLOMACY_GAMES", "8"))
YEARS = int(os.environ.get("PBEM_DIPLOMACY_YEARS", "10"))
SETUP = {"map": "standard"}


def package_orders(ref: Any, power: str, rng: random.Random) -> list[str]:
    """Random possible orders of the package's own listing for a power: in movement
    mostly moves, and supports of the power's own moves where it can (so units get
    dislodged), now and then no order (the default); in adjustments up to the
    allowed count (now and then fewer: waived builds, civil disorder)."""
    every = {loc: sorted(orders) for loc, orders in ref.get_all_possible_orders().items()}
    locations = ref.get_orderable_locations(power)
    if ref.get_current_phase().endswith("A"):
        count = abs(ref.get_state()["builds"][power]["count"])
        locations = sorted(rng.sample(locations, rng.randint(0, min(count, len(locations)))))
    if not ref.get_current_phase().endswith("M"):
        return [rng.choice(every[loc]) for loc in locations if every[loc] and rng.random() > 0.05]
    chosen: dict[str, str] = {}
    for loc in locations:
        moves = [o for o in every[loc] if o.split()[2] == "-"]
        if moves and rng.random() < 0.6:
            chosen[loc] = rng.choice(moves)
    for loc in locations:
        if loc in chosen or rng.random() < 0.05:
            continue
        backing = [o for o in every[loc] if o.split(" S ")[-1] in chosen.values()]
        chosen[loc] = rng.choice(backing if backing and rng.random() < 0.8 else every[loc])
    return [chosen[loc] for loc in locations if loc in chosen]


def loosely(order: str, rng: random.Random) -> str:
    """An order as a player might write it: lower case, "-" without spaces."""
    if rng.random() < 0.3:
        order = order.lower()
    if rng.random() < 0.3:
        order = order.replace(" - ", "-")
    return order


def differences(state: DipState, ref: Any) -> list[str]:
    """Where the game's position and the package game's differ (empty: nowhere)."""
    found = []
    position = state.position
    if position.phase != ref.get_current_phase():
        found.append(f"phase {position.phase} != {ref.get_current_phase()}")
    for i, power in enumerate(POWERS):
        ours = sorted([*position.units[i], *(f"*{u}" for u, _ in position.retreats[i])])
        if ours != sorted(ref.get_units(power)):
            found.append(f"{power} units {ours} != {sorted(ref.get_units(power))}")
        if sorted(position.centres[i]) != sorted(ref.get_centers(power)):
            found.append(f"{power} centres {position.centres[i]} != {ref.get_centers(power)}")
        retreats = {u: sorted(w) for u, w in ref.get_power(power).retreats.items()}
        if {u: sorted(w) for u, w in position.retreats[i]} != retreats:
            found.append(f"{power} retreats {position.retreats[i]} != {retreats}")
    orderable = (
        set()
        if ref.is_game_done
        else {POWERS.index(p) + 1 for p, locs in ref.get_orderable_locations().items() if locs}
    )
    if state.history and state.history[-1].results != results_of(ref):
        found.append(f"results {state.history[-1].results} != {results_of(ref)}")
    if set(GAME.active(state)) | set(state_ordered(state)) != orderable:
        found.append(f"ordering seats {sorted(GAME.active(state))} != {sorted(orderable)}")
    return found


def state_ordered(state: DipState) -> list[int]:
    return [s for s, p in enumerate(state.pending, start=1) if p is not None]


def play(seed: int, years: int) -> tuple[DipState, Any, list[dict[str, Any]]]:
    """A game of random orders through the rules and through the package side by
    side, compared after every phase; the game's state, the package game, and the
    log's actions."""
    rng = random.Random(seed)
    ref = PackageGame()
    state = GAME.setup(NAMES, SETUP)
    log: list[dict[str, Any]] = []
    while not ref.is_game_done and int(ref.get_current_phase()[1:5]) < 1901 + years:
        for power in POWERS:
            if not ref.get_orderable_locations(power):
                continue
            seat = POWERS.index(power) + 1
            orders = package_orders(ref, power, rng)
            written = "\n".join(loosely(o, rng) for o in orders)
            action = GAME.check(state, GAME.parse(written), seat)
            assert action == Orders(seat, tuple(orders)), written
            state = GAME.perform(state, action)
            log.append({"seat": seat, "action": GAME.to_json(action)})
            ref.set_orders(power, orders)
        due = GAME.resolution(state)
        assert due is not None, f"still waiting on {sorted(GAME.active(state))}"
        state = GAME.perform(state, GAME.check(state, GAME.parse(GAME.format(due))))
        log.append({"seat": None, "action": GAME.to_json(due)})
        ref.process()
        while not ref.is_game_done and not any(ref.get_orderable_locations().values()):
            ref.process()
        assert differences(state, ref) == [], f"game {seed}, after {due.phase}"
        assert GAME.over(state) == ref.is_game_done
        assert GAME.over(state) or GAME.active(state)  # never waiting on nobody
    return state, ref, log


@pytest.mark.parametrize("seed", range(GAMES))
def test_the_rules_play_as_the_package_does(seed):
    state, ref, log = play(seed, YEARS)
    assert ref.is_game_done or int(ref.get_current_phase()[1:5]) >= 1901 + YEARS
    assert len(state.history) == len(ref.get_phase_history())
    kinds = {record.phase[-1] for record in state.history}
    assert kinds >= {"M", "A"}, "ten years of random orders build and disband"
    if seed == 0:
        assert "R" in kinds, "and the first game's dislodge units"
    final = replay({"players": NAMES, **SETUP}, log)
    assert final.get_state()["units"] == ref.get_state()["units"]
    assert differences(state, final) == []
    if ref.is_game_done:
        assert [POWERS[s - 1] for s in state.winners] == ref.outcome[1:]


def test_a_game_to_a_solo_victory_plays_as_the_package_does():
    state, ref, log = play(2, 25)  # this one's Russia reaches 18 centres in 1921
    assert ref.is_game_done and GAME.over(state) and not state.drawn
    assert state.winners == (6,) and ref.outcome == ["W1921A", "RUSSIA"]
    assert len(state.position.centres[5]) >= 18
    assert replay(SETUP, log).outcome == ref.outcome


def test_the_comparison_sees_other_orders():
    """Two games told the same, then one phase different: the comparison (and the
    log's replay) must see that they stand differently."""
    state, ref, log = play(101, 1)
    assert differences(state, ref) == []
    other = PackageGame()
    other.set_orders("FRANCE", ["A PAR - BUR"])
    other.process()
    opening = GAME.setup(NAMES, SETUP)
    held = phase(opening)
    assert differences(held, other) and "FRANCE units" in " ".join(differences(held, other))
    assert differences(phase(opening, {3: "A PAR - BUR"}), other) == []
    replayed = replay({"map": "standard"}, log[:-1])  # the last resolution left out
    assert differences(state, replayed)


def test_a_drawn_log_replays_into_the_package_s_draw():
    opening = GAME.setup(NAMES, SETUP)
    state, log = opening, []
    for s in range(1, 8):
        action = GAME.check(state, Orders(s, (), draw=True), s)
        state = GAME.perform(state, action)
        log.append({"seat": s, "action": GAME.format(action)})
    due = GAME.resolution(state)
    state = GAME.perform(state, due)
    log.append({"seat": None, "action": GAME.format(due)})
    final = replay(SETUP, log)
    assert final.is_game_done and state.drawn
    assert final.outcome[1:] == [POWERS[s - 1] for s in state.winners]
    assert differences(state, final) == [f"phase S1901M != {final.get_current_phase()}"]
