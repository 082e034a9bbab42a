"""Diplomacy through the server against the diplomacy package itself: random
possible orders (seeded) for games of at least ten years, given by the seven seats
through the JSON API and by reply mails, give the same positions, phase by phase,
as the package processing the same orders directly; and the log file the server
exports replays into the same final position through the package alone. CI plays a
short series; `make diplomacy-long` plays a hundred games."""

from __future__ import annotations

import os
import random

import pytest
from diplomacy import Game as Package

from pbem.games.diplomacy.replay import replay
from pbem.mail.inbound import Inbound
from pbem.service import BadRequest, PlayerSpec

from support import signed_reply

GAMES = int(os.environ.get("PBEM_DIPLOMACY_SERVER_GAMES", "1"))
YEARS = 10
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
NAMES = ("Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus")


def position(package: Package) -> dict:
    """What the comparison reads of the package's game: phase, units, centres."""
    return {
        "phase": package.get_current_phase(),
        "units": {p: sorted(package.get_units(p)) for p in POWERS},
        "centres": {p: sorted(package.get_centers(p)) for p in POWERS},
    }


def shown(doc: dict) -> dict:
    """The same read from the server's state document."""
    return {
        "phase": doc["phase"] if doc["status"] == "playing" else "COMPLETED",
        # the package lists a dislodged unit among the units, starred ("*F SWE")
        "units": {
            p: sorted([*doc["units"].get(p, []), *(f"*{u}" for u in doc["dislodged"].get(p, {}))])
            for p in POWERS
        },
        "centres": {p: sorted(doc["centres"].get(p, [])) for p in POWERS},
    }


def by_mail(parts, inbound, game_id: str, seat: int, token: str, orders: list[str]) -> str:
    """A seat's orders as a reply mail to its game: one order a line, then a quote."""
    sender = f"{NAMES[seat - 1].lower()}@example.com"
    body = "\n".join(orders or ["hold"]) + "\n\nOn Monday the judge wrote:\n> Your orders?\n"
    return inbound.handle(bytes(signed_reply(parts, game_id, seat, token, sender, body))).status


@pytest.mark.parametrize("number", range(GAMES))
def test_the_server_plays_as_the_package_does_phase_by_phase(web, number):
    app, parts = web
    service = parts.service
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES],
        {"hours_per_turn": 72},
        {"map": "standard"},
        game="diplomacy",
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    inbound = Inbound(service, parts.outbox, parts.settings, service.clock)
    client = app.test_client()
    package, rng = Package(), random.Random(f"server-{number}")
    phases = 0
    while not package.is_game_done and int(package.get_current_phase()[1:5]) < 1901 + YEARS:
        doc = service.state_at(game_id)
        assert shown(doc) == position(package), f"phase {phases}"
        possible = package.get_all_possible_orders()
        for seat in doc["waiting"]:
            power = POWERS[seat - 1]
            locations = sorted(package.get_orderable_locations(power))  # sets: in some order
            if package.get_current_phase().endswith("A"):  # as many builds or disbands as due
                due = abs(package.get_state()["builds"][power]["count"])
                locations = sorted(rng.sample(locations, min(due, len(locations))))
            orders = [rng.choice(sorted(possible[loc])) for loc in locations if possible[loc]]
            orders = [o for o in orders if rng.random() < 0.9]  # a few units left to default
            package.set_orders(power, orders)
            if seat % 2:  # odd seats by mail, even seats by the API
                assert by_mail(parts, inbound, game_id, seat, tokens[seat], orders) == "accepted"
            else:
                answer = client.post(
                    f"/api/games/{game_id}/actions",
                    json={"action": "\n".join(orders) or "hold"},
                    headers={"Authorization": f"Bearer {tokens[seat]}"},
                )
                assert answer.status_code == 201, answer.get_data(as_text=True)
        package.process()
        phases += 1
    # ten years played (a year is two to five phases: the package passes over a
    # retreat or adjustment phase in which nobody has anything to do)
    assert package.is_game_done or int(package.get_current_phase()[1:5]) == 1901 + YEARS
    assert phases >= 2 * YEARS or package.is_game_done
    final = service.state_at(game_id)
    assert shown(final) == position(package)
    exported = service.export_log(game_id)
    assert not any(entry.get("sealed") for entry in exported["actions"])
    replayed = replay(exported["setup"], exported["actions"])
    assert position(replayed) == position(package)
    # and the server reads its own log back: the game's own resolutions where it put them
    imported = service.import_log(exported)
    assert shown(service.state_at(imported.game_id)) == position(package)


def test_a_log_with_a_sealed_move_or_a_false_resolution_is_refused(web):
    _app, parts = web
    service = parts.service
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES], None, None, game="diplomacy"
    )
    tokens = {s.seat: s.token for s in created.seats}
    service.submit_action(created.game_id, tokens[3], "A PAR - BUR")
    seen = service.export_log(created.game_id, seat=1)  # France's orders are sealed from Austria
    assert seen["actions"] == [{"seat": 3, "sealed": True}]
    with pytest.raises(BadRequest, match="sealed"):
        service.import_log(seen)
    assert "A PAR - BUR" in str(service.export_log(created.game_id, seat=3)["actions"])
    for seat in range(1, 8):
        if seat != 3:
            service.submit_action(created.game_id, tokens[seat], "hold")
    whole = service.export_log(created.game_id)
    resolution = next(e for e in whole["actions"] if e["seat"] is None)
    forged = dict(
        whole,
        actions=[
            {**e, "action": e["action"].replace("A PAR - BUR", "A PAR - PIC")}
            if e is resolution
            else e
            for e in whole["actions"]
        ],
    )
    with pytest.raises(BadRequest, match="not what the game resolves"):
        service.import_log(forged)
    early = dict(whole, actions=[e for e in whole["actions"] if e is not resolution])
    with pytest.raises(BadRequest, match="resolution"):
        service.import_log(early)


def test_the_comparison_sees_a_different_position(web):
    # A comparison that could not fail would pass any server: one phase of other
    # orders gives another position.
    first, second = Package(), Package()
    first.set_orders("FRANCE", ["A PAR - BUR"])
    first.process()
    second.process()
    assert position(first) != position(second)
