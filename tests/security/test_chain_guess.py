"""Guessing a hidden thing from the public head hashes: a spectator who polls the
game (and so sees the head hash after each event, seq by seq) and reads everything
a spectator is shown tries each candidate of a move an undo took back after it drew
a tile (told without its words), and of a seat's private language, and hashes them
as the chain's rule would.

On a version 1 chain (every game made before version 2) the guess is confirmed:
a known and documented limitation, which cannot be fixed without rewriting the
chain. On a version 2 chain (every game made now) each event's hash commits to a
salt the spectator never receives, and no candidate confirms anything."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pbem.events import event_hash, timestamp
from pbem.i18n import LANGUAGES

from support import SHORT, token

# The microseconds before a poll an event may have happened at: a poll a second
# would need a million, a few seconds of hashing; the test's clock stands still.
WINDOW = 2000


class Spectator:
    """What a spectator records: the head (seq, hash) at each poll, and the time
    each poll was made."""

    def __init__(self, service: Any, game_id: str, clock: Any) -> None:
        self.service, self.game_id, self.clock = service, game_id, clock
        self.heads: list[tuple[int, str, Any]] = []
        self.poll()

    def poll(self) -> tuple[int, str]:
        doc = self.service.state_at(self.game_id)  # the spectator's answer, head hash too
        self.heads.append((doc["seq"], doc["head_hash"], self.clock()))
        return doc["seq"], doc["head_hash"]

    def step(self, seq: int) -> tuple[str, str, Any]:
        """The head hashes before and at `seq` (seen by consecutive polls), and when
        the poll that saw `seq` was made."""
        hashes = {s: (h, at) for s, h, at in self.heads}
        return hashes[seq - 1][0], hashes[seq][0], hashes[seq][1]


def guess_the_move(spectator: Spectator, candidates: list[dict[str, Any]]) -> dict | None:
    """Ann's move that an undo took back, told to the spectator without its words:
    each of `candidates` (the legal actions of the position before it, which the
    spectator is shown) at each microsecond of the WINDOW before the poll that saw it."""
    game_id, service = spectator.game_id, spectator.service
    (seq,) = [h.seq for h in service.history(game_id, None) if "taken back since" in h.text]
    assert "payload" not in service.chain(game_id, None)["events"][seq - 1]
    before, after, polled = spectator.step(seq)
    for micro in range(WINDOW):
        at = timestamp(polled - timedelta(microseconds=micro))
        for action in candidates:
            payload = {"seat": 1, "action": action, "v": 2}
            if event_hash(before, seq, "ActionTaken", payload, "seat:1", at) == after:
                return action
    return None


def guess_the_language(spectator: Spectator, seat: int) -> str | None:
    """A seat's private language: a seq the spectator is told nothing of, each
    language tried at each microsecond of the WINDOW before the poll that saw it."""
    told = {h.seq for h in spectator.service.history(spectator.game_id, None)}
    for seq, _, _ in spectator.heads:
        if seq in told or seq <= 1:
            continue
        before, after, polled = spectator.step(seq)
        for micro in range(WINDOW):
            at = timestamp(polled - timedelta(microseconds=micro))
            for language in LANGUAGES:
                payload = {"seat": seat, "language": language, "v": 1}
                if event_hash(before, seq, "LanguageChosen", payload, f"seat:{seat}", at) == after:
                    return language
    return None


def _watched_game(service: Any, clock: Any, **chain: int) -> tuple[Spectator, list[Any]]:
    """A public game that a spectator polls after each event: Ann takes a tile as
    money (a tile is drawn into the Dispenser), takes it back with Ben's consent
    (the drawn tile goes back into the supply), and Ben chooses German for his
    mails. Also the candidates of Ann's move: her legal actions before it."""
    created = service.create_game(
        [_player("Ann"), _player("Ben")], {"public": True}, SHORT, **chain
    )
    game_id = created.game_id
    spectator = Spectator(service, game_id, clock)
    candidates = [a["action"] for a in service.turn_options(game_id, 1)]
    for step in (
        lambda: service.submit_action(game_id, token(created, 1), "money L"),
        lambda: service.undo(game_id, token(created, 1)),
        lambda: service.answer_undo(game_id, token(created, 2), True),
        lambda: service.set_language(game_id, token(created, 2), "de"),
    ):
        clock.advance(seconds=3, microseconds=417)
        step()
        spectator.poll()
    return spectator, candidates


def _player(name: str) -> Any:
    from pbem.service import PlayerSpec

    return PlayerSpec(name, f"{name.lower()}@example.com")


def test_a_version_1_chain_still_confirms_a_guess_as_documented(service, clock):
    spectator, candidates = _watched_game(service, clock, chain=1)
    guessed = guess_the_move(spectator, candidates)
    assert guessed is not None and guessed["column"] == "L"
    assert guess_the_language(spectator, 2) == "de"


def test_a_new_games_chain_confirms_no_guess(service, clock):
    spectator, candidates = _watched_game(service, clock)  # made now: version 2
    assert guess_the_move(spectator, candidates) is None
    assert guess_the_language(spectator, 2) is None
