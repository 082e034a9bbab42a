"""No secret in a log line: the secret part of every address (a seat's personal link,
a sign-in link, a feed, a new game's key), secret query parameters, bearer keys and
cookies are blanked in werkzeug's request log (`pbem web`, `pbem dev`) and in
gunicorn's access log (config/gunicorn.conf.py names GunicornLogger).

Which part of an address is secret is read from the app's own URL rules: a route's
variables are either SECRET or SHOWN (the one list below), and the router itself
says which rule a logged path took, so only the secret variables are hidden and the
rest of the line stays readable. A variable in neither list is hidden (and fails
the test that walks every rule)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, unquote_plus

from gunicorn.glogging import Logger
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.routing.exceptions import RoutingException

from pbem import logs

# The names of the route variables and query parameters that carry a secret: a seat
# token or a sign-in link's token (`token`), a deadline feed's id (`feed`), a new-game
# form's key (`key`), a mailed link that acts once (`link`), the signature of a feed
# entry's link to its seat (`signature`).
SECRET = frozenset({"token", "feed", "key", "link", "signature"})
# The route variables that are shown in the logs as they are (`cid`: a picture's
# Content-ID in a mail the development catcher caught).
SHOWN = frozenset(
    {"game_id", "game", "code", "number", "filename", "seat", "slug", "table_id", "cid"}
)
HIDDEN = "[hidden]"

_SECRET_ATOMS = frozenset(
    {"{authorization}i", "{cookie}i", "{http_authorization}e", "{http_cookie}e"}
)
_QUERY_ATOMS = frozenset({"q", "{query_string}e"})
# An address in a line: at its start or after a space, quote, bracket or "=", a path
# or an http(s) URL, with its query; a date such as 01/Dec/2026 is none.
_ADDRESS = re.compile(
    r"(?<![^\s\"'(<=,;])(?P<site>https?://[^/\s\"]*)?(?P<path>/[^\s\"?#]*)(?:\?(?P<query>[^\s\"#]*))?",
    re.ASCII,  # white space is ASCII's: a Latin-1 byte 0x85 inside a path is no break
)
_METHOD = re.compile(r"([A-Z]{3,10}) $")
_VARIABLE = re.compile(r"<(?:(?P<converter>\w+)(?:\([^)]*\))?:)?(?P<name>\w+)>")


def _secret(name: str) -> bool:
    return name not in SHOWN


class Routes:
    """The app's URL rules, as the redaction reads them: a logged path is routed as
    the app routes it, and the variables of its rule that are secret are hidden. A
    path the app would not route (404, 405, a redirect) is read loosely: whatever
    stands where some rule has a secret is hidden."""

    def __init__(self, url_map: Map) -> None:
        self._adapter = url_map.bind("localhost")
        secret_rules = [rule for rule in url_map.iter_rules() if any(map(_secret, rule.arguments))]
        self._exact = {rule.rule: _exact_pattern(rule.rule) for rule in secret_rules}
        self._loose = list(dict.fromkeys(_loose_pattern(rule.rule) for rule in secret_rules))

    def path(self, path: str, method: str) -> str:
        """`path` (as logged: raw or decoded) with its secret parts hidden."""
        try:
            rule, _ = self._adapter.match(unquote(path), method, return_rule=True)
        except (HTTPException, RoutingException):
            return self._loosely(path)
        pattern = self._exact.get(rule.rule) if isinstance(rule, Rule) else None
        if pattern is None:
            return path  # a rule with nothing secret
        found = pattern.fullmatch(path)
        if found is None:  # spelled so the rule cannot be traced in it: read loosely
            return self._loosely(path)
        return _hide(path, _spans(found))

    def _loosely(self, path: str) -> str:
        spans = [span for p in self._loose if (found := p.match(path)) for span in _spans(found)]
        return _hide(path, spans)


def _parts(rule: str) -> Iterable[tuple[str, str | None, str | None]]:
    """(static text, converter, variable) pieces of a rule, in order."""
    at = 0
    for found in _VARIABLE.finditer(rule):
        yield rule[at : found.start()], None, None
        yield "", found["converter"] or "default", found["name"]
        at = found.end()
    yield rule[at:], None, None


def _variable(converter: str | None, name: str, secret: bool, index: int) -> str:
    if secret:
        return f"(?P<s{index}>[^/]+)"
    return ".+?" if converter == "path" else "[^/]+?"


def _exact_pattern(rule: str) -> re.Pattern[str]:
    pieces = []
    for index, (static, converter, name) in enumerate(_parts(rule)):
        if name is None:
            pieces.append(re.escape(static))
        else:
            pieces.append(_variable(converter, name, _secret(name), index))
    return re.compile("".join(pieces))


def _loose_pattern(rule: str) -> re.Pattern[str]:
    """The rule up to its last secret variable, which takes the rest of its path
    segment; repeated slashes count as one, as the router merges them."""
    parts = list(_parts(rule))
    last = max(i for i, (_, _, name) in enumerate(parts) if name is not None and _secret(name))
    pieces = []
    for index, (static, converter, name) in enumerate(parts[: last + 1]):
        if name is None:
            pieces.append("/+".join(re.escape(s) for s in static.split("/")))
        else:
            pieces.append(_variable(converter, name, _secret(name), index))
    return re.compile("".join(pieces) + "(?=/|$)")


def _spans(found: re.Match[str]) -> list[tuple[int, int]]:
    return [found.span(g) for g in found.groupdict() if found[g] is not None]


def _hide(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(_merged(spans), reverse=True):
        text = text[:start] + HIDDEN + text[end:]
    return text


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_routes: Routes | None = None


def learn(url_map: Map) -> None:
    """Read the secrets of the served app's rules (the app factory calls this)."""
    global _routes
    _routes = Routes(url_map)


def redact_path(path: str, method: str = "GET") -> str:
    """A path with its secret parts hidden; before any app is known, all of it."""
    return _routes.path(path, method) if _routes is not None else "/" + HIDDEN


def redact_query(query: str) -> str:
    """A query string with the value of every SECRET parameter hidden, and the
    secrets of any address of this site given as a value (`?next=/g/ID/TOKEN`)."""
    pairs = []
    for pair in query.split("&"):
        name, equals, value = pair.partition("=")
        if unquote_plus(name) in SECRET and value:
            value = HIDDEN
        elif (plain := unquote_plus(value)) != (hidden := redact(plain)):
            value = hidden
        pairs.append(name + equals + value)
    return "&".join(pairs)


def redact(text: str, method: str | None = None) -> str:
    """`text` (a log line, a header, a path) with the secrets of every address in it
    hidden. An address right after a method word ("GET /g/...") is routed with that
    method, else with `method` or GET."""

    def hidden(found: re.Match[str]) -> str:
        said = _METHOD.search(text, max(0, found.start() - 11), found.start())
        how = said[1] if said and not found["site"] else method or "GET"
        query = found["query"]
        shown = (found["site"] or "") + redact_path(found["path"], how)
        return shown if query is None else f"{shown}?{redact_query(query)}"

    return _ADDRESS.sub(hidden, text)


class RedactingFilter(logging.Filter):
    """Rewrites each record's message with its secrets hidden; a message that cannot
    be read is not logged as it was."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
            hidden = redact(message)
        except Exception:  # a log line must never leak by failing to be redacted
            record.msg, record.args = "[a line that could not be redacted]", ()
            return True
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True


def hide_secrets_in_request_log(url_map: Map) -> None:
    """Hide the secrets of `url_map`'s routes in werkzeug's request log (the filter
    is installed once) and in gunicorn's access log."""
    learn(url_map)
    logs.add_redactor(redact)  # every line of the process, not only the request log
    logger = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())


class GunicornLogger(Logger):
    """gunicorn's logger, with the secrets of each access log line hidden whatever
    access_log_format names; its error and access lines, and every line of the app,
    written as the settings' log_format says (text or JSON, see pbem.logs), each
    access line with the request id the app answered with."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        from pbem.config import ConfigError, load_settings

        try:
            settings = load_settings()
            log_format, level = settings.log_format, settings.log_level
        except ConfigError:  # the app refuses to start and says why
            log_format, level = "text", "INFO"
        logs.configure("web", log_format, level)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(logs.formatter(log_format))
                if not any(isinstance(f, logs.Redacting) for f in handler.filters):
                    # an access line's addresses are hidden already, by its method
                    handler.addFilter(logs.Redacting(added=log is not self.access_log))

    def access(self, resp: Any, req: Any, environ: dict, request_time: Any) -> None:
        said = dict(getattr(resp, "headers", None) or [])
        with logs.context(request_id=said.get("X-Request-ID")):
            super().access(resp, req, environ, request_time)

    def atoms(self, resp: Any, req: Any, environ: dict, request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        method = str(environ.get("REQUEST_METHOD", "GET"))
        for name, value in atoms.items():
            if name in _SECRET_ATOMS:
                atoms[name] = HIDDEN
            elif isinstance(value, str) and name in _QUERY_ATOMS:
                atoms[name] = redact_query(value)
            elif isinstance(value, str):
                atoms[name] = redact(value, method)
        return atoms
