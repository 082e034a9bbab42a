"""Signed reply addresses: a turn mail's Reply-To names the game, the seat and the seq
the mail was written at, signed with the server's secret, so that a reply can be
trusted to be about that seat without a password, and a forged or altered address
is refused. Everything is lower case: some mail servers lower-case addresses."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

LOCAL = "play"
_ADDRESS = re.compile(
    rf"{LOCAL}\+(?P<game>[a-z2-7]{{16}})\.(?P<seat>\d+)\.(?P<seq>\d+)\.(?P<sig>[a-z2-7]{{16}})@(?P<domain>\S+)"
)


class Forged(ValueError):
    """A reply address this server did not sign (or not for what it says)."""


@dataclass(frozen=True)
class ReplyTo:
    game_id: str
    seat: int
    seq: int


def _signature(key: bytes, game_id: str, seat: int, seq: int) -> str:
    mac = hmac.new(key, f"reply|{game_id}|{seat}|{seq}".encode(), hashlib.sha256).digest()
    return base64.b32encode(mac[:10]).decode("ascii").lower()


def reply_address(key: bytes, domain: str, game_id: str, seat: int, seq: int) -> str:
    """The address a reply about `seat` of `game_id`, written at `seq`, goes to."""
    signature = _signature(key, game_id, seat, seq)
    return f"{LOCAL}+{game_id}.{seat}.{seq}.{signature}@{domain}"


def find(addresses: list[str]) -> str | None:
    """The first of `addresses` that looks like a reply address."""
    for address in addresses:
        if _ADDRESS.fullmatch(address.strip().lower()):
            return address.strip().lower()
    return None


def read(key: bytes, domain: str, address: str) -> ReplyTo:
    """What a reply address says; raises Forged unless this server signed it."""
    match = _ADDRESS.fullmatch(address.strip().lower())
    if match is None or match["domain"] != domain.lower():
        raise Forged("this is not a reply address of this server")
    game_id, seat, seq = match["game"], int(match["seat"]), int(match["seq"])
    if not hmac.compare_digest(match["sig"], _signature(key, game_id, seat, seq)):
        raise Forged("this reply address was not signed by this server")
    return ReplyTo(game_id, seat, seq)
