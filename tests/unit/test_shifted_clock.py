"""The test-only shifted clock (`clock_file`): every process built with it reads
the real time plus the seconds in the file, re-read when the file changes; without
the setting the composition root keeps the plain clock and reads no file."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from pbem import bootstrap
from pbem.bootstrap import ShiftedClock, build, build_inbound
from pbem.config import load_settings


def write(path, text: str) -> None:
    """As the fault harness writes it: whole, by renaming a new file over the old."""
    new = path.with_suffix(".new")
    new.write_text(text, encoding="ascii")
    os.replace(new, path)


def near(when: datetime, expected: datetime) -> bool:
    return abs(when - expected) < timedelta(minutes=5)


def test_the_clock_moves_by_the_seconds_in_the_file_and_follows_its_changes(tmp_path):
    path = tmp_path / "clock"
    clock = ShiftedClock(str(path))
    assert near(clock(), datetime.now(UTC))  # no file yet: no shift
    write(path, "7200")
    assert near(clock(), datetime.now(UTC) + timedelta(hours=2))
    write(path, "90000.5")
    assert near(clock(), datetime.now(UTC) + timedelta(hours=25))
    write(path, "not a number")
    assert near(clock(), datetime.now(UTC))
    write(path, "inf")
    assert near(clock(), datetime.now(UTC))
    path.unlink()
    assert near(clock(), datetime.now(UTC))


def test_every_part_of_a_process_built_with_the_setting_runs_on_the_shifted_clock(tmp_path):
    path = tmp_path / "clock"
    write(path, str(3 * 86400))
    env = {"PBEM_DEV": "1", "PBEM_INSTANCE_DIR": str(tmp_path), "PBEM_CLOCK_FILE": str(path)}
    parts = build(load_settings(env))
    try:
        later = datetime.now(UTC) + timedelta(days=3)
        assert near(parts.service.clock(), later)
        assert near(parts.outbox.clock(), later)
    finally:
        parts.database.dispose()
    inbound = build_inbound(load_settings(env))  # what `pbem inbound` runs on
    try:
        assert near(inbound.inbound.inbox.clock(), datetime.now(UTC) + timedelta(days=3))
    finally:
        inbound.database.dispose()


def test_without_the_setting_the_plain_clock_is_used(tmp_path):
    parts = build(load_settings({"PBEM_DEV": "1", "PBEM_INSTANCE_DIR": str(tmp_path)}))
    try:
        assert parts.service.clock is bootstrap.now
        assert load_settings({}).clock_file == ""
    finally:
        parts.database.dispose()
