"""The shipped systemd units (config/systemd/): each runs as the pbem user on the
settings of /etc/pbem/env and comes back whatever its exit status (a worker whose
broker is gone exits 1; Restart=always, never on-failure alone); each ExecStart is a
`pbem` command with options it takes, or gunicorn on the shipped config and the
app factory; and systemd itself reads them without complaint where it is at hand."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click import Context

from pbem.cli import SERVER_COMMANDS, main

UNITS = Path(__file__).resolve().parents[2] / "config" / "systemd"
BIN = "/opt/pbem/venv/bin/"


def _units() -> dict[str, configparser.ConfigParser]:
    found = {}
    for path in sorted(UNITS.glob("*.service")):
        parser = configparser.ConfigParser(interpolation=None, strict=True)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep case
        parser.read(path, encoding="utf-8")
        found[path.name] = parser
    return found


UNIT_FILES = _units()


def test_the_three_units_are_shipped():
    assert set(UNIT_FILES) == {
        "pbem-web.service",
        "pbem-worker@.service",
        "pbem-scheduler.service",
        "pbem-lmtp.service",
    }


@pytest.mark.parametrize("name", sorted(UNIT_FILES))
def test_a_unit_restarts_always_as_the_pbem_user_on_the_env_file(name):
    service = UNIT_FILES[name]["Service"]
    assert service["Restart"] == "always"
    assert service["EnvironmentFile"] == "/etc/pbem/env"
    assert service["User"] == "pbem" and service["Group"] == "pbem"
    assert service["WorkingDirectory"] == "/var/lib/pbem"
    assert service["UMask"] == "0077"  # its databases and backups are its own to read
    assert UNIT_FILES[name]["Install"]["WantedBy"] == "multi-user.target"


def _pbem_command(argv: list[str]) -> None:
    """`pbem ARGS` names a server command and gives it only options it takes."""
    assert argv[0] == BIN + "pbem"
    name, *args = argv[1:]
    assert name in SERVER_COMMANDS
    command = main.get_command(Context(main), name)
    assert command is not None
    command.make_context(name, list(args))  # raises on an option it does not take


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("pbem-worker@.service", "worker"),
        ("pbem-scheduler.service", "scheduler"),
        ("pbem-lmtp.service", "lmtp"),
    ],
)
def test_the_worker_the_scheduler_and_the_listener_run_pbem_commands(name, command):
    argv = shlex.split(UNIT_FILES[name]["Service"]["ExecStart"])
    _pbem_command(argv)
    assert argv[1] == command


def test_the_web_unit_runs_gunicorn_on_the_shipped_config_and_the_app_factory():
    argv = shlex.split(UNIT_FILES["pbem-web.service"]["Service"]["ExecStart"])
    assert argv[:2] == ["/bin/sh", "-c"]
    inner = shlex.split(argv[2])
    assert inner[:2] == ["exec", BIN + "gunicorn"]
    config = inner[inner.index("-c") + 1]
    assert config == f"$({BIN}python -m pbem.resources)/config/gunicorn.conf.py"
    assert (UNITS.parent / "gunicorn.conf.py").exists()
    module, _, factory = inner[-1].partition(":")
    assert factory == "create_app()"
    from importlib import import_module

    assert callable(import_module(module).create_app)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_reads_the_units(tmp_path):
    here = Path(sys.executable).parent  # this environment's pbem, for the check
    copies = []
    for path in sorted(UNITS.glob("*.service")):
        copy = tmp_path / path.name.replace("@.", "@1.")
        copy.write_text(path.read_text().replace(BIN, f"{here}/"), encoding="utf-8")
        copies.append(str(copy))
    verified = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *copies], capture_output=True, text=True
    )
    said = [line for line in verified.stderr.splitlines() if "gunicorn" not in line]
    assert verified.returncode == 0 and said == [], verified.stderr
