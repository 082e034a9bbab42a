"""The house rules a second game or channel relies on: the server's floors above the
games (web, mail, service, CLI, worker, the top-level templates) know no game by name
and import no game package; no module is over the size one can read; no two modules
import each other round a cycle."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest
from test_layers import IMPORTS, MODULES, ROOT, _cycles

from pbem.events import VERSIONS
from pbem.games import NAMES

NEUTRAL = ("pbem.web", "pbem.mail", "pbem.service", "pbem.cli", "pbem.store", "worker")
GAME_PACKAGES = tuple(f"pbem.games.{name}" for name in NAMES)
# Words of the mall game (docs/games/mall.md) that only its package may say. The site's name
# ("Mall by mail" by default) is a setting, not a word of these files.
GAME_WORDS = re.compile(
    r"\b(malls?|tiles?|balloons?|dispenser|attractions?|rainbow|customers?|docking|greedy)\b",
    re.IGNORECASE,
)
MAX_LINES = 400


def _neutral(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in NEUTRAL)


def _text_files() -> list[Path]:
    files = [MODULES[m] for m in sorted(MODULES) if _neutral(m)]
    files += sorted((ROOT / "templates").rglob("*.*"))
    files += sorted((ROOT / "static").rglob("*.js"))
    return files


def test_the_checks_see_what_they_check():
    assert GAME_WORDS.search("Build the attraction")
    assert GAME_WORDS.search("From: Mall by mail")
    assert any(p.name == "game.html" for p in _text_files())
    assert "pbem.web.app" in MODULES and GAME_PACKAGES


def test_no_floor_above_the_games_imports_a_game():
    wrong = [
        f"{module} -> {target}"
        for module, targets in IMPORTS.items()
        if _neutral(module)
        for target in targets
        if any(target == g or target.startswith(g + ".") for g in GAME_PACKAGES)
    ]
    assert not wrong, f"reach a game through pbem.games' registry, not its package: {wrong}"


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_floor_above_the_games_speaks_of_one(path):
    found = [
        f"{n}: {line.strip()}"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if GAME_WORDS.search(line)
    ]
    assert not found, f"game words outside the game's package: {found}"


@pytest.mark.parametrize("name", sorted(MODULES), ids=str)
def test_no_module_is_over_400_lines(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines"


def test_no_cycle_between_modules():
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in IMPORTS.items():
        graph[module] |= targets
    assert not _cycles(graph), f"modules importing each other round a cycle: {_cycles(graph)}"


def _strings(path: Path) -> set[str]:
    """Every string constant of a module (a docstring naming an event among other
    words is no constant equal to its name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = (n.value for n in ast.walk(tree) if isinstance(n, ast.Constant))
    return {value for value in found if isinstance(value, str)}


def test_event_type_names_live_only_in_the_event_vocabulary():
    names = set(VERSIONS)
    assert "UndoDone" in names and "UndoDone" in _strings(MODULES["pbem.events.kinds"])
    wrong = {
        module: sorted(_strings(path) & names)
        for module, path in MODULES.items()
        if not module.startswith("pbem.events") and _strings(path) & names
    }
    assert not wrong, f"ask an event by its class (pbem.events), not its name: {wrong}"
