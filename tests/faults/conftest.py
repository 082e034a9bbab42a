"""The fault suite's series: its seed (`--fault-seed N` or PBEM_FAULT_SEED, else a
fresh one, printed), its size (short by default, as CI runs it; PBEM_FAULT_LONG=1 for
the long runs of `make faults`) and how many runs (PBEM_FAULT_RUNS), and the figures
of each run printed at the end."""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass

import pytest
from harness import PG_BIN


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fault-seed", type=int, help="the fault suite's seed (PBEM_FAULT_SEED)")


@dataclass(frozen=True)
class Series:
    seed: int
    games: int
    faults: int


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "series" not in metafunc.fixturenames:
        return
    runs = int(os.environ.get("PBEM_FAULT_RUNS") or 1)
    given = metafunc.config.getoption("--fault-seed", None) or os.environ.get("PBEM_FAULT_SEED")
    fresh = random.SystemRandom()
    seeds = [int(given) + run if given else fresh.randrange(1, 10**9) for run in range(runs)]
    if os.environ.get("PBEM_FAULT_LONG"):
        games, faults = 14, 36
    else:
        games, faults = 5, 9
    series = [Series(seed, games, faults) for seed in seeds]
    metafunc.parametrize("series", series, ids=[f"seed{s.seed}" for s in series])


def need(topology: str) -> None:
    """The servers a topology starts of its own; missing, a skip (a failure in CI)."""
    missing = []
    if topology == "postgresql":
        if not (PG_BIN / "initdb").exists():
            missing.append(f"PostgreSQL's initdb in {PG_BIN} (PBEM_FAULTS_PG_BIN)")
        if not shutil.which("redis-server"):
            missing.append("redis-server")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the fault suite: install {', '.join(missing)}")
        pytest.skip(f"the fault suite on {topology} needs {', '.join(missing)}")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    lines = []
    for report in terminalreporter.getreports("passed") + terminalreporter.getreports("failed"):
        lines += [value for name, value in report.user_properties if name == "fault figures"]
    if lines:
        terminalreporter.section("fault series")
        for line in lines:
            terminalreporter.write_line(line)
