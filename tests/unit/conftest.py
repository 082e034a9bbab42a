"""The unit layer: the rules tests' explicit-setup builders (`builders`, in rules/) are
importable from every unit test, not only from those beside them."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "rules"))
