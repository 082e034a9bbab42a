"""Diplomacy as a game package: its rules (`rules.py`) over the `diplomacy` package's
adjudication, the map drawn by the package's renderer (`svg.py`), and a log replayed
through the package itself (`replay.py`). Not registered yet: pages and mails come
later."""

from __future__ import annotations

from .actions import Orders, Resolve
from .rules import GAME, Diplomacy, possible_orders
from .state import DipState

__all__ = ["GAME", "DipState", "Diplomacy", "Orders", "Resolve", "possible_orders"]
