"""A seat's pending orders and draw vote stay its own: in random games, at every
step, whatever another seat or a spectator is shown (view, description, narration,
map) is the same whatever the seat ordered, and names none of its orders; the seat
itself is shown them (so the comparison would catch a leak). The map is a
self-contained drawing."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from diplomacy_helpers import NAMES, resolve

from pbem.games.diplomacy import GAME, DipState, Orders
from pbem.games.diplomacy.svg import draw_map

VIEWERS = (None, 1, 2, 3, 4, 5, 6, 7)


def other_orders(state: DipState, action: Orders, rng: random.Random) -> Orders:
    """A different order set (and the other draw vote) the seat could have given."""
    choices = [a for a in GAME.legal_actions(state, action.seat) if a.orders != action.orders]
    return Orders(action.seat, rng.choice(choices).orders, not action.draw)


def shown(state: DipState, viewer: int | None) -> tuple[str, str]:
    return json.dumps(GAME.view(state, viewer), sort_keys=True), GAME.describe(state, viewer)


def public(state: DipState) -> str:
    """What everyone may read: the resolved phases' orders."""
    return json.dumps(GAME.view(state, None)["history"])


def names(text: str, order: str) -> bool:
    """Whether `text` names the order itself (not as what another order supports
    or convoys: "A VEN S A MAR - PIE" does not name "A MAR - PIE")."""
    return re.search(rf"(?<! S )(?<! C ){re.escape(order)}(?![A-Z/])", text) is not None


def check_sealed(before: DipState, action: Orders, after: DipState, rng: random.Random) -> None:
    seat = action.seat
    assert seat is not None
    instead = other_orders(before, action, rng)
    otherwise = GAME.perform(before, instead)
    for viewer in VIEWERS:
        told = GAME.narrate(before, action, after, viewer)
        if viewer == seat:
            assert shown(after, viewer) != shown(otherwise, viewer)
            assert told != GAME.narrate(before, instead, otherwise, viewer)
            assert all(names(told, order) for order in action.orders)
            assert all(names(shown(after, viewer)[1], order) for order in action.orders)
            assert GAME.view(after, viewer)["my_orders"] == list(action.orders)
            continue
        assert shown(after, viewer) == shown(otherwise, viewer), (viewer, seat)
        assert told == GAME.narrate(before, instead, otherwise, viewer)
        said = "".join(shown(after, viewer)) + told
        for order in set(action.orders) - {"WAIVE"}:  # a word every builder may say
            if not names(public(after), order):
                assert not names(said, order), (viewer, order)


@pytest.mark.parametrize("seed", range(3))
def test_pending_orders_are_shown_to_their_seat_only(seed):
    rng = random.Random(seed)
    bot = GAME.bot("random", seed)
    state = GAME.setup(NAMES, {"map": "standard"})
    checked = 0
    while len(state.history) < 14 and not GAME.over(state):
        seats = sorted(GAME.active(state))
        rng.shuffle(seats)
        for seat in seats + seats[:2]:  # the first two replace their orders
            action = GAME.check(state, bot(state, seat), seat)
            if rng.random() < 0.3:
                action = replace(action, draw=True)
            after = GAME.perform(state, action)
            check_sealed(state, action, after, rng)
            state, checked = after, checked + 1
        state = resolve(state)
    assert checked > 100 and len(state.history) == 14


def test_the_map_shows_the_viewer_s_own_orders_only():
    state = GAME.setup(NAMES, {"map": "standard"})
    state = GAME.perform(state, GAME.check(state, GAME.parse("A PAR - BUR\nF BRE - MAO"), 3))
    otherwise = GAME.perform(state, Orders(3, ("A PAR - GAS",)))
    spectator, german = draw_map(state, None), draw_map(state, 4)
    assert spectator == draw_map(otherwise, None) and german == draw_map(otherwise, 4)
    assert draw_map(state, 3) != draw_map(otherwise, 3) != spectator
    assert spectator == german  # nobody else's orders drawn, only the position


def test_a_resolved_phase_is_drawn_with_every_order_of_it():
    state = GAME.setup(NAMES, {"map": "standard"})
    for seat, text in enumerate(["A VIE - GAL", "F LON - NTH", "A PAR - BUR"], start=1):
        state = GAME.perform(state, GAME.check(state, GAME.parse(text), seat))
    for seat in (4, 5, 6, 7):
        state = GAME.perform(state, Orders(seat, ()))
    after = resolve(state)
    last = draw_map(after, None, last=True)
    assert last == draw_map(after, 6, last=True) and last != draw_map(after, None)
    assert draw_map(state, 3, last=True) == draw_map(state, None)  # nothing resolved yet
    assert last.count("<path") + last.count("<line") > draw_map(state, None).count("<line")


def test_the_map_is_a_self_contained_drawing():
    svg = draw_map(GAME.setup(NAMES, {"map": "standard"}), 1)
    root = ET.fromstring(svg)  # one well-formed element, no prologue
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert not re.search(r"<!DOCTYPE|<\?xml|<!--|<script|\bon[a-z]+=|javascript:", svg, re.I)
    assert set(re.findall(r'href="([^"#][^"]*)"', svg)) == set()
    assert set(re.findall(r"url\(([^#)][^)]*)\)", svg)) == set()
    namespaces = set(re.findall(r'xmlns(?::\w+)?="([^"]*)"', svg))
    assert namespaces <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert 50_000 < len(svg.encode()) < 110_000  # the package's map, whitespace dropped
