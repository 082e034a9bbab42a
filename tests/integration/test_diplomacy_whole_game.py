"""A whole game of Diplomacy by seven people through the game pages and by mail
only: four powers enter by their links and order on their game page (the text box,
the draw vote), three answer their turn mails; each phase every power orders what
its own page or mail shows it may (its possible orders), two years long, and then
every power votes for a draw: the game ends, its page says so, and every player is
mailed the end. Nothing is played through the service's own calls."""

from __future__ import annotations

import random
import re

from sqlmodel import select

from pbem.mail.inbound import Inbound
from pbem.service import PlayerSpec
from pbem.store.tables import Outbox

from support import csrf, signed_reply

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus"]
BY_PAGE = {1, 2, 3, 4}  # the others answer their mails


def by_page(client, game_id: str, orders: list[str], draw: bool, number: int) -> None:
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    seq = re.search(r'name="expected_seq" value="(\d+)"', page)
    assert seq, "the game page has no turn form"
    data = {
        "csrf_token": csrf(client, f"/g/{game_id}"),
        "move": "\n".join(orders),
        "action": "hold",
        "expected_seq": seq[1],
        "key": f"whole-{number}",
    }
    if draw:
        data["line"] = "draw"
    answer = client.post(f"/g/{game_id}/play", data=data)
    said = re.sub(r"<[^>]+>", " ", answer.get_data(as_text=True))
    assert answer.status_code == 302, (orders, re.sub(r"\s+", " ", said)[:1500])


def by_mail(parts, inbound, game_id: str, seat: int, token: str, body: str) -> None:
    sender = f"{NAMES[seat - 1].lower()}@example.com"
    quoted = body + "\n\nOn Monday the judge wrote:\n> Your orders, please.\n"
    handled = inbound.handle(signed_reply(parts, game_id, seat, token, sender, quoted).as_bytes())
    assert handled.status == "accepted", handled


def mails_of(parts, game_id: str, kind: str) -> list[Outbox]:
    with parts.database.read() as s:
        query = select(Outbox).where(Outbox.game_id == game_id, Outbox.kind == kind)
        return list(s.exec(query).all())


def test_seven_people_play_a_whole_game_by_page_and_by_mail(web):
    app, parts = web
    service = parts.service
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES],
        {"public": True, "hours_per_turn": 72},
        None,
        game="diplomacy",
    )
    game_id = created.game_id
    tokens = {s.seat: s.token for s in created.seats}
    inbound = Inbound(service, parts.outbox, parts.settings, service.clock)
    clients = {}
    for seat in BY_PAGE:
        clients[seat] = app.test_client()
        assert clients[seat].get(f"/g/{game_id}/{tokens[seat]}").status_code == 302
    rng, number, phases = random.Random("whole game"), 0, []
    while (doc := service.state_at(game_id))["status"] == "playing":
        year = int(doc["phase"][1:5])
        draw = year >= 1903  # two years of play, then every power votes for a draw
        phases.append(doc["phase"])
        assert doc["waiting"], doc["phase"]
        for seat in doc["waiting"]:
            # what the seat's own page or mail shows it may order
            mine = service.state_at(game_id, seat=seat)
            orders = [rng.choice(choices) for choices in mine["possible"].values() if choices]
            if mine["phase"].endswith("A"):  # builds or disbands: as many as are due
                power = mine["players"][seat - 1]["power"]
                orders = orders[: abs(mine["adjustments"].get(power, 0))]
            number += 1
            if seat in BY_PAGE:
                by_page(clients[seat], game_id, orders, draw, number)
            else:
                body = "\n".join([*orders, "draw"] if draw else orders or ["hold"])
                by_mail(parts, inbound, game_id, seat, tokens[seat], body)
        assert len(phases) < 40, phases  # a draw voted by all ends the game
    assert phases[0] == "S1901M" and any(p.startswith("W1902") for p in phases)
    over = service.state_at(game_id)
    assert over["drawn"] is True  # shared by every power that still owns a centre
    owners = [seat for seat, power in enumerate(over["centres"], start=1) if over["centres"][power]]
    assert sorted(over["winners"]) == owners
    page = clients[1].get(f"/g/{game_id}").get_data(as_text=True)
    assert "The game is over." in page
    ended = {row.seat for row in mails_of(parts, game_id, "game_over")}
    assert ended >= set(range(1, 8))
    # every phase was told to each power as it came: a turn notice per phase and power
    turns = mails_of(parts, game_id, "your_turn") + [
        r for r in mails_of(parts, game_id, "invitation") if r.payload.get("turn")
    ]
    assert {r.seat for r in turns} == set(range(1, 8))
