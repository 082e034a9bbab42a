"""Small helpers the store and service tests share."""

from __future__ import annotations

from sqlmodel import select

from pbem.service import Created, PlayerSpec, Service
from pbem.store.tables import Outbox

# A short explicit deal: the Dispenser and a supply of 4, nothing drawn from a seed.
SHORT = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}


def two_players(service: Service, setup: dict | None = None, **options) -> Created:
    return service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        options or None,
        setup if setup is not None else {"seed": "integration"},
    )


def token(created: Created, seat: int) -> str:
    return created.seats[seat - 1].token


def outbox(service: Service, game_id: str) -> list[tuple[int, str, int | None, str]]:
    """(seq, kind, seat, address) of every outbox row of the game, in order."""
    with service.db.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)).all()
        return [(r.seq, r.kind, r.seat, r.to_address) for r in rows]


def play_out(service: Service, created: Created) -> None:
    """Play the game to its end, each seat taking its first legal action."""
    while True:
        state = service.state_at(created.game_id)
        if state["turn"] is None:
            return
        seat = state["turn"]
        action = service.legal(created.game_id, seat)[0]
        service.submit_action(created.game_id, token(created, seat), action, state["seq"])
