"""The others' moves since a viewer's last visit, outlined on the board: the live
poll with `since=N` answers `marks`, selectors of the drawing's elements the others
built (and the stores their customers moved to) after seq N, never the viewer's own, and only
what the viewer's board shows."""

from __future__ import annotations

from support import SHORT, token, two_players


def _build(service, game, created, seat) -> str:
    """Seat `seat` builds its first buildable tile; the id of the tile it built."""
    before = service.state_at(game, None, seat)
    option = next(o for o in service.turn_options(game, seat) if o["text"].startswith("build"))
    service.submit_action(game, token(created, seat), option["text"], None)
    after = service.state_at(game, None, seat)
    mine = next(p for p in after["players"] if p["seat"] == seat)
    had = {t["id"] for p in before["players"] if p["seat"] == seat for t in p["tiles"]}
    (built,) = {t["id"] for t in mine["tiles"]} - had
    return built


def _sel(tile: str) -> str:
    return f'[data-tile="{tile}"]'


def test_a_poll_since_my_last_visit_outlines_what_the_others_built_not_mine(web):
    app, parts = web
    service = parts.service
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    ann = app.test_client()
    ann.get(f"/g/{game}/{token(created, 1)}")
    seen = service.clock_of(game)["seq"]

    anns = _build(service, game, created, 1)
    bens = _build(service, game, created, 2)

    answer = ann.get(f"/g/{game}/live?since={seen}").json
    assert [h["seat"] for h in answer["since"]] == [2]
    assert _sel(bens) in answer["marks"] and _sel(anns) not in answer["marks"]
    spectator = app.test_client().get(f"/g/{game}/live?watch=1&since={seen}").json
    assert {_sel(anns), _sel(bens)} <= set(spectator["marks"])
    now = service.clock_of(game)["seq"]
    assert ann.get(f"/g/{game}/live?since={now}").json["marks"] == []


def test_a_nim_game_has_nothing_to_outline(web):
    app, parts = web
    from pbem.service import PlayerSpec

    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": True},
        None,
        game="nim",
    )
    parts.service.submit_action(created.game_id, token(created, 1), "take 1", None)
    answer = app.test_client().get(f"/g/{created.game_id}/live?watch=1&since=1").json
    assert len(answer["since"]) == 1 and answer["marks"] == []


def test_a_strange_since_outlines_nothing_and_breaks_nothing(web):
    app, parts = web
    created = two_players(parts.service, SHORT, public=True)
    game = created.game_id
    _build(parts.service, game, created, 1)
    client = app.test_client()
    for since in ("999999999", "0", "-1", "1e3", "١", "2" * 12, ""):
        answer = client.get(f"/g/{game}/live?watch=1&since={since}")
        assert answer.status_code == 200, since
        assert answer.json["marks"] == ([_sel_of_first(parts, game)] if since == "0" else [])


def _sel_of_first(parts, game):
    (built,) = [
        t["id"]
        for p in parts.service.state_at(game)["players"]
        for t in p["tiles"]
        if p["seat"] == 1 and not t["id"].startswith("M")
    ]
    return _sel(built)
