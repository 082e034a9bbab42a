"""A long chat, page by page: a chat panel shows its last lines and the earlier ones
on request (`?before=SEQ`, an "Earlier lines" link that needs no script; the API's
cursor), so that the watch page and the live poll cost no more for 10,000 lines than
for a page of them; while history, the log file and verify keep every line, and the
counts of lines are the events' (rebuilt with them, and by the migration)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text
from talk_work import Work, talk_in_bulk

from pbem.events import SpectatorTalk, TableTalk
from pbem.service import BadRequest, PlayerSpec
from pbem.service import chat as service_chat
from pbem.store import migrate, talk
from pbem.store.database import Database

from support import SHORT, csrf, migrate_to

SHOWN = service_chat.SHOWN
# A few units of work either way: the rows PostgreSQL may or may not fetch from the
# table for an index-only scan (as vacuum has left its pages), on SQLite tens of
# instructions. Tiny beside what reading a chat costs (10,000 rows, 100,000s of
# instructions), and a small game's work is often 0 or 1 of them.
SLACK = 5
LINES = re.compile(r'<li><span class="who">[^<]*</span>(?: \([^)]*\))?: <span class="said">([^<]*)')
EARLIER = re.compile(r'<a href="([^"]+)">Earlier lines</a>')


def _game(parts, lines: int = 0) -> str:
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True},
        SHORT,
    )
    talk_in_bulk(parts.service, created.game_id, lines)
    return created.game_id


def _analyzed(parts) -> None:
    """PostgreSQL's statistics brought up to the lines just stored, as autovacuum
    would bring them (its plans rest on them: a game of 10,000 lines it has never
    counted looks like a game of a few, whose rows it may as well walk)."""
    if parts.database.dialect == "postgresql":
        with parts.database.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM ANALYZE"))


def within(cost: int, of: int) -> bool:
    """Whether `cost` is at most 1.5 times `of`, give or take SLACK."""
    return cost <= 1.5 * of + SLACK


def _token(parts, game_id: str, seat: int) -> str:
    return next(s.token for s in parts.service.seat_links(game_id) if s.seat == seat)


def _panel(page: str, section: str) -> str:
    """The chat panel `section` ("chat" or "spectators") of a page."""
    start = page.index(f'<section id="{section}"')
    return page[start : page.index("</section>", start)]


def _said(page: str, section: str) -> list[str]:
    return LINES.findall(_panel(page, section))


def _poll(client, game_id: str, since: int):
    answer = client.get(f"/g/{game_id}/live?watch=1&since={since}")
    assert answer.status_code == 200
    return answer


def test_a_long_chat_costs_the_pages_the_live_poll_and_a_new_line_nothing_more(
    make_web, clock, monkeypatch
):
    """10,000 lines (half the players', half the spectators'): the watch page, a
    player's page and their live polls run as many statements as for a game of 10
    lines, and as much work
    (talk_work.Work: what the database did) as for a game whose chats fill a page
    (within 1.5 times); and with pages of 5 lines, which the game of 10 lines fills
    too, as much work as for that game. A new line (its rate checks, its totals)
    costs what it costs in the game of 10 lines. (Totals high enough for the bulk.)"""
    app, parts = make_web(talk_lines_per_game=100_000, talk_lines_per_writer=100_000)
    sizes = (10, 2 * SHOWN, 10_000)
    games = {size: _game(parts, size) for size in sizes}
    _analyzed(parts)
    client, player = app.test_client(), app.test_client()  # a spectator, and seat 1
    for game_id in games.values():
        assert player.get(f"/g/{game_id}/{_token(parts, game_id, 1)}").status_code == 302
    work = Work(parts.database)
    kinds = ("page", "poll", "poll since", "player's page", "player's poll")

    def measured() -> dict[int, dict[str, tuple[int, int]]]:
        found: dict[int, dict[str, tuple[int, int]]] = {}
        for size, game_id in games.items():
            head = parts.service.state_at(game_id)["seq"]
            client.get(f"/g/{game_id}/watch")  # the per-process caches warmed
            found[size] = {}
            for what, ask in (
                ("page", lambda g=game_id: client.get(f"/g/{g}/watch")),
                ("poll", lambda g=game_id, h=head: _poll(client, g, h)),
                ("poll since", lambda g=game_id, h=head: _poll(client, g, h - 3)),
                ("player's page", lambda g=game_id: player.get(f"/g/{g}")),
                ("player's poll", lambda g=game_id, h=head: player.get(f"/g/{g}/live?since={h}")),
            ):
                with work.counting() as counted:
                    assert ask().status_code == 200
                found[size][what] = (counted.statements, counted.work)
        return found

    costs = measured()
    for what in kinds:
        statements = {size: costs[size][what][0] for size in sizes}
        done = {size: costs[size][what][1] for size in sizes}
        assert within(statements[10_000], statements[10]), (what, costs)
        assert within(done[10_000], done[2 * SHOWN]), (what, costs)
    # a player's page and poll skip the spectators' chat while the game is on: a
    # long run of it costs them nothing either
    watched = {}
    for size in (10, 10_000):
        watched[size] = game_id = _game(parts, 0)
        talk_in_bulk(parts.service, game_id, size, spectators=True)
        assert player.get(f"/g/{game_id}/{_token(parts, game_id, 1)}").status_code == 302
    _analyzed(parts)
    found = {}
    for size, game_id in watched.items():
        head = parts.service.state_at(game_id)["seq"]
        player.get(f"/g/{game_id}")
        with work.counting() as page:
            assert player.get(f"/g/{game_id}").status_code == 200
        with work.counting() as poll:
            assert player.get(f"/g/{game_id}/live?since={head}").status_code == 200
        found[size] = (page.statements, page.work, poll.statements, poll.work)
    assert all(within(a, b) for a, b in zip(found[10_000], found[10], strict=True)), found
    clock.advance(minutes=2)  # the bulk lines were all said at the test clock's one moment
    for size, game_id in games.items():
        header = {"Authorization": f"Bearer {_token(parts, game_id, 1)}"}
        url = f"/g/{game_id}/watch/chat"
        form = {"csrf_token": csrf(client, f"/g/{game_id}/watch"), "name": "Zoe", "text": "hi"}
        for what, say in (
            (
                "say",
                lambda g=game_id, h=header: client.post(
                    f"/api/games/{g}/chat", json={"text": "hi"}, headers=h
                ),
            ),
            ("spectator says", lambda u=url, f=form: client.post(u, data=f)),
        ):
            with work.counting() as counted:
                assert say().status_code in (201, 303)
            costs[size][what] = (counted.statements, counted.work)
    for what in ("say", "spectator says"):
        assert within(costs[10_000][what][0], costs[10][what][0]), (what, costs)
        # the rate checks read the last lines a minute may hold: all of them at 400
        assert within(costs[10_000][what][1], costs[2 * SHOWN][what][1]), (what, costs)
    monkeypatch.setattr(service_chat, "SHOWN", 5)
    paged = measured()
    for what in kinds:
        assert within(paged[10_000][what][1], paged[10][what][1]), (what, paged)
    for size in (10, 10_000):
        page = client.get(f"/g/{games[size]}/watch").get_data(as_text=True)
        assert len(_said(page, "chat")) == len(_said(page, "spectators")) == 5


def test_a_chat_panel_shows_its_last_lines_and_the_earlier_ones_by_a_link(make_web):
    app, parts = make_web()
    game_id = _game(parts, 2 * SHOWN + 50)  # 225 lines in each chat
    client = app.test_client()
    page = client.get(f"/g/{game_id}/watch").get_data(as_text=True)
    for section, first in (("chat", 51), ("spectators", 50)):
        said = _said(page, section)
        assert len(said) == SHOWN
        assert said[0] == f"line {first}" and said[-1] == f"line {first + 2 * SHOWN - 2}"
        (link,) = EARLIER.findall(_panel(page, section))
        earlier = client.get(link.replace("&amp;", "&").split("#")[0])
        assert earlier.status_code == 200
        older = earlier.get_data(as_text=True)
        assert _said(older, section) == [f"line {n}" for n in range(first - 50, first, 2)]
        assert EARLIER.findall(_panel(older, section)) == []
        assert "Latest lines" in _panel(older, section)
    assert "Earlier lines" not in _panel(client.get(f"/g/{_game(parts, 10)}/watch").text, "chat")


def test_the_api_reads_the_chat_a_page_at_a_time_by_its_cursor(make_web):
    app, parts = make_web()
    game_id = _game(parts, 2 * SHOWN + 50)
    client = app.test_client()
    state = client.get(f"/api/games/{game_id}").get_json()
    latest = client.get(f"/api/games/{game_id}/chat").get_json()
    assert latest["lines"] == state["chat"] and len(latest["lines"]) == SHOWN
    assert latest["earlier"] == state["chat_earlier"] == latest["lines"][0]["seq"]
    older = client.get(f"/api/games/{game_id}/chat?before={latest['earlier']}").get_json()
    assert [line["text"] for line in older["lines"]] == [f"line {n}" for n in range(1, 51, 2)]
    assert older["earlier"] is None
    assert client.get(f"/api/games/{_game(parts, 4)}").get_json()["chat_earlier"] is None


@pytest.mark.parametrize("before", ["abc", "0", "-1", "1e3", "99999999999", "１２", ""])
def test_a_bad_cursor_is_refused_with_the_rule(make_web, before):
    app, parts = make_web()
    game_id = _game(parts, 4)
    client = app.test_client()
    for url in (
        f"/g/{game_id}/watch?before={before}",
        f"/g/{game_id}/watch?spectators_before={before}",
        f"/api/games/{game_id}/chat?before={before}",
    ):
        answer = client.get(url)
        assert answer.status_code == 400, url
        said = answer.get_data(as_text=True).lower()  # a page starts its sentence upper-case
        assert "before is a seq: a whole number from 1" in said, url
    with pytest.raises(BadRequest):
        parts.service.table_talk(game_id, None, True)


def test_history_the_log_file_and_verify_keep_every_line(make_web):
    app, parts = make_web()
    game_id = _game(parts, 2 * SHOWN + 50)
    service = parts.service
    told = [h for h in service.history(game_id) if isinstance(h.event, TableTalk)]
    assert len(told) == SHOWN + 25
    assert [line["text"] for line in service.export_log(game_id, 1)["chat"]] == [
        f"line {n}" for n in range(1, 2 * SHOWN + 50, 2)
    ]
    assert service.verify(game_id) == []
    client = app.test_client()
    history = client.get(f"/g/{game_id}/history").get_data(as_text=True)
    assert "said: line 1" in history and f"said: line {2 * SHOWN + 49}" in history
    watch = client.get(f"/g/{game_id}/watch").get_data(as_text=True)
    log = watch[watch.index('<section class="log"') :]
    assert "said:" not in log  # the chat panel shows the talk, a page at a time


def _counts(database: Database, game_id: str) -> dict[tuple[str, str], tuple[int, int]]:
    with database.reading() as conn:
        return {
            (kind.TYPE, writer): talk.counted(conn, game_id, kind.TYPE, writer)
            for kind, writer in (
                (TableTalk, "seat:1"),
                (TableTalk, "seat:2"),
                (SpectatorTalk, "name:watcher 3"),
            )
        }


def test_the_counts_of_lines_are_rebuilt_from_the_events(make_web):
    _app, parts = make_web()
    game_id = _game(parts, 140)
    counted = _counts(parts.database, game_id)
    assert counted == {
        ("TableTalk", "seat:1"): (70, 35),
        ("TableTalk", "seat:2"): (70, 35),
        ("SpectatorTalk", "name:watcher 3"): (70, 10),
    }
    parts.service.rebuild()
    assert _counts(parts.database, game_id) == counted


def test_the_migration_counts_the_lines_already_stored(make_web):
    _app, parts = make_web()
    game_id = _game(parts, 140)
    counted = _counts(parts.database, game_id)
    migrate_to(parts.database, "0009", "downgrade")
    migrate.upgrade(parts.database)
    assert migrate.differences(parts.database) == []
    assert _counts(parts.database, game_id) == counted
