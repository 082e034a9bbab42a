"""How hard the abuse suite's property and fuzz tests try: the example counts in
the tests are the short series CI runs; `make abuse` multiplies them (by
PBEM_ABUSE_FACTOR) and draws new examples instead of CI's fixed ones."""

from __future__ import annotations

import os

FACTOR = max(1, int(os.environ.get("PBEM_ABUSE_FACTOR", "1")))


def examples(count: int) -> int:
    """`count` examples in the short series, FACTOR times as many in the long one."""
    return count * FACTOR
