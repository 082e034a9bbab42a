"""The abuse suite: the integration tests' helpers (`support`) are importable here
too; the database, clock, service and web fixtures come from tests/conftest.py, and
`mailbox` (a real SMTP server keeping what it gets) from here."""

import sys
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))

import support


@pytest.fixture
def mailbox():
    """An aiosmtpd server on a free port; what it received, with its `url` to give
    as PBEM_SMTP_URL."""
    kept = support.Kept()
    port = support.free_port()
    controller = Controller(kept, hostname="127.0.0.1", port=port)
    controller.start()
    kept.url = f"smtp://127.0.0.1:{port}"
    yield kept
    controller.stop()
