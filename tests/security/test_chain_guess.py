"""Guessing a hidden thing from the public head hashes: a spectator who polls the
game (and so sees the head hash after each event, seq by seq) and reads everything
a spectator is shown tries each candidate of a word blanked in table talk, and of a
seat's private language, and hashes them as the chain's rule would.

On a version 1 chain (every game made before version 2) the guess is confirmed:
a known and documented limitation, which cannot be fixed without rewriting the
chain. On a version 2 chain (every game made now) each event's hash commits to a
salt the spectator never receives, and no candidate confirms anything."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pbem.events import event_hash, timestamp
from pbem.games.mall.content import load
from pbem.i18n import LANGUAGES

from support import SHORT, token

CARDS = sorted(load().cards)  # the secret cards there are: anyone knows them
HIDDEN = "(hidden)"
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


def guess_the_word(spectator: Spectator) -> str | None:
    """The card a seat named at the table, blanked for the spectator: each card put
    in the blank, hashed with the line's public seq, seat, time and the head before."""
    for line in spectator.service.table_talk(spectator.game_id, None):
        if HIDDEN not in line.text:
            continue
        before, after, _ = spectator.step(line.seq)
        for card in CARDS:
            payload = {"seat": line.seat, "text": line.text.replace(HIDDEN, card), "v": 1}
            actor = f"seat:{line.seat}"
            if event_hash(before, line.seq, "TableTalk", payload, actor, line.at) == after:
                return card
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


def _watched_game(service: Any, clock: Any, **chain: int) -> Spectator:
    """A public game (seat 1's secret card is O3) that a spectator polls after each
    event: Ann names her card at the table, Ben chooses German for his mails."""
    created = service.create_game(
        [_player("Ann"), _player("Ben")], {"public": True}, SHORT, **chain
    )
    spectator = Spectator(service, created.game_id, clock)
    clock.advance(seconds=3, microseconds=417)
    service.say(created.game_id, token(created, 1), "my secret card is O3, shh")
    spectator.poll()
    clock.advance(seconds=5, microseconds=88)
    service.set_language(created.game_id, token(created, 2), "de")
    spectator.poll()
    return spectator


def _player(name: str) -> Any:
    from pbem.service import PlayerSpec

    return PlayerSpec(name, f"{name.lower()}@example.com")


def test_a_version_1_chain_still_confirms_a_guess_as_documented(service, clock):
    spectator = _watched_game(service, clock, chain=1)
    assert [line.text for line in service.table_talk(spectator.game_id, None)] == [
        f"my secret card is {HIDDEN}, shh"
    ]
    assert guess_the_word(spectator) == "O3"
    assert guess_the_language(spectator, 2) == "de"


def test_a_new_games_chain_confirms_no_guess(service, clock):
    spectator = _watched_game(service, clock)  # made now: version 2
    assert [line.text for line in service.table_talk(spectator.game_id, None)] == [
        f"my secret card is {HIDDEN}, shh"
    ]
    assert guess_the_word(spectator) is None
    assert guess_the_language(spectator, 2) is None
