"""Benchmark of the reply reader on hostile 1 MB bodies (the largest mail the
handler reads): lines shaped to make each pattern of pbem.mail.quoting work its
hardest, best of three runs each, in milliseconds.

    python bench/reading.py
"""

from __future__ import annotations

import time

from pbem.mail.reading import reply_lines

SIZE = 1_000_000
BODIES = {
    "lines ending in an attribution's word": ("x " * 250 + "skrev skrev:\n"),
    "digits, an @ and a colon": ("1" * 300 + "@" + "2" * 290 + ":\n"),
    "an Arabic attribution's word repeated": ("كتب " * 150 + ":\n"),
    "one line 'On ... wrote:' of 1 MB": None,
    "a colon line over a quote, repeated": "Ann:\n> q\n",
    "header fields, repeated": "From: x\nSent: y\n",
    "greetings and emoticons": "Hi :) :) :) :) :) :) :) :) :) :)\n",
    "a line and fifty blank lines": "a:\n" + "\n" * 50,
}


def main() -> None:
    for name, unit in BODIES.items():
        if unit is None:
            body = "On " + "x" * (SIZE - 12) + " wrote:\n"
        else:
            body = unit * (SIZE // len(unit))
        best = min(_timed(body) for _ in range(3))
        print(f"{name:42} {best * 1000:8.0f} ms")


def _timed(body: str) -> float:
    start = time.perf_counter()
    reply_lines(body)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
