"""Golden files pinning the move generator, perft-style: for fixed positions (a game
log folded to a given action), the number of legal actions one and two plies deep,
and the full ordered list at a few of them.

Regenerate after a deliberate rules change with
    PBEM_REGENERATE_GOLDEN=1 pytest tests/unit/test_golden.py
and review the diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pbem.games.mall import apply, format_action, legal_actions
from pbem.games.mall.logfile import read, replay

GOLDEN = Path(__file__).parent / "golden"
GAMES = sorted(GOLDEN.glob("game-*.json"))
EXPECTED = GOLDEN / "legal_counts.json"
PLIES = (0, 1, 7, 20, 33, 48, 61)


def perft(state, depth: int) -> int:
    """Number of legal action sequences of `depth` plies from `state`."""
    legal = legal_actions(state) if state.turn is not None else []
    if depth == 1:
        return len(legal)
    return sum(perft(apply(state, action), depth - 1) for action in legal)


def measure() -> dict[str, dict[str, object]]:
    found = {}
    for path in GAMES:
        log = read(json.loads(path.read_text()))
        for ply in PLIES:
            if ply > len(log.entries):
                continue
            state = replay(log, ply).state
            entry: dict[str, object] = {"depth1": perft(state, 1), "depth2": perft(state, 2)}
            if ply in (0, 33):
                entry["legal"] = [format_action(a) for a in legal_actions(state)]
            found[f"{path.name}@{ply}"] = entry
    return found


def test_golden_positions_are_present():
    assert len(GAMES) == 3, "one 2-, one 3- and one 4-player game"
    assert EXPECTED.exists()


def test_legal_action_counts_match_the_golden_file():
    found = measure()
    if os.environ.get("PBEM_REGENERATE_GOLDEN"):
        EXPECTED.write_text(json.dumps(found, indent=1) + "\n")
    expected = json.loads(EXPECTED.read_text())
    assert found.keys() == expected.keys()
    for key, values in expected.items():
        assert found[key] == values, key
