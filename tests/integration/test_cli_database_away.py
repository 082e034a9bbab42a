"""A serving command started while the database cannot be reached says so in one line
and exits 1 (its supervisor starts it again), with no traceback and no password."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support import free_port


@pytest.mark.parametrize("command", [["scheduler"], ["worker"], ["mail", "failures"]])
def test_a_command_says_in_one_line_that_the_database_is_away(command, tmp_path):
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": f"postgresql://pbem:hidden-pw@127.0.0.1:{free_port()}/pbem",
        "PBEM_SECRET_KEY": "away-secret",
        "PBEM_BROKER_URL": "filesystem://",
        "PBEM_INSTANCE_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pbem.cli", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "cannot be reached now" in lines[0] and "Traceback" not in done.stderr
    assert "hidden-pw" not in done.stderr + done.stdout
