"""Hypothesis properties over random legal play for 2-4 players: conservation of tiles
and money, canonical notation, folding, redaction, and legality of arbitrary actions."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games.mall import (
    Build,
    BuildAttraction,
    Dock,
    IllegalAction,
    Money,
    Pass,
    apply,
    check,
    format_action,
    from_json,
    legal_actions,
    load,
    parse,
    setup,
    to_json,
    view,
)
from pbem.games.mall.logfile import read, replay, write
from pbem.games.mall.mall import Mall

CONTENT = load()
games = st.tuples(
    st.integers(min_value=2, max_value=4),
    st.integers(min_value=0, max_value=2**64).map(lambda n: f"seed-{n:x}"),
    st.integers(min_value=0, max_value=2**32),
)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(players: int, seed: str, choices: int):
    """Yield (state, legal actions, chosen action) along one random legal game."""
    state = setup([f"P{i}" for i in range(1, players + 1)], seed=seed)
    pick = random.Random(choices)
    while state.turn is not None:
        legal = legal_actions(state)
        action = pick.choice(legal)
        yield state, legal, action
        state = apply(state, action)
    yield state, [], None


def element_tiles(state) -> Counter:
    in_dispenser = [t for column in state.dispenser for t in column if t is not None]
    in_malls = [t.id for p in state.players for t in p.mall.tiles if t.is_element]
    return Counter(in_dispenser + list(state.supply) + in_malls + list(state.notes))


@SETTINGS
@given(games)
def test_random_legal_play_conserves_tiles_and_money(game):
    players, seed, choices = game
    turns = Counter()
    for state, _, action in random_game(players, seed, choices):
        if action is not None:
            turns[state.turn] += 1
        assert element_tiles(state) == Counter(CONTENT.tiles_for(players))
        assert max(element_tiles(state).values()) == 1
        money = sum(p.money for p in state.players) + state.bank
        assert money == CONTENT.start_money * players + len(state.notes)
        assert all(p.money >= 0 for p in state.players) and state.bank >= 0
    assert state.finished
    assert len(set(turns.values())) == 1, "every seat plays the same number of turns"


@SETTINGS
@given(games)
def test_every_legal_action_is_canonical_and_round_trips(game):
    players, seed, choices = game
    for state, legal, _ in random_game(players, seed, choices):
        assert len(set(legal)) == len(legal), "a legal action is listed twice"
        for action in legal:
            text = format_action(action)
            assert parse(text) == action
            assert parse(text.upper().replace(" at ", "  AT ")) == action
            assert from_json(json.loads(json.dumps(to_json(action)))) == action
            assert check(state, action) == action


@SETTINGS
@given(games)
def test_folding_the_log_from_scratch_equals_the_incremental_state(game):
    players, seed, choices = game
    names = [f"P{i}" for i in range(1, players + 1)]
    history = []
    for state, _, action in random_game(players, seed, choices):
        if action is not None:
            history.append((state.turn, action))
    log = read(json.loads(json.dumps(write(names, history, seed=seed))))
    result = replay(log)
    assert result.refusal is None
    assert result.state == state
    assert result.applied == len(history)


@SETTINGS
@given(games)
def test_incremental_mall_caches_match_a_fresh_computation(game):
    players, seed, choices = game
    for state, _, _ in random_game(players, seed, choices):
        for player in state.players:
            mall = player.mall
            fresh = Mall(mall.content, mall.tiles, mall.customers)
            assert fresh.owner == mall.owner
            assert fresh.build_cells == mall.build_cells
            assert fresh.neighbours == mall.neighbours
            assert fresh.elements == mall.elements
            assert fresh.height == mall.height
        if state.turn is not None:
            mall = state.player(state.turn).mall
            fresh = Mall(mall.content, mall.tiles, mall.customers)
            for want in (*CONTENT.stores, None):
                assert fresh.build_choices(want) == mall.build_choices(want)


@SETTINGS
@given(games)
def test_view_never_shows_hidden_information(game):
    players, seed, choices = game
    for state, _, _ in random_game(players, seed, choices):
        for viewer in [None, *range(1, players + 1)]:
            text = json.dumps(view(state, viewer))
            doc = json.loads(text)
            for tile in state.supply:
                assert f'"{tile}"' not in text
            if not state.finished:
                assert doc["seed"] is None
                assert json.dumps(seed) not in text.replace('"seed_sha256"', "")
            for player in state.players:
                shown = doc["players"][player.seat - 1]["secret"]
                revealed = viewer == player.seat or player.statue_built or state.finished
                assert shown == (player.secret if revealed else None)


def arbitrary_actions(state):
    """Plausible actions, legal or not, near the mover's mall."""
    slots = [f"{c}{r}" for c in "LR" for r in range(1, 6)]
    customers = [c.id for p in state.players for c in p.mall.customers] + ["M9.1", None]
    xs = range(-5, 6)
    ys = range(0, 9)
    rng = random.Random(len(state.notes) * 7919 + state.round)
    yield Money(rng.choice("LRX"))
    yield Pass()
    for _ in range(20):
        yield Build(rng.choice(slots), rng.choice(xs), rng.choice(ys), rng.choice(customers))
    for spec in CONTENT.attractions:
        yield BuildAttraction(spec, rng.choice(xs), rng.choice(ys), rng.random() < 0.5)
    for bay in [*CONTENT.bays, "GD9"]:
        yield Dock(bay, rng.choice(xs))


@SETTINGS
@given(games)
def test_an_action_is_accepted_exactly_when_its_canonical_form_is_listed_as_legal(game):
    players, seed, choices = game
    for state, legal, _ in random_game(players, seed, choices):
        if state.turn is None:
            continue
        listed = set(legal)
        for action in arbitrary_actions(state):
            try:
                canonical = check(state, action)
            except IllegalAction as error:
                assert str(error), "an illegal action needs a reason"
                assert action not in listed
            else:
                assert canonical in listed
