"""Logging for every process: the root logger configured once, as text lines (time,
level, logger, message) or one JSON object per line; the context of the work in
hand (a request id, a game, a seat, a seq) carried in context variables onto every
line; and no secret in any line: seat tokens in addresses, passwords in URLs and
the signatures of reply addresses are blanked before a line is written.

Imports nothing of the server: the web app adds its own route-aware redaction with
`add_redactor` (which part of an address is secret is read from its routes)."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

from pythonjsonlogger.json import JsonFormatter

FORMATS = ("text", "json")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# What a line may carry besides its time, level, logger and message: the context of
# the work in hand, and the kind of process ("web", "worker", "scheduler", ...).
CONTEXT = ("request_id", "game_id", "seat", "seq")
HIDDEN = "[hidden]"
# Libraries that write, below WARNING, what they connect to: urllib3 logs every
# connection's host and every request's path at DEBUG, and a push endpoint's path is
# the browser's capability to be sent notices. They stay quiet at any log level.
QUIET = ("urllib3",)

_context: ContextVar[dict[str, Any] | None] = ContextVar("pbem_log_context", default=None)
_kind = ""
_configured: tuple[str, str, str] | None = None
_redactors: list[Callable[[str], str]] = []

# A reply address keeps its game and seat, never its seq and signature (which,
# together, let anyone who reads the line move for that seat).
_REPLY = re.compile(r"(?i)\b(play\+[a-z0-9]+\.\d+)\.[^\s@<>\"']*@")
# A password in a URL: scheme://user:password@host.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@\"']*):[^\s@/\"']*@")
# A credential said in a header or a query: Bearer/Basic keys, token=..., ...
_AUTH = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+")
_QUERY = re.compile(r"(?i)([?&;](?:token|feed|key|link|password|secret)=)[^&\s\"'#]+")
# The secret segments of this site's addresses, for processes that have no routes
# to read them from (a worker, the scheduler): a seat's personal link, a sign-in or
# sign-out link, a new game's key, an open table's join and management links, a
# deadline feed.
_SEAT_LINK = re.compile(
    r"(/g/[^/\s?#\"']+/)(?!(?:chat|watch|live|play|undo|mail-language|mail|vacation|forget"
    r"|history|log\.json|switch|push|resign|rematch)(?:[/?#\s\"']|$))[^/\s?#\"']+"
)
_LINKS = re.compile(
    r"(/(?:my-games/sign-in|my-games/sign-out-everywhere|new/created|open/join"
    r"|open/[^/\s?#\"']+/manage)/)[^/\s?#\"']+"
)
_FEED = re.compile(r"/[A-Za-z0-9_-]{32}(\.(?:atom|ics))\b")
# a feed entry's link to its seat: the feed's id and the link's signature
_FEED_SEAT = re.compile(r"/[A-Za-z0-9_-]{32}(/seat/[^/\s?#\"']+/[0-9]+/)[^/\s?#\"']+")


def redact(text: str, added: bool = True) -> str:
    """`text` with every secret this module knows of, and (unless not `added`)
    every secret the added redactors know of, hidden."""
    text = _REPLY.sub(r"\1…@", text)
    text = _USERINFO.sub(rf"\1:{HIDDEN}@", text)
    text = _AUTH.sub(rf"\1 {HIDDEN}", text)
    text = _QUERY.sub(rf"\1{HIDDEN}", text)
    for redactor in _redactors if added else ():
        text = redactor(text)
    text = _SEAT_LINK.sub(rf"\1{HIDDEN}", text)
    text = _LINKS.sub(rf"\1{HIDDEN}", text)
    text = _FEED_SEAT.sub(rf"/{HIDDEN}\1{HIDDEN}", text)
    return _FEED.sub(rf"/{HIDDEN}\1", text)


def add_redactor(redactor: Callable[[str], str]) -> None:
    """Hide what `redactor` hides in every line too (once, however often added)."""
    if redactor not in _redactors:
        _redactors.append(redactor)


# -- the context of a line --------------------------------------------------------


def current() -> dict[str, Any]:
    """The context the lines logged here carry now."""
    return dict(_context.get() or {})


def bind(**fields: Any) -> None:
    """Add `fields` (request_id, game_id, seat, seq) to the context of the lines
    logged from here on, in this thread or task; None removes a field."""
    now = current()
    for name, value in fields.items():
        if name not in CONTEXT:
            raise ValueError(f"not a field of the log context: {name}")
        if value is None:
            now.pop(name, None)
        else:
            now[name] = value
    _context.set(now)


def clear() -> None:
    """The lines logged from here on carry no context (a request or a task ended)."""
    _context.set(None)


@contextlib.contextmanager
def context(**fields: Any) -> Iterator[None]:
    """The lines logged inside carry `fields`; the context before comes back after."""
    token = _context.set(current())
    try:
        bind(**fields)
        yield
    finally:
        _context.reset(token)


# -- filters and formatters -------------------------------------------------------


class Redacting(logging.Filter):
    """Hides the secrets of each record's message and traceback, and puts the
    context and the process's kind on it. A message that cannot be read is not
    written as it was. Without `added`, only this module's own patterns: for lines
    whose addresses were already hidden knowing more (an access log line, knowing
    each request's method)."""

    def __init__(self, added: bool = True) -> None:
        super().__init__()
        self.added = added

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
            hidden = redact(message, self.added)
        except Exception:  # a line must never leak by failing to be redacted
            record.msg, record.args = "[a line that could not be redacted]", ()
        else:
            if hidden != message:
                record.msg, record.args = hidden, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        for name, value in current().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        if _kind and not hasattr(record, "process_kind"):
            record.process_kind = _kind
        return True


def _time(record: logging.LogRecord) -> str:
    at = datetime.fromtimestamp(record.created, UTC)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextLines(logging.Formatter):
    """time, level, logger, [context,] message; a traceback on the lines after."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return _time(record)

    def formatMessage(self, record: logging.LogRecord) -> str:
        said = " ".join(
            f"{name}={getattr(record, name)}" for name in CONTEXT if hasattr(record, name)
        )
        line = f"{record.asctime} {record.levelname} {record.name}"
        return f"{line} [{said}] {record.message}" if said else f"{line} {record.message}"


class JsonLines(JsonFormatter):
    """One JSON object per line: time (ISO, UTC), level, logger, message, and when
    known the context, the process's kind and the traceback (`exc`, one string)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__(*args, **kwargs)

    def formatException(self, ei: Any) -> str:
        said = super().formatException(ei)
        return redact(said if isinstance(said, str) else "\n".join(said))

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data["time"] = _time(record)
        log_data["level"] = record.levelname
        log_data["logger"] = record.name
        log_data["message"] = record.message
        for name in CONTEXT:
            if hasattr(record, name):
                log_data[name] = getattr(record, name)
        kind = getattr(record, "process_kind", None) or _kind
        if kind:
            log_data["process"] = kind
        if message_dict.get("exc_info"):
            log_data["exc"] = message_dict["exc_info"]
        if message_dict.get("stack_info"):
            log_data["stack"] = message_dict["stack_info"]


def formatter(log_format: str) -> logging.Formatter:
    """The formatter of `log_format` ("text" or "json")."""
    if log_format == "json":
        return JsonLines()
    return TextLines("%(asctime)s %(levelname)s %(name)s %(message)s")


def handler(log_format: str, stream: TextIO | None = None) -> logging.Handler:
    """A handler writing to `stream` (stderr) in `log_format`, secrets hidden."""
    made = logging.StreamHandler(stream or sys.stderr)
    made.setFormatter(formatter(log_format))
    made.addFilter(Redacting())
    made.set_name("pbem")
    return made


def check(log_format: str, log_level: str) -> tuple[str, str]:
    """The format and level, checked: ValueError naming the setting otherwise."""
    log_format, log_level = log_format.strip().lower(), log_level.strip().upper()
    if log_format not in FORMATS:
        raise ValueError(f"log_format: one of {', '.join(FORMATS)}, not {log_format[:40]!r}")
    if log_level not in LEVELS:
        raise ValueError(f"log_level: one of {', '.join(LEVELS)}, not {log_level[:40]!r}")
    return log_format, log_level


def configure(kind: str, log_format: str = "text", log_level: str = "INFO") -> logging.Handler:
    """Log every line of this process (of `kind`: web, worker, scheduler, ...) to
    stderr in `log_format` from `log_level` up: the root logger gets the one
    handler, and every logger that propagates (Flask's, Celery's, the server's)
    writes through it. Once per process: a second call with the same values changes
    nothing, with others replaces the handler."""
    global _kind, _configured
    log_format, log_level = check(log_format, log_level)
    root = logging.getLogger()
    ours = [h for h in root.handlers if h.get_name() == "pbem"]
    if _configured == (kind, log_format, log_level) and ours:
        return ours[0]
    _kind = kind
    for old in root.handlers[:]:
        if old.get_name() == "pbem" or type(old) is logging.StreamHandler:
            root.removeHandler(old)
    made = handler(log_format)
    root.addHandler(made)
    root.setLevel(log_level)
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.captureWarnings(True)
    _configured = (kind, log_format, log_level)
    return made


def kind() -> str:
    """The kind of this process, as configured ("" before)."""
    return _kind
