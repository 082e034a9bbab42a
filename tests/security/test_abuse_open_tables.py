"""Open tables, attacked: nobody makes the server mail an address more than once in
ten minutes, the join page says the same whoever the address is, a seat is taken
only by its mailed link (forged, tampered, expired and used links take nothing),
two people taking the last seat at once do not both get it, hostile form values
are refused and change nothing, addresses are never shown, one address holds at
most PER_ADDRESS tables, and one client is slowed down asking."""

from __future__ import annotations

import re
import threading

import pytest
from sqlalchemy import func, select

from pbem.service import PlayerSpec, rows
from pbem.service.joining import join_token
from pbem.service.opentables import PER_ADDRESS, TABLES

import support

JOIN = re.compile(r"/open/join/[^\s\"<]+")


@pytest.fixture
def site(make_web):
    return make_web()


def table(parts, open_seats: int = 1, email: str = "ann@example.com") -> str:
    opened = parts.service.open_table(
        [PlayerSpec("Ann", email)], open_seats, {"hours_per_turn": 48}, game="nim"
    )
    return opened.table_id


def ask(client, table_id: str, name: str, email: str, ip: str = "198.51.100.1"):
    data = {"csrf_token": support.csrf(client, "/my-games"), "name": name, "email": email}
    return client.post(f"/open/{table_id}/join", data=data, environ_base={"REMOTE_ADDR": ip})


def join_mails(parts, address: str | None = None) -> list[dict]:
    with parts.database.reading() as conn:
        query = select(rows.OUTBOX.c.address, rows.OUTBOX.c.payload).where(
            rows.OUTBOX.c.kind == "join_confirm"
        )
        return [
            {"address": r.address, **r.payload}
            for r in conn.execute(query).all()
            if address is None or r.address == address
        ]


def link_for(parts, address: str) -> str:
    [mail] = join_mails(parts, address)
    return f"/open/join/{join_token(parts.settings.signing_key(), mail['nonce'])}"


def take(client, link: str):
    return client.post(link, data={"csrf_token": support.csrf(client, "/my-games")})


def state(parts, table_id: str) -> tuple:
    view = parts.service.open_table_view(table_id)
    return view["names"], view["status"], view["game_id"]


def test_a_stranger_cannot_make_the_server_mail_an_address_twice_in_ten_minutes(site, clock):
    app, parts = site
    tables = [table(parts, email=f"host{n}@example.com") for n in range(3)]
    for n, table_id in enumerate(tables):  # three tables, three clients, one victim
        assert (
            ask(
                app.test_client(), table_id, f"Eve{n}", "vic@example.com", f"192.0.2.{n}"
            ).status_code
            == 200
        )
    assert len(join_mails(parts, "vic@example.com")) == 1
    clock.advance(minutes=9)
    ask(app.test_client(), tables[1], "Eve", "VIC@example.com")
    assert len(join_mails(parts, "vic@example.com")) == 1
    clock.advance(minutes=2)
    ask(app.test_client(), tables[1], "Eve", "vic@example.com")
    assert len(join_mails(parts, "vic@example.com")) == 2


def test_the_join_page_says_the_same_for_a_seated_and_a_new_address(site):
    app, parts = site
    table_id = table(parts, open_seats=2)
    seated = ask(app.test_client(), table_id, "Ben", "ann@example.com").get_data(as_text=True)
    new = ask(app.test_client(), table_id, "Ben", "ben@example.com").get_data(as_text=True)
    strip = re.compile(r'name="csrf_token" value="[^"]+"')
    assert strip.sub("", seated) == strip.sub("", new)
    assert [m["address"] for m in join_mails(parts)] == ["ben@example.com"]


def test_two_confirmations_for_the_last_seat_one_wins(site):
    app, parts = site
    table_id = table(parts)
    for n, (name, address) in enumerate([("Ben", "ben@example.com"), ("Cy", "cy@example.com")]):
        ask(app.test_client(), table_id, name, address, f"192.0.2.{n}")
    links = [link_for(parts, "ben@example.com"), link_for(parts, "cy@example.com")]
    clients = [app.test_client(), app.test_client()]
    tokens = [support.csrf(c, "/my-games") for c in clients]
    answers: list = [None, None]
    start = threading.Barrier(2)

    def confirm(n: int) -> None:
        start.wait()
        answers[n] = clients[n].post(
            links[n], data={"csrf_token": tokens[n]}, environ_base={"REMOTE_ADDR": f"192.0.2.{n}"}
        )

    threads = [threading.Thread(target=confirm, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [303, 409]
    lost = next(a for a in answers if a.status_code == 409).get_data(as_text=True)
    assert "no longer open" in lost
    names, status, game_id = state(parts, table_id)
    assert status == "started" and len(names) == 2 and game_id is not None
    seats = parts.service.seat_links(game_id)
    assert len(seats) == 2 and seats[0].name == "Ann"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda link: link[:-1] + ("A" if link[-1] != "A" else "B"),
        lambda link: link.replace("/open/join/", "/open/join/0"),
        lambda link: "/open/join/" + "x" * 300,
        lambda link: "/open/join/nonce.signature",
    ],
)
def test_a_tampered_or_guessed_link_takes_no_seat(site, tamper):
    app, parts = site
    table_id = table(parts)
    ask(app.test_client(), table_id, "Ben", "ben@example.com")
    forged = tamper(link_for(parts, "ben@example.com"))
    client = app.test_client()
    assert client.get(forged).status_code in (403, 404)
    assert take(client, forged).status_code in (403, 404)
    assert state(parts, table_id) == (["Ann"], "open", None)


def test_an_expired_or_used_link_takes_no_seat(site, clock):
    app, parts = site
    table_id = table(parts, open_seats=2)
    ask(app.test_client(), table_id, "Ben", "ben@example.com")
    ask(app.test_client(), table_id, "Cy", "cy@example.com", "192.0.2.9")
    late = link_for(parts, "ben@example.com")
    used = link_for(parts, "cy@example.com")
    assert take(app.test_client(), used).status_code == 303
    assert take(app.test_client(), used).status_code == 403
    clock.advance(minutes=31)
    assert take(app.test_client(), late).status_code == 403
    assert state(parts, table_id) == (["Ann", "Cy"], "open", None)


@pytest.mark.parametrize(
    ("name", "email"),
    [
        ("\u0410nn", "ben@example.com"),  # a Cyrillic A: looks like Ann
        ("ANN", "ben@example.com"),
        ("", "ben@example.com"),
        ("x" * 101, "ben@example.com"),
        ("Ben", "not an address"),
        ("Ben", "ben@example.com\r\nBcc: all@example.com"),
        ("Ben", "b" * 300 + "@example.com"),
    ],
)
def test_hostile_join_values_are_refused_and_change_nothing(site, name, email):
    app, parts = site
    table_id = table(parts)
    answer = ask(app.test_client(), table_id, name, email)
    assert answer.status_code == 400
    assert join_mails(parts) == [] and state(parts, table_id) == (["Ann"], "open", None)


@pytest.mark.parametrize("name", ["Ben\u202e", "B\u200ben", "B\u202een\u202c"])
def test_invisible_and_bidi_characters_never_reach_a_name(site, name):
    app, parts = site
    table_id = table(parts)
    assert ask(app.test_client(), table_id, name, "ben@example.com").status_code == 200
    assert [m["name"] for m in join_mails(parts)] == ["Ben"]
    assert take(app.test_client(), link_for(parts, "ben@example.com")).status_code == 303
    assert [s.name for s in parts.service.seat_links(state(parts, table_id)[2])] == ["Ann", "Ben"]


def test_unknown_tables_pages_and_kinds_are_refused(site):
    app, parts = site
    client = app.test_client()
    assert client.get("/open/nosuchtable").status_code == 404
    assert ask(client, "nosuchtable", "Ben", "ben@example.com").status_code == 404
    assert client.get("/open?page=0").status_code == 400
    assert client.get("/open?page=x").status_code == 400
    form = {
        "csrf_token": support.csrf(client, "/new"),
        "game": "nim",
        "kind1": "greedy",
        "kind2": "open",
    }
    assert client.post("/new", data=form).status_code == 400  # no person: nobody to mail
    form["kind1"], form["kind3"], form["kind4"] = "open", "open", "open"
    assert client.post("/new", data=form).status_code == 400
    with parts.database.reading() as conn:
        assert conn.execute(select(func.count()).select_from(TABLES)).scalar_one() == 0


def test_no_page_shows_an_address(site):
    app, parts = site
    client = app.test_client()
    form = {
        "csrf_token": support.csrf(client, "/new"),
        "game": "nim",
        "kind1": "person",
        "name1": "Ann",
        "email1": "ann.secret@example.com",
        "kind2": "open",
        "kind3": "open",
    }
    manage = client.post("/new", data=form).headers["Location"]
    table_id = manage.split("/")[2]
    ask(app.test_client(), table_id, "Ben", "ben.secret@example.com")
    assert take(app.test_client(), link_for(parts, "ben.secret@example.com")).status_code == 303
    pages = ["/open", f"/open/{table_id}", manage]
    for page in pages:
        text = app.test_client().get(page).get_data(as_text=True)
        assert "Ben" in text and "secret@" not in text, page


def test_one_address_holds_at_most_so_many_open_tables(site):
    _, parts = site
    for _n in range(PER_ADDRESS):
        table(parts)
    with pytest.raises(Exception, match="at most"):
        table(parts, email="ANN@example.com")
    table(parts, email="other@example.com")


def test_a_forged_management_link_manages_nothing(site):
    app, parts = site
    table_id = table(parts)
    client = app.test_client()
    token = support.csrf(client, "/my-games")
    assert client.get(f"/open/{table_id}/manage/guess").status_code == 403
    for action, extra in (("cancel", {}), ("bots", {"bot": "greedy"})):
        answer = client.post(
            f"/open/{table_id}/manage/guess/{action}", data={"csrf_token": token, **extra}
        )
        assert answer.status_code == 403
    assert state(parts, table_id) == (["Ann"], "open", None)


def test_one_client_asking_to_join_is_slowed_down(site):
    app, parts = site
    table_id = table(parts, open_seats=3)
    client = app.test_client()
    statuses = [
        ask(client, table_id, f"Ben{n}", f"b{n}@example.com", "203.0.113.8").status_code
        for n in range(7)
    ]
    assert statuses == [200] * 5 + [429] * 2


def test_an_expired_table_leaves_the_list_and_takes_nobody(site, clock):
    app, parts = site
    table_id = table(parts)
    ask(app.test_client(), table_id, "Ben", "ben@example.com")
    link = link_for(parts, "ben@example.com")
    clock.advance(days=14, seconds=1)
    assert table_id not in app.test_client().get("/open").get_data(as_text=True)
    assert ask(app.test_client(), table_id, "Cy", "cy@example.com", "192.0.2.5").status_code == 409
    assert take(app.test_client(), link).status_code == 403  # and the link is stale too
    assert join_mails(parts, "cy@example.com") == []
    assert parts.service.open_table_view(table_id)["status"] == "expired"


def test_the_list_shows_twenty_a_page_newest_first(site, clock):
    app, parts = site
    made = []
    for n in range(21):
        made.append(table(parts, email=f"host{n}@example.com"))
        clock.advance(seconds=1)
    first = app.test_client().get("/open").get_data(as_text=True)
    second = app.test_client().get("/open?page=2").get_data(as_text=True)
    assert sum(f'/open/{t}"' in first for t in made) == 20 and f'/open/{made[-1]}"' in first
    assert f'/open/{made[0]}"' in second and "Page 2 of 2" in second


def test_stale_join_links_are_pruned_and_fresh_ones_kept(site, clock):
    app, parts = site
    table_id = table(parts, open_seats=2)
    ask(app.test_client(), table_id, "Ben", "ben@example.com")
    clock.advance(minutes=20)
    ask(app.test_client(), table_id, "Cy", "cy@example.com", "192.0.2.3")
    clock.advance(minutes=11)
    assert parts.service.prune()["open_joins"] == 1
    assert take(app.test_client(), link_for(parts, "cy@example.com")).status_code == 303


def test_one_client_trying_join_links_is_slowed_down(site):
    app, _ = site
    client = app.test_client()
    token = support.csrf(client, "/my-games")
    statuses = [
        client.post(
            f"/open/join/guess{i}.x",
            data={"csrf_token": token},
            environ_base={"REMOTE_ADDR": "203.0.113.9"},
        ).status_code
        for i in range(12)
    ]
    assert statuses == [403] * 10 + [429] * 2
