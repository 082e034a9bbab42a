"""The whole game as one frozen value, and `setup` (docs/games/mall.md section 3), which deals
it from a seed or from an explicit supply, commons and secret cards."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base import IllegalAction, SetupError
from .content import Content, load
from .dispenser import Dispenser, fill
from .mall import Mall
from .pieces import derived

RNG = "py-random-v1"


@dataclass(frozen=True)
class PlayerState:
    seat: int
    name: str
    money: int
    secret: str  # the orange condition card, e.g. "O3"
    mall: Mall

    @property
    def statue_built(self) -> bool:
        return self.mall.content.personal_id in self.mall.tile

    @derived
    def snapshot(self) -> dict[str, Any]:
        """The player as a snapshot holds it (snapshot.py), made once: a player who
        did not move is the same object in the next state, so the next snapshot
        holds this same data (to write out, never to change)."""
        mall = self.mall
        return {
            "seat": self.seat,
            "name": self.name,
            "money": self.money,
            "secret": self.secret,
            "tiles": mall.tile_rows,
            "customers": [[c.id, c.want, c.on, c.satisfied] for c in mall.customers],
        }


@dataclass(frozen=True)
class State:
    content: Content = field(compare=False, repr=False)
    players: tuple[PlayerState, ...]
    dispenser: Dispenser
    supply: tuple[str, ...]  # hidden: draw order of the tiles not yet in the Dispenser
    bank: int
    commons: tuple[str, ...]  # common attractions in play, as given or drawn
    turn: int | None  # seat to move; None once the game has ended
    round: int
    end_triggered: bool
    notes: tuple[str, ...] = ()  # element tiles taken as money, in order
    seed: str | None = field(default=None, repr=False)  # hidden until the end
    seed_sha256: str | None = None
    rng: str = RNG

    @property
    def finished(self) -> bool:
        return self.turn is None

    def player(self, seat: int) -> PlayerState:
        return self.players[seat - 1]

    @property
    def seat_to_move(self) -> int:
        """The seat whose turn it is; asked only of a game still in play."""
        if self.turn is None:
            raise IllegalAction("the game is over")
        return self.turn

    @derived
    def built_by(self) -> dict[str, int]:
        """Seat that built each common attraction built so far."""
        return {
            tile_id: p.seat
            for p in self.players
            for tile_id in p.mall.attraction_ids
            if tile_id in self.commons
        }

    @derived
    def bay_owner(self) -> dict[str, int]:
        return {t.id: p.seat for p in self.players for t in p.mall.bays}

    def slot_tile(self, column: int, row: int) -> str | None:
        return self.dispenser[column][row - 1]


def seed_hash(seed: str) -> str:
    """The public SHA-256 of a seed (docs/games/mall.md section 3)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def setup(
    players: Sequence[str],
    *,
    seed: str | int | None = None,
    supply: Sequence[str] | None = None,
    commons: Sequence[str] | None = None,
    secrets: Mapping[int, str] | Mapping[str, str] | None = None,
    content: Content | None = None,
    rng: str = RNG,
) -> State:
    """Deal a new game. Each part not given explicitly is drawn from the seed, in the
    order of docs/games/mall.md section 3; a given part replaces its draw (nothing is drawn
    for it). Without a seed every part must be given."""
    content = content or load()
    count = len(players)
    if not content.min_players <= count <= content.max_players:
        raise SetupError(
            f"the game takes {content.min_players} to {content.max_players} players, not {count}"
        )
    if rng != RNG:
        raise SetupError(f"unknown random generator {rng!r}; this engine knows {RNG!r}")
    if isinstance(seed, bool) or not (seed is None or isinstance(seed, str | int)):
        raise SetupError("the seed must be a string")
    seed = None if seed is None else str(seed)
    if seed is None and (supply is None or commons is None or secrets is None):
        raise SetupError("without a seed, the supply, the commons and the secrets must be given")
    # Only parts left out are drawn, and leaving one out needs a seed (checked above).
    draw = random.Random(seed)

    if supply is None:
        tiles = content.tiles_for(count)
        draw.shuffle(tiles)
    else:
        tiles = _checked_supply(content, supply)
    if commons is None:
        in_play = []
        for colour, take in (("purple", content.purple_in_play), ("pink", content.pink_in_play)):
            pool = list(content.commons_of_colour(colour))
            draw.shuffle(pool)
            in_play += pool[: take[count]]
    else:
        in_play = _checked_commons(content, commons)
    if secrets is None:
        cards = list(content.cards)
        draw.shuffle(cards)
        dealt = cards[:count]
    else:
        dealt = _checked_secrets(content, secrets, count)

    slots = content.rows * len(content.columns)
    seats = tuple(
        PlayerState(
            seat, str(name), content.start_money, dealt[seat - 1], Mall.start(content, seat)
        )
        for seat, name in enumerate(players, start=1)
    )
    return State(
        content=content,
        players=seats,
        dispenser=fill(content.columns, content.rows, tuple(tiles[:slots])),
        supply=tuple(tiles[slots:]),
        bank=content.start_bank,
        commons=tuple(in_play),
        turn=1,
        round=1,
        end_triggered=len(tiles) <= slots,  # setup itself emptied the supply: trigger A
        seed=seed,
        seed_sha256=None if seed is None else seed_hash(seed),
        rng=rng,
    )


def _checked_supply(content: Content, supply: Sequence[str]) -> list[str]:
    tiles = [str(t).upper() for t in supply]
    unknown = [t for t in tiles if t not in content.elements]
    if unknown:
        raise SetupError(f"the supply names unknown tiles: {', '.join(unknown)}")
    repeated = sorted({t for t in tiles if tiles.count(t) > 1})
    if repeated:
        raise SetupError(f"the supply names some tiles twice: {', '.join(repeated)}")
    return tiles


def _checked_commons(content: Content, commons: Sequence[str]) -> list[str]:
    chosen = [str(c).lower() for c in commons]
    unknown = [c for c in chosen if c not in content.commons]
    if unknown:
        raise SetupError(f"unknown common attractions: {', '.join(unknown)}")
    if len(set(chosen)) != len(chosen):
        raise SetupError("the commons name an attraction twice")
    return chosen


def _checked_secrets(
    content: Content, secrets: Mapping[int, str] | Mapping[str, str], count: int
) -> list[str]:
    by_seat: dict[int, str] = {}
    for seat, card in secrets.items():
        if not str(seat).isdigit() or not 1 <= int(seat) <= count:
            raise SetupError(f"secrets name seat {seat!r}; seats are 1 to {count}")
        if str(card).upper() not in content.cards:
            raise SetupError(
                f"seat {seat}'s secret {card!r} is not a card ({', '.join(content.cards)})"
            )
        by_seat[int(seat)] = str(card).upper()
    missing = [str(s) for s in range(1, count + 1) if s not in by_seat]
    if missing:
        raise SetupError(f"the secrets give no card for seat {', '.join(missing)}")
    return [by_seat[s] for s in range(1, count + 1)]
