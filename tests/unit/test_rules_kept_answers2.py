"""The turn options of every position of whole games — each legal action's text, its
JSON and the preview of what it would do, in English and in German, and the state
each would lead to — are exactly what they were before the rules learnt to share
work between the actions of one position (pinned digests). A mall made by a move
grows what it is asked from its parent's parts into what a fresh mall works out, in
any order of asking, and holds no older mall alive. Words kept once said are the
words of the catalog of the moment."""

from __future__ import annotations

import gc
import hashlib
import json
import weakref
from collections.abc import Iterator

import pytest
from babel.support import NullTranslations

from pbem import i18n
from pbem.games import get
from pbem.games.mall import render
from pbem.games.mall.content import load
from pbem.games.mall.explain import said
from pbem.games.mall.mall import GROWN, Mall
from pbem.games.mall.simulation import play
from pbem.games.mall.state import State
from pbem.service.queries import turn_options_in

RULES = get("mall")
GAMES = (("options/1", ["greedy", "greedy"]), ("options/2", ["random"] * 3))
GAMES += (("options/3", ["greedy", "random", "greedy", "random"]),)


def positions(seed: str, bots: list[str]) -> Iterator[State]:
    """Every position of one bot game with a seat to move, from its first."""
    game = play(seed, bots)
    state = RULES.setup([p.name for p in game.state.players], {"seed": seed})
    for seat, action in game.actions:
        yield state
        state = RULES.perform(state, RULES.check(state, action, seat))


def _digests(seed: str, bots: list[str]) -> dict[str, str]:
    parts: dict[str, list[str]] = {"en": [], "de": [], "after": [], "refused": []}
    for state in positions(seed, bots):
        seat = state.turn
        for language in ("en", "de"):
            with i18n.speaking(language):
                options = turn_options_in(RULES, state, seat)
            parts[language].append(json.dumps(options, ensure_ascii=False))
        for action in RULES.legal_actions(state, seat):
            after = RULES.perform(state, RULES.check(state, action, seat))
            parts["after"].append(json.dumps(RULES.dump_state(after)))
        others = [s.seat for s in state.players if s.seat != seat]
        parts["refused"].append(repr(RULES.legal_actions(state, others[0])))
    return {k: hashlib.sha256("\n".join(v).encode()).hexdigest()[:16] for k, v in parts.items()}


# Made by the rules before the actions of one position shared any work; a deliberate
# change of words, of the legal actions or of the snapshot format changes them.
PINNED = {
    "options/1": {
        "en": "6a6cd3461cf4b34a",
        "de": "fd2fe589d868b353",
        "after": "80aef9a270184109",
        "refused": "df908a2bc69e2cee",
    },
    "options/2": {
        "en": "f1dd77986fab02ce",
        "de": "a2271e9a30d3ac15",
        "after": "337b3492f1b3793e",
        "refused": "3528b5598128f73d",
    },
    "options/3": {
        "en": "c850cfc1a211e73e",
        "de": "3b23a2899c18231b",
        "after": "6b14c00a311d1c59",
        "refused": "563d1d9ede4798d7",
    },
}


@pytest.mark.parametrize(("seed", "bots"), GAMES)
def test_every_turn_option_of_whole_games_is_what_it_was(seed, bots):
    assert _digests(seed, bots) == PINNED[seed]


def _fresh(mall: Mall) -> Mall:
    return Mall(mall.content, mall.tiles, mall.customers)


@pytest.mark.parametrize(("seed", "bots"), GAMES[1:])
def test_every_previewed_mall_grows_the_parts_a_fresh_mall_works_out(seed, bots):
    wants = (*RULES.setup(["A", "B"], {"seed": seed}).content.stores, None)
    grown = 0
    for n, state in enumerate(positions(seed, bots)):
        RULES.legal_actions(state, state.turn)  # the mall to move works its parts out
        for i, action in enumerate(RULES.legal_actions(state, state.turn)):
            mall = RULES.perform(state, action).player(state.turn).mall
            fresh = _fresh(mall)
            asked = GROWN if (n + i) % 2 else GROWN[::-1]  # in either order
            grown += "_parent" in mall.__dict__
            for name in asked:
                assert getattr(mall, name) == getattr(fresh, name), (seed, n, action, name)
            for want in wants:
                assert mall.build_choices(want) == fresh.build_choices(want)
            for cell in mall.build_cells:
                for want in wants[:-1]:
                    reach = fresh.reachers(cell, want)
                    assert mall.reachers(cell, want) == reach == mall.reachers(cell, want)
    assert grown > 500  # the previews' malls had parts to grow from


def test_a_game_holds_no_mall_but_those_of_its_position():
    seen: list[weakref.ref[Mall]] = []
    state = None
    for state in positions(*GAMES[0]):
        RULES.legal_actions(state, state.turn)
        seen += [weakref.ref(p.mall) for p in state.players]
    assert state is not None
    gc.collect()
    alive = {id(m) for ref in seen if (m := ref()) is not None}
    assert alive == {id(p.mall) for p in state.players}
    assert len(seen) > 50


class _Renamed(NullTranslations):
    """A catalog that calls food otherwise."""

    def ugettext(self, message: str) -> str:
        return "snacks" if message == "food" else message

    gettext = ugettext


def test_the_customers_arriving_are_told_in_the_language_of_the_moment(monkeypatch):
    content = load()
    wants = [("food",), ("hobby", "hobby"), ("food", "hobby", "fashion"), ("food",)]
    told = {}
    for language in ("en", "de", "en", "de"):
        with i18n.speaking(language):
            words = [render._arrivals(w, content) for w in wants]
            assert words == [render._arrivals_words([said(x) for x in w]) for w in wants]
            assert told.setdefault(language, words) == words
    assert told["en"][0] == "a customer arrives, wanting food"
    assert told["de"] != told["en"]
    monkeypatch.setattr(i18n, "translations", lambda language: _Renamed())
    assert render._arrivals(("food",), content) == "a customer arrives, wanting snacks"
