"""The fault suite's series: its seed (`--fault-seed N` or PBEM_FAULT_SEED; under CI
a fixed one; else a fresh one, printed), its size (short by default, as CI runs it;
PBEM_FAULT_LONG=1 for the long runs of `make faults`) and how many runs
(PBEM_FAULT_RUNS), and the figures of each run printed at the end."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fault-seed", type=int, help="the fault suite's seed (PBEM_FAULT_SEED)")


CI_SEED = 20261201  # under CI the same series every build, so a red build can be repeated


@dataclass(frozen=True)
class Series:
    run: int
    games: int
    faults: int

    def seed(self, config: pytest.Config) -> int:
        """The run's seed: the one given (plus the run's number), the CI one, or a
        fresh one."""
        given = config.getoption("--fault-seed", None) or os.environ.get("PBEM_FAULT_SEED")
        if given:
            return int(given) + self.run
        if os.environ.get("CI") and not os.environ.get("PBEM_FAULT_LONG"):
            return CI_SEED + self.run
        return random.SystemRandom().randrange(1, 10**9)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "series" not in metafunc.fixturenames:
        return
    runs = int(os.environ.get("PBEM_FAULT_RUNS") or 1)
    games, faults = (14, 36) if os.environ.get("PBEM_FAULT_LONG") else (5, 9)
    series = [Series(run, games, faults) for run in range(runs)]
    # the ids, unlike fresh seeds, are the same in every xdist worker
    metafunc.parametrize("series", series, ids=[f"run{s.run}" for s in series])


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    lines = []
    for report in terminalreporter.getreports("passed") + terminalreporter.getreports("failed"):
        lines += [value for name, value in report.user_properties if name == "fault figures"]
    if lines:
        terminalreporter.section("fault series")
        for line in lines:
            terminalreporter.write_line(line)
