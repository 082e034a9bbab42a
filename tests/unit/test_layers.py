"""The layers of docs/design.md hold: every import of every module under pbem/ and worker/
(read with ast, function-level imports included) points down, no two packages import
each other round a cycle, and a game package imports nothing of the server."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP = ("pbem", "worker")
PACKAGES = (
    "pbem.web",
    "pbem.mail",
    "pbem.push",
    "pbem.cli",
    "pbem.service",
    "pbem.store",
    "pbem.events",
    "pbem.games",
)
# The foundations (settings, where the package's data lives, the languages) import
# nothing of the server, and every part may import them.
FOUNDATIONS = {"pbem.config", "pbem.resources", "pbem.i18n", "pbem.logs", "pbem.metrics"}
# A game speaks its players' language: the one server module it may import, a leaf
# that imports nothing of the server (checked below).
GAME_MAY_IMPORT = {"pbem.i18n"}
# What each part may import besides itself and the foundations. The composition root
# builds everything a process runs, so nothing below the entry points may import it;
# the entry points take their parts from it.
LOWER = {
    "pbem.resources": set(),
    "pbem.config": set(),
    "pbem.i18n": set(),
    "pbem.logs": set(),  # the logs' set-up and redaction: a leaf
    "pbem.metrics": set(),  # the Prometheus metrics every layer counts into
    "pbem.catalogs": set(),  # the catalogs' upkeep: the foundations only
    "pbem.games": set(),
    # The event vocabulary (typed events, codec, hash chain): below the store, so the
    # layers that read events need not import the store.
    "pbem.events": {"pbem.games"},
    "pbem.store": {"pbem.events", "pbem.games"},
    "pbem.service": {"pbem.store", "pbem.events", "pbem.games"},
    # The mails and the pages reach stored data through the service only.
    "pbem.mail": {"pbem.service", "pbem.events", "pbem.games"},
    "pbem.push": {"pbem.service", "pbem.store", "pbem.events", "pbem.games"},  # Web Push
    "worker": {"pbem.mail", "pbem.push", "pbem.service", "pbem.store", "pbem.events", "pbem.games"},
}
LOWER["pbem.bootstrap"] = {"worker", *LOWER["worker"]}
LOWER["pbem.web"] = {"pbem.bootstrap", *LOWER["worker"]} - {"pbem.store"}
LOWER["pbem.cli"] = {"pbem.web", "pbem.bootstrap", *LOWER["pbem.bootstrap"]}


def _modules() -> dict[str, Path]:
    """Every module under pbem/ and worker/, by dotted name."""
    found = {}
    for top in TOP:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> set[str]:
    """The project's modules `name` imports anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets.add(origin)
            # `from pkg import module` imports the module too
            targets.update(f"{origin}.{alias.name}" for alias in node.names)
    found = set()
    for target in targets:
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        # A module's own packages are imported before it anyway: no edge.
        if target and not (name == target or name.startswith(target + ".")):
            found.add(target)
    return found


IMPORTS = {name: _imported(name, path) for name, path in MODULES.items()}


def part_of(module: str) -> str:
    """The layer a module belongs to: its package among PACKAGES, `worker`, or the
    module itself (pbem.bootstrap, pbem.config)."""
    if module == "worker" or module.startswith("worker."):
        return "worker"
    for package in PACKAGES:
        if module == package or module.startswith(package + "."):
            return package
    return module


def _edges() -> dict[tuple[str, str], list[str]]:
    """Imports between parts, each with the module imports that make it."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, targets in IMPORTS.items():
        for target in sorted(targets):
            a, b = part_of(module), part_of(target)
            if a != b:
                edges[a, b].append(f"{module} -> {target}")
    return edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for after in sorted(graph.get(node, ())):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_walk_sees_the_imports():
    # A walk that found nothing would pass every rule below.
    assert {"pbem.web.app", "pbem.games.mall.rules", "worker.tasks", "pbem.bootstrap"} <= set(
        MODULES
    )
    assert "pbem.service" in {part_of(t) for t in IMPORTS["worker.tasks"]}
    assert ("pbem.service", "pbem.store") in _edges()


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_cycle_between_the_parts():
    graph: dict[str, set[str]] = defaultdict(set)
    edges = _edges()
    for a, b in edges:
        graph[a].add(b)
    cycles = _cycles(graph)
    evidence = {
        " <-> ".join(group): [m for (a, b), ms in edges.items() if {a, b} <= set(group) for m in ms]
        for group in cycles
    }
    assert not cycles, f"import cycles between packages: {evidence}"


@pytest.mark.parametrize("part", sorted(LOWER))
def test_imports_point_down_the_layers(part):
    wrong = [
        module_import
        for (a, b), imports in _edges().items()
        if a == part and b not in LOWER[part] | FOUNDATIONS
        for module_import in imports
    ]
    assert not wrong, f"{part} imports what it may not: {wrong}"


def test_the_foundations_import_nothing_of_the_server():
    wrong = [
        f"{module} -> {target}"
        for module in FOUNDATIONS & set(MODULES)
        for target in IMPORTS[module]
        if target not in FOUNDATIONS
    ]
    assert not wrong, f"a foundation imports the server: {wrong}"


def test_every_part_has_its_layer():
    # A new package must be placed in the layers before it can pass the rules above.
    assert {part_of(m) for m in MODULES} - {"pbem"} <= set(LOWER)


def test_a_game_imports_nothing_of_the_server():
    wrong = [
        f"{module} -> {target}"
        for module, targets in IMPORTS.items()
        if module.startswith("pbem.games")
        for target in targets
        if not target.startswith("pbem.games") and target not in GAME_MAY_IMPORT
    ]
    assert not wrong, f"a game imports outside pbem/games: {wrong}"
    assert IMPORTS["pbem.i18n"] == set(), "the languages module imports nothing of the server"
