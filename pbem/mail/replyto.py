"""Signed reply addresses: a game mail's Reply-To names the game, the seat and the seq
the mail was written at, signed with the server's secret and bound to the seat's
current holder (a hash of its token), so that a reply can be trusted to be about
that seat without a password, a forged or altered address is refused, and replacing
a seat's holder makes every older address dead. Everything is lower case: some mail
servers lower-case addresses."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass

LOCAL = "play"
SIGNATURE_BYTES = 15  # 120 bits, 24 base32 characters: never guessed
_ADDRESS = re.compile(
    rf"{LOCAL}\+(?P<game>[a-z2-7]{{16}})\.(?P<seat>\d{{1,3}})\.(?P<seq>\d{{1,12}})"
    rf"\.(?P<sig>[a-z2-7]{{{SIGNATURE_BYTES * 8 // 5}}})@(?P<domain>[^\s@<>]+)"
)


class Forged(ValueError):
    """A reply address this server did not sign (or not for what it says)."""


@dataclass(frozen=True)
class ReplyTo:
    game_id: str
    seat: int
    seq: int


def _signature(key: bytes, game_id: str, seat: int, seq: int, holder: str) -> str:
    held = hashlib.sha256(holder.encode("utf-8")).hexdigest()
    text = f"reply|{game_id}|{seat}|{seq}|{held}"
    mac = hmac.new(key, text.encode(), hashlib.sha256).digest()
    return base64.b32encode(mac[:SIGNATURE_BYTES]).decode("ascii").lower()


def reply_address(key: bytes, domain: str, game_id: str, seat: int, seq: int, holder: str) -> str:
    """The address a reply about `seat` of `game_id`, written at `seq` for the seat's
    current `holder` (its token), goes to."""
    signature = _signature(key, game_id, seat, seq, holder)
    return f"{LOCAL}+{game_id}.{seat}.{seq}.{signature}@{domain}"


def find(addresses: list[str]) -> str | None:
    """The first of `addresses` that looks like a reply address."""
    for address in addresses:
        if _ADDRESS.fullmatch(address.strip().lower()):
            return address.strip().lower()
    return None


def read(
    key: bytes, domain: str, address: str, holder: Callable[[str, int], str | None]
) -> ReplyTo:
    """What a reply address says; raises Forged unless this server signed it for the
    seat's current holder (`holder(game_id, seat)`: its token, None when it has none)."""
    match = _ADDRESS.fullmatch(address.strip().lower())
    if match is None or match["domain"] != domain.lower():
        raise Forged("this is not a reply address of this server")
    game_id, seat, seq = match["game"], int(match["seat"]), int(match["seq"])
    token = holder(game_id, seat)
    if token is None or not hmac.compare_digest(
        match["sig"], _signature(key, game_id, seat, seq, token)
    ):
        raise Forged(
            "this reply address was not signed by this server, or the seat has changed "
            "hands since; reply to the latest mail of your game"
        )
    return ReplyTo(game_id, seat, seq)
