"""Seat tokens: the secret in a player's personal link. A token is an HMAC of the
server's secret key over the game, the seat and a random nonce, so the database keeps
only the nonce and the token's hash, yet the server can put the link in every mail."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


def new_nonce() -> str:
    return secrets.token_hex(16)


def seat_token(key: bytes, game_id: str, seat: int, nonce: str) -> str:
    mac = hmac.new(key, f"seat|{game_id}|{seat}|{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:18]).decode("ascii")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def seat_url(base_url: str, game_id: str, token: str) -> str:
    """A seat's personal link."""
    return f"{base_url.rstrip('/')}/g/{game_id}/{token}"
