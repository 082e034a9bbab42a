"""Telling a seed that hides the deal from one anyone could guess: a seed the server
draws is 192 random bits; a log may bring any text, and a short or patterned seed
lets a spectator find it from its public SHA-256 and so read every secret."""

from __future__ import annotations

import re
from typing import Any

MIN_HEX_DIGITS = 32  # 128 bits
_HEX = re.compile(r"[0-9a-f]+")


def guessable(seed: Any) -> bool:
    """Whether `seed` may have fewer than 128 bits of entropy: anything but at least
    32 hex digits that look drawn at random (no runs, no repeated pattern)."""
    if not isinstance(seed, str):
        return True
    text = seed.lower()
    if len(text) < MIN_HEX_DIGITS or not _HEX.fullmatch(text):
        return True
    pairs = {text[i : i + 2] for i in range(len(text) - 1)}
    # random hex repeats few of its 256 possible pairs; a pattern repeats many
    return len(pairs) < 0.6 * (len(text) - 1) or len(set(text)) < 8
