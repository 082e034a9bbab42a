"""No secret in a log line: the seat token of a personal link (/g/ID/TOKEN), bearer
keys and cookies are blanked in werkzeug's request log (`pbem web`, `pbem dev`) and in
gunicorn's access log (config/gunicorn.conf.py names GunicornLogger)."""

from __future__ import annotations

import logging
import re
from typing import Any

from gunicorn.glogging import Logger

# The words after /g/ID/ that are pages, not tokens.
PAGES = frozenset({"watch", "history", "play", "undo", "mail", "vacation", "forget"})
_LINK = re.compile(r"(/g/[^/\s?#\"]*/)([^/\s?#\"]+)")
_SECRETS = frozenset({"{authorization}i", "{cookie}i", "{http_authorization}e", "{http_cookie}e"})
HIDDEN = "[hidden]"


def redact(text: str) -> str:
    """`text` with the token of every personal link in it hidden."""
    return _LINK.sub(lambda m: m[0] if m[2] in PAGES else m[1] + HIDDEN, text)


class RedactingFilter(logging.Filter):
    """Rewrites each record's message with its secrets hidden."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = redact(message)
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True


def hide_secrets_in_request_log() -> None:
    """Install the filter on werkzeug's request log (once)."""
    logger = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())


class GunicornLogger(Logger):
    """gunicorn's logger, with the secrets of each access log line hidden whatever
    access_log_format names."""

    def atoms(self, resp: Any, req: Any, environ: dict, request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        for name, value in atoms.items():
            if name in _SECRETS:
                atoms[name] = HIDDEN
            elif isinstance(value, str):
                atoms[name] = redact(value)
        return atoms
