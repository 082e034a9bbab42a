"""The abuse suite: the integration tests' helpers (`support`) are importable here
too; the database, clock, service and web fixtures come from tests/conftest.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
