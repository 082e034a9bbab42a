"""Reading `Authorization: Bearer ...`: one reading for every view that takes a
secret or a seat token there (the API, the admin's exemption from the rate limits,
the inbound webhook), so they never disagree about who is asking."""

from __future__ import annotations

import hmac

from flask import request


def bearer() -> str | None:
    """The request's bearer token (the scheme in any case), or None."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return (value.strip() or None) if scheme.lower() == "bearer" else None


def bearer_is(secret: str) -> bool:
    """Whether the request's bearer token is `secret`; never for an unset secret."""
    given = bearer()
    if not secret or given is None:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())
