"""docs/games/mall.md section 11: what `view` shows each seat and spectators — never the supply
order, a secret card only to its owner until revealed, the seed only after the end."""

import hashlib
import json

import pytest

from pbem.games.mall import apply, legal_actions, setup, view

from builders import Plan, play, position

SEED = "s3cret-seed-7f3a9c"
VIEWERS = [None, 1, 2, 3]


def shown(state, viewer) -> str:
    return json.dumps(view(state, viewer))


def seeded():
    return setup(["Ann", "Ben", "Cid"], seed=SEED)


def played_out(state):
    """Every seat takes its first legal action until the game ends."""
    while state.turn is not None:
        state = apply(state, legal_actions(state)[0])
    return state


def secrets_seen(state, viewer) -> list:
    return [p["secret"] for p in view(state, viewer)["players"]]


@pytest.mark.parametrize("viewer", VIEWERS)
def test_no_view_shows_a_supply_tile(viewer):
    """Section 11: "The supply order is known to no player"; its count is public."""
    state = play(seeded(), "money L", "money R", "money L")
    assert len(state.supply) == 72 - 8 - 3
    text = shown(state, viewer)
    assert not [tile for tile in state.supply if f'"{tile}"' in text]
    assert view(state, viewer)["supply"] == 61


def test_no_view_shows_a_supply_tile_after_the_end_either():
    """Section 11: trigger B ends this game with tiles still in the supply."""
    ann = Plan(1).stack(0, 2, "Y", "Y", "Y").stack(1, 2, "B", "B", "B")
    state = position(ann, commons=["zero-g-carousel"])
    state = play(state, "attraction zero-g-carousel at 0,5", "money L")
    # 96 tiles less the 6 built: 90; 8 fill the Dispenser, money L draws 1 more
    assert state.turn is None and len(state.supply) == 90 - 8 - 1
    for viewer in (None, 1, 2):
        text = shown(state, viewer)
        assert not [tile for tile in state.supply if f'"{tile}"' in text]


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_secret_card_is_seen_by_its_owner_only(viewer):
    """Section 11: "A secret card is known only to its owner until the personal attraction is
    built"."""
    state = seeded()
    cards = [p.secret for p in state.players]
    expected = [card if seat == viewer else None for seat, card in enumerate(cards, start=1)]
    assert secrets_seen(state, viewer) == expected
    text = shown(state, viewer)
    for seat, card in enumerate(cards, start=1):
        assert (f'"{card}"' in text) == (seat == viewer)


def test_building_the_statue_makes_its_owners_card_public():
    """Section 11: the statue reveals its owner's card; other cards stay hidden."""
    ann = Plan(1).stack(0, 2, "G", "G", "G")  # card O1
    state = position(ann, players=3, secrets={"1": "O1", "2": "O4", "3": "O5"})
    state = play(state, "attraction founders-statue at 1,2")
    assert secrets_seen(state, None) == ["O1", None, None]
    assert secrets_seen(state, 2) == ["O1", "O4", None]
    assert '"O5"' not in shown(state, 2)


def test_every_card_is_public_once_the_game_has_ended():
    """Section 11: "all cards become public when the game ends"."""
    state = played_out(seeded())
    cards = [p.secret for p in state.players]
    for viewer in VIEWERS:
        assert secrets_seen(state, viewer) == cards


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_seed_is_secret_until_the_end_and_its_hash_public(viewer):
    """Section 11: "The random seed is secret until the game ends; its SHA-256 is public"."""
    state = play(seeded(), "money L")
    text = shown(state, viewer)
    assert SEED not in text
    assert hashlib.sha256(SEED.encode("utf-8")).hexdigest() in text


def test_the_seed_is_shown_once_the_game_has_ended():
    """Section 11: after the game players can check the shuffle, so the seed is shown."""
    state = played_out(seeded())
    for viewer in VIEWERS:
        assert SEED in shown(state, viewer)


def test_everything_else_is_public_to_a_spectator():
    """Section 11: "malls, money, bank, Dispenser contents, commons in play, supply count" are
    public."""
    state = play(seeded(), "build L1 at 0,2", "money R")
    doc = view(state, None)
    assert doc["dispenser"] == {"L": list(state.dispenser[0]), "R": list(state.dispenser[1])}
    assert doc["supply"] == len(state.supply)
    assert doc["bank"] == state.bank
    assert [c["id"] for c in doc["commons"]] == list(state.commons)
    assert [p["money"] for p in doc["players"]] == [p.money for p in state.players]
    built = state.player(1).mall.tiles[-1]
    assert {"id": built.id, "kind": built.kind, "cells": [[0, 2]]} in doc["players"][0]["tiles"]
