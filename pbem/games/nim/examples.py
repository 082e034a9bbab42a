"""Nim's examples: games to show and test it with (see `Plugin.examples`)."""

from __future__ import annotations

from ..base import Example

EXAMPLES = (
    Example(
        "two players, played to the end",
        ("Ann", "Ben"),
        {"pile": 6},
        (
            (1, "take 1"),
            (2, "take 1"),
            (1, "take 2"),
            (2, "take 2"),
        ),
        ends=True,
    ),
    Example(
        "three players, under way",
        ("Ann", "Ben", "Cy"),
        {"pile": 21},
        (
            (1, "take 3"),
            (2, "take 1"),
            (3, "take 2"),
            (1, "take 1"),
        ),
    ),
)
