"""Benchmark of writing log lines: microseconds per line through the handler every
process uses (the redacting filter, then the text or the JSON formatter), for a
plain line, a line with an address and a reply address to hide, and a line with
a traceback; the web app's route-aware redaction added or not.

    python bench/logs.py [--lines 20000]
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path, where bench/http.py
# would hide the standard library's `http` package from Flask.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import io  # noqa: E402
import logging  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from pbem import logs  # noqa: E402

TOKEN = "Zm9vYmFyYmF6cXV4MTIzNDU2"
CASES = {
    "plain": ("notice %s: %s", (1234, "sent")),
    "secrets": (
        "GET /g/abcdefghijklmnop/%s from play+abcdefghijklmnop.2.17.%s@mall.example",
        (TOKEN, "abcdefghijklmnopqrstuvwx"),
    ),
}


def _records(case: str, count: int) -> list[logging.LogRecord]:
    if case == "traceback":
        try:
            raise RuntimeError(f"while opening /g/abcdefghijklmnop/{TOKEN}")
        except RuntimeError:
            info = sys.exc_info()
        made = [("sweep failed", (), info)] * count
    else:
        message, args = CASES[case]
        made = [(message, args, None)] * count
    return [
        logging.LogRecord("worker.scheduler", logging.INFO, __file__, 1, m, a, e)
        for m, a, e in made
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=20000)
    count = parser.parse_args().lines
    print(f"{count} lines each; microseconds per line")
    for routes in (False, True):
        if routes:
            from pbem.bootstrap import build
            from pbem.config import load_settings
            from pbem.web.app import create_app

            folder = tempfile.mkdtemp()
            env = {"PBEM_INSTANCE_DIR": folder}
            create_app(build(load_settings(env, secret_key="bench", dev=True)))
        for log_format in logs.FORMATS:
            for case in ("plain", "secrets", "traceback"):
                handler = logs.handler(log_format, io.StringIO())
                records = _records(case, count)
                start = time.perf_counter()
                with logs.context(request_id="r-1", game_id="abcdefghijklmnop"):
                    for record in records:
                        handler.handle(record)
                each = (time.perf_counter() - start) / count * 1e6
                where = "web app's routes" if routes else "own patterns"
                print(f"  {log_format:4}  {case:9}  {where:16}  {each:7.1f}")


if __name__ == "__main__":
    main()
