"""Diplomacy played through the server: seven seats made by the service, each told
of its turn at the phase's start; several powers ordering at once (a seat that
ordered is no longer waited on, and may change its orders); the phase resolved
by the game once the last power orders; the game page showing each seat the map
and its orders form, never another seat's pending orders; orders by a mail reply
of several lines; and a phase whose time ran out, resolved with the missing
powers' units holding."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem.events import RESOLVED
from pbem.mail.inbound import Inbound
from pbem.mail.reading import reply_lines
from pbem.service import PlayerSpec, Stale
from pbem.service.sweep import Sweeper
from pbem.store.tables import Game, Outbox

from support import csrf, signed_reply

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus"]
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def seven(service, **options):
    """A game of Diplomacy for seven people; its id and the seats' tokens."""
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES],
        {"public": True, **options},
        None,
        game="diplomacy",
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def turn_rows(service, game_id):
    """(seq, seat) of each turn notice of the game, in order: a turn mail, or the
    invitation that is the seat's first turn mail."""
    with service.db.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)).all()
        return [
            (r.seq, r.seat)
            for r in rows
            if r.kind == "your_turn" or (r.kind == "invitation" and r.payload.get("turn"))
        ]


def phase_deadline(service, game_id):
    with service.db.read() as s:
        return s.get(Game, game_id).deadline_at


def resolutions(service, game_id):
    return [h for h in service.history(game_id) if h.type == RESOLVED]


def test_seven_seats_order_at_once_and_the_last_one_resolves_the_phase(service):
    game_id, tokens = seven(service)
    doc = service.state_at(game_id)
    assert doc["game"] == "diplomacy" and doc["phase"] == "S1901M"
    assert doc["waiting"] == [1, 2, 3, 4, 5, 6, 7] and doc["turn"] is None
    # the phase's start: every seat is told it may order
    start = doc["seq"]
    assert sorted(seat for seq, seat in turn_rows(service, game_id) if seq <= start) == list(
        range(1, 8)
    )
    france = service.submit_action(game_id, tokens[3], "A PAR - BUR\nF BRE - MAO", start)
    assert "A PAR - BUR" in france.narration
    doc = service.state_at(game_id)
    assert 3 not in doc["waiting"] and doc["ordered"] == [3]
    # England answers the position it read before France ordered: not stale, for a
    # sealed move of another seat shows nothing a move could be chosen on
    service.submit_action(game_id, tokens[2], "F LON - NTH", start)
    # a seat that ordered may change its orders until the phase resolves
    service.submit_action(game_id, tokens[3], "A PAR - PIC", service.state_at(game_id)["seq"])
    assert service.state_at(game_id, seat=3)["my_orders"] == ["A PAR - PIC"]
    assert service.state_at(game_id, seat=2)["my_orders"] == ["F LON - NTH"]
    assert "my_orders" not in service.state_at(game_id) and not resolutions(service, game_id)
    for seat in (1, 4, 5, 6):
        service.submit_action(game_id, tokens[seat], "hold", service.state_at(game_id)["seq"])
    assert not resolutions(service, game_id)
    assert service.state_at(game_id)["waiting"] == [7]
    service.submit_action(game_id, tokens[7], "F ANK - BLA", service.state_at(game_id)["seq"])
    (resolved,) = resolutions(service, game_id)
    doc = service.state_at(game_id)
    assert doc["phase"] == "F1901M" and doc["waiting"] == [1, 2, 3, 4, 5, 6, 7]
    assert "A PIC" in doc["units"]["FRANCE"] and "F NTH" in doc["units"]["ENGLAND"]
    assert doc["history"][0]["orders"]["FRANCE"] == ["A PAR - PIC"]  # revealed now
    # the next phase's start: every seat is told again
    assert sorted(seat for seq, seat in turn_rows(service, game_id) if seq > start) == list(
        range(1, 8)
    )
    # the log: a seat's orders close no round, the resolution does
    closing = [h.type for h in service.history(game_id) if h.closes_round]
    assert closing == [RESOLVED]
    # a move made on the position before the resolution is stale now
    with pytest.raises(Stale):
        service.submit_action(game_id, tokens[1], "A VIE - GAL", resolved.seq - 1)


def test_the_game_page_shows_the_map_and_the_form_but_never_anothers_orders(web):
    app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    service.submit_action(game_id, tokens[3], "A PAR - BUR\nF BRE - MAO", None)
    pages = {}
    for seat in (3, 2):
        client = app.test_client()
        client.get(f"/g/{game_id}/{tokens[seat]}")
        answer = client.get(f"/g/{game_id}")
        assert answer.status_code == 200
        pages[seat] = answer.get_data(as_text=True)
    for page in pages.values():
        assert 'class="dip-map"' in page and '<textarea id="move" name="move"' in page
        assert 'name="line" value="draw"' in page
        assert "secret" in page  # the form says the orders are secret until resolved
    france, england = pages[3], pages[2]
    assert "A PAR - BUR" in france and "F BRE - MAO" in france
    assert "A PAR - BUR" not in england and "F BRE - MAO" not in england
    assert "MAO" in england  # the map's province names are there, just no order
    assert "<code>F LON - NTH</code>" in england  # England's possible orders
    assert "<code>F LON - NTH</code>" not in france
    # the spectator's page neither
    watch = app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True)
    assert "A PAR - BUR" not in watch and 'class="dip-map"' in watch
    # nor the history page of another seat
    ben = app.test_client()
    ben.get(f"/g/{game_id}/{tokens[2]}")
    head = service.state_at(game_id)["seq"]
    history = ben.get(f"/g/{game_id}/history?at={head}").get_data(as_text=True)
    assert "A PAR - BUR" not in history and "France gave orders" in history


def test_orders_sent_from_the_page_with_a_draw_vote(web):
    app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[6]}")
    doc = service.state_at(game_id)
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "move": "a war - gal\nF SEV - BLA",
            "action": "hold",
            "line": "draw",
            "expected_seq": str(doc["seq"]),
            "key": "dip-k1",
        },
    )
    assert answer.status_code == 302
    mine = service.state_at(game_id, seat=6)
    assert mine["my_orders"] == ["A WAR - GAL", "F SEV - BLA"] and mine["my_draw"] is True
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "A WAR - GAL\nF SEV - BLA</textarea>" in page  # to change them
    assert 'name="line" value="draw" checked' in page
    # an empty box gives no orders (the form's own "hold")
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "move": "",
            "action": "hold",
            "expected_seq": str(service.state_at(game_id)["seq"]),
            "key": "dip-k2",
        },
    )
    assert answer.status_code == 302
    mine = service.state_at(game_id, seat=6)
    assert mine["my_orders"] == [] and mine["my_draw"] is False
    # an order the rules refuse names itself, and nothing is played
    head = service.state_at(game_id)["seq"]
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "move": "A WAR - GAL\nA MOS - PAR",
            "action": "hold",
            "expected_seq": str(head),
            "key": "dip-k3",
        },
    )
    assert answer.status_code == 422
    assert "A MOS - PAR" in answer.get_data(as_text=True)
    assert service.state_at(game_id)["seq"] == head


def test_the_history_page_at_a_resolution_shows_its_orders_and_results(web):
    app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    orders = {4: "A MUN - BUR", 3: "A PAR - BUR", 2: "F EDI - NWG"}
    for seat in range(1, 8):
        service.submit_action(game_id, tokens[seat], orders.get(seat, "hold"), None)
    (resolved,) = resolutions(service, game_id)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    page = client.get(f"/g/{game_id}/history?at={resolved.seq}").get_data(as_text=True)
    last = page[page.index('class="dip-last"') :]
    assert "Last phase: Spring 1901, movement" in last
    assert "<code>A MUN - BUR</code>" in last and "<code>A PAR - BUR</code>" in last
    assert "bounced" in last  # Munich and Paris bounced in Burgundy
    assert '<details class="fold dip-last-map" open>' in last  # unfolded at the resolution
    assert 'id="last-title"' in last and 'class="dip-map"' in last


def mail_reply(parts, game_id, token, seat, body: str) -> EmailMessage:
    """A reply to the seat's signed address, from the seat's own address."""
    return signed_reply(parts, game_id, seat, token, f"{NAMES[seat - 1].lower()}@example.com", body)


def answer_lines(parts, game_id) -> list[str]:
    with parts.database.read() as s:
        query = select(Outbox).where(Outbox.kind == "answer", Outbox.game_id == game_id)
        return list(s.exec(query.order_by(Outbox.id)).all()[-1].payload["lines"])


def test_orders_by_a_mail_reply_of_several_lines(web):
    _app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    inbound = Inbound(service, parts.outbox, parts.settings, service.clock)
    # Turkey orders after Italy's turn mail went: Italy's answer to it is not stale
    before = mail_reply(parts, game_id, tokens[5], 5, "A VEN - TYR\nF NAP - ION\n")
    service.submit_action(game_id, tokens[7], "F ANK - BLA", None)
    assert inbound.handle(before.as_bytes()).status == "accepted"
    assert service.state_at(game_id, seat=5)["my_orders"] == ["A VEN - TYR", "F NAP - ION"]
    # orders up to the first empty line; what follows is not read
    body = "A ROM - APU\nF NAP - ION\n\nThanks, see you\nEve\n"
    handled = inbound.handle(mail_reply(parts, game_id, tokens[5], 5, body).as_bytes())
    assert handled.status == "accepted", handled
    italy = service.state_at(game_id, seat=5)
    assert italy["my_orders"] == ["A ROM - APU", "F NAP - ION"]  # replaced, not the lines after
    said = answer_lines(parts, game_id)
    assert "A ROM - APU" in said[0] and "F NAP - ION" in said[0]
    # an order not understood is refused, naming the line, and nothing is played
    head = service.state_at(game_id)["seq"]
    wrong = mail_reply(parts, game_id, tokens[5], 5, "A ROM - APU\nA ROM - PAR\n")
    assert inbound.handle(wrong.as_bytes()).status == "illegal"
    said = " ".join(answer_lines(parts, game_id))
    assert "A ROM - PAR" in said and service.state_at(game_id)["seq"] == head
    unreadable = mail_reply(parts, game_id, tokens[5], 5, "A ROM - APU\nA R@M - PAR\n")
    assert inbound.handle(unreadable.as_bytes()).status == "unreadable"
    said = answer_lines(parts, game_id)
    assert said[1] == 'Cannot read the order "A R@M - PAR": write e.g. "A PAR - BUR".'
    assert service.state_at(game_id)["seq"] == head
    # a command on the first line is read as one, as in every game
    status = mail_reply(parts, game_id, tokens[5], 5, "status\nA ROM - APU\n")
    assert inbound.handle(status.as_bytes()).status == "status"
    assert service.state_at(game_id)["seq"] == head


def test_a_reply_reads_its_blank_lines_only_when_asked():
    text = "Hi all,\n\nA PAR - BUR\nF BRE - MAO\n\n\nsee you\n> quoted\n"
    assert reply_lines(text) == ["A PAR - BUR", "F BRE - MAO", "see you"]
    assert reply_lines(text, blanks=True) == ["A PAR - BUR", "F BRE - MAO", "", "see you"]


def test_a_phase_whose_time_ran_out_holds_the_missing_powers_and_resolves(service, clock):
    from pbem.service.outbox import Outbox as OutboxQueue

    game_id, tokens = seven(service, hours_per_turn=24)
    deadline = phase_deadline(service, game_id)
    clock.advance(hours=2)
    service.submit_action(game_id, tokens[3], "A PAR - BUR", None)
    clock.advance(hours=2)
    service.submit_action(game_id, tokens[6], "A WAR - GAL", None)
    assert phase_deadline(service, game_id) == deadline  # one clock for the phase
    sweeper = Sweeper(service, OutboxQueue(service.db, clock), clock)
    assert sweeper.sweep().time_outs == []
    clock.advance(hours=21)
    work = sweeper.sweep()
    timed = sorted(seat for _game, seat, _seq in work.time_outs)
    assert timed == [1, 2, 4, 5, 7]  # the powers that had not ordered
    for task in work.time_outs:
        service.time_out(*task)
    assert len(resolutions(service, game_id)) == 1
    doc = service.state_at(game_id)
    assert doc["phase"] == "F1901M"
    assert "A BUR" in doc["units"]["FRANCE"] and "A GAL" in doc["units"]["RUSSIA"]
    assert sorted(doc["units"]["AUSTRIA"]) == ["A BUD", "A VIE", "F TRI"]  # they held
    record = doc["history"][0]
    assert record["orders"]["AUSTRIA"] == [] and record["orders"]["FRANCE"] == ["A PAR - BUR"]
    assert phase_deadline(service, game_id) > deadline  # the next phase's own
    told = [h.text for h in service.history(game_id) if h.type == "TurnTimedOut"]
    assert len(told) == 5 and not any(re.search(r"A PAR|A WAR", t) for t in told)


# -- every page under the pages' style policy, the end ------------------------------------


def test_every_page_of_a_diplomacy_game_keeps_to_the_style_policy(web):
    from test_pages_every_game import get_ok

    app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    for seat in range(1, 8):
        service.submit_action(game_id, tokens[seat], "hold", None)
    service.submit_action(game_id, tokens[3], "A PAR - BUR", None)
    head = service.state_at(game_id)["seq"]
    for seat in (3, 5):
        client = app.test_client()
        client.get(f"/g/{game_id}/{tokens[seat]}")
        for url in (f"/g/{game_id}", *(f"/g/{game_id}/history?at={at}" for at in (1, 8, head))):
            page = get_ok(client, url)  # no style attribute, each <style> allowed by hash
            assert 'class="dip-map"' in page and f"seat {seat}, you" in page
            assert ("A PAR - BUR" in page) == (seat == 3)  # France's own orders, in its log
    stranger = app.test_client()
    for url in (f"/g/{game_id}/watch", "/rules/diplomacy", "/new", "/"):
        page = get_ok(stranger, url)
    assert "18 supply centres" in get_ok(stranger, "/rules/diplomacy")
    new = get_ok(stranger, "/new")
    assert 'name="kind7"' in new and "7 players" in new and "2 to 4 players" in new


def test_a_draw_every_power_votes_for_ends_the_game_on_its_page_and_in_its_mail(web, clock):
    from test_pages_every_game import get_ok

    from pbem.service.notices import Kind

    from support import MailWriter

    app, parts = web
    service = parts.service
    game_id, tokens = seven(service)
    for seat in range(1, 8):
        service.submit_action(game_id, tokens[seat], "hold\ndraw", None)
    doc = service.state_at(game_id)
    assert doc["status"] == "finished" and doc["drawn"] and doc["winners"] == list(range(1, 8))
    page = get_ok(app.test_client(), f"/g/{game_id}/watch")
    assert "The game ended in a draw among Austria (Ann)" in page
    standings = page[page.index('class="standings"') :]
    rows = re.findall(r'<th scope="row">(.*?)</th>', standings, re.S)
    assert [row.split()[0] for row in rows][:2] == ["Fay", "Ann"]  # 4 centres, then by seat
    assert all("winner" in row for row in rows)
    mail = MailWriter(parts, clock, game_id).compose(Kind.GAME_OVER, 1, "ann@example.com", {})
    text = mail.get_body(("plain",)).get_content()
    assert "The game ended in a draw among Austria, England, France" in text
    assert "1. Fay (Russia): 4 supply centres, 4 units (drawn)" in text


# -- the mails ------------------------------------------------------------------------------


def test_a_turn_mail_lists_the_orders_and_the_last_results_but_nobodys_pending_orders(
    make_parts, clock
):
    import sys
    from pathlib import Path

    from pbem import i18n
    from pbem.service.notices import Kind

    from support import MailWriter

    sys.path.insert(0, str(Path(__file__).parent))
    from german import english_left

    parts = make_parts(clock)
    service = parts.service
    game_id, tokens = seven(service, hours_per_turn=48)
    orders = {4: "A MUN - BUR", 3: "A PAR - BUR\nF BRE - MAO", 2: "F EDI - NWG"}
    for seat in range(1, 8):
        service.submit_action(game_id, tokens[seat], orders.get(seat, "hold"), None)
    (resolved,) = resolutions(service, game_id)
    service.submit_action(game_id, tokens[3], "A PAR - PIC", None)  # France's next, pending
    writer = MailWriter(parts, clock, game_id)
    ben = writer.compose(Kind.YOUR_TURN, 2, "ben@example.com", {}, seq=resolved.seq)
    dee = writer.compose(Kind.REMINDER, 4, "dee@example.com", {"hours": 24})
    text = ben.get_body(("plain",)).get_content()
    html = ben.get_body(("html",)).get_content()
    for said in (text, html):
        assert "A PAR - PIC" not in said  # France's pending orders
        assert "Spring 1901, movement" in said and "bounced" in said  # the last results
    assert "Your possible orders:" in text and "F LON: - ENG | - NTH" in text
    assert "\nF LON - ENG\nA LVP - CLY\n" in text  # how to write them, with their own units
    assert "A PAR - BUR" in text  # the last phase's orders are public now
    reminded = dee.get_body(("plain",)).get_content()
    assert "Last phase, Spring 1901, movement:" in reminded and "A MUN: bounced" in reminded
    assert "A PAR - PIC" not in reminded and "Germany: A MUN - BUR" in reminded
    assert "A MUN: - BER | - BOH | - BUR" in reminded  # Germany's possible orders, not France's
    pictures = [p.get_content() for p in ben.walk() if p.get_content_type() == "image/png"]
    assert len(pictures) == 1 and pictures[0].startswith(b"\x89PNG")
    german = writer.compose(
        Kind.ROUND_SCORED, 1, "ann@example.com", {"round": 1}, seq=resolved.seq, language="de"
    )
    said = german.get_body(("plain",)).get_content()
    assert "Letzte Phase, Frühjahr 1901, Bewegung:" in said and "A MUN: abgeprallt" in said
    with i18n.speaking("de"):
        allowed = frozenset(NAMES) | {"Mall", "by", "mail"}
        assert english_left(said, allowed=allowed) == []
