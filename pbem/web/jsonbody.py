"""Request bodies in JSON, read once and within bounds on every route: a body that
says it is JSON is parsed before any view runs (and before any token is looked up),
nested at most DEPTH deep, with no NUL and no NaN or Infinity, or the request is
refused with 400 saying why. Views read it with `request.get_json()` as usual."""

from __future__ import annotations

import json
from typing import Any

from flask import Request, request

from pbem.service import BadRequest

DEPTH = 16  # the deepest a request body nests (a game's setup needs 4)
READ_METHODS = ("GET", "HEAD", "OPTIONS")


def parse(data: str | bytes) -> Any:
    """The JSON value in `data`; ValueError saying why when it is not JSON within
    bounds."""
    try:
        value = json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"it nests deeper than {DEPTH} levels") from None
    except json.JSONDecodeError:
        raise ValueError("it is not JSON") from None
    _check(value)
    return value


class _Bounded:
    """What a request reads its JSON body with."""

    loads = staticmethod(parse)


class BoundedRequest(Request):
    """A request whose JSON body is read by `parse`, and refused with the reason
    when it cannot be read, in the site's answer shape (Flask's own says only "Bad
    Request"). Flask hands each request the app's JSON to read with; a request keeps
    this one (the app's stays as it is for the session cookie and the answers)."""

    @property
    def json_module(self) -> Any:
        return _Bounded

    @json_module.setter
    def json_module(self, given: Any) -> None:
        pass

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:
            raise BadRequest("the request body must be JSON (Content-Type: application/json)")
        raise BadRequest(f"the request body cannot be read: {e}")


def check_json_body() -> None:
    """before_request: a body sent as JSON is JSON within bounds, or 400 here. The
    parsed value is kept for the view."""
    if request.method in READ_METHODS or not request.is_json:
        return
    if request.get_data(cache=True):
        request.get_json()


def _no_constant(name: str) -> None:
    # NaN and Infinity are Python's, not JSON's
    raise ValueError(f"it holds {name}, which is not JSON")


def _check(body: Any) -> None:
    level = [body]
    for _ in range(DEPTH):
        inner: list[Any] = []
        for value in level:
            if isinstance(value, dict):
                if any("\x00" in key for key in value):
                    raise ValueError("it holds a NUL character")
                inner.extend(value.values())
            elif isinstance(value, list):
                inner.extend(value)
            elif isinstance(value, str) and "\x00" in value:
                raise ValueError("it holds a NUL character")
        if not inner:
            return
        level = inner
    raise ValueError(f"it nests deeper than {DEPTH} levels")
