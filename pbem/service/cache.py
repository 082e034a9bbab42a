"""The state cache: the rules state at each game's head, kept between commands so
that a move need not load it again. Least recently used games make room; an entry
counts only while it matches the head (seq and hash) a transaction reads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class StateCache:
    """Game id -> (head seq, head hash, state), for at most `size` games (none when
    `size` is 0). Safe to share between threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._states: OrderedDict[str, tuple[int, str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str, seq: int, digest: str) -> Any | None:
        """The state kept for the game, if it is the state at this head; else None."""
        with self._lock:
            cached = self._states.get(game_id)
            if cached is None or cached[:2] != (seq, digest):
                return None
            self._states.move_to_end(game_id)
            return cached[2]

    def remember(self, game_id: str, seq: int, digest: str, state: Any) -> None:
        """Keep the state at a head that was committed."""
        if self._size <= 0:
            return
        with self._lock:
            self._states[game_id] = (seq, digest, state)
            self._states.move_to_end(game_id)
            while len(self._states) > self._size:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()
