"""What makes a page that updates itself reload: the tag of the game's clock changes
only with an event worth showing its viewer, so a spectator's chat line does not
reload the players' pages while the game is on, and one player's private choices do
not reload the other's."""

from __future__ import annotations

from support import SHORT, play_out, token, two_players


def _tags(service, game_id):
    return {viewer: service.clock_of(game_id, viewer)["tag"] for viewer in (1, 2, None)}


def test_a_spectators_line_reloads_only_the_spectators_pages_while_the_game_is_on(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    before = _tags(service, game)
    service.spectator_says(game, "Zoe", "go Ann")
    after = _tags(service, game)
    assert (after[1], after[2]) == (before[1], before[2])
    assert after[None] != before[None]
    # the seq is the last event the viewer may see: the spectators' line for them,
    # the game's creation still for a player, whose page never shows that line
    assert (service.clock_of(game)["seq"], service.clock_of(game, 1)["seq"]) == (2, 1)


def test_a_players_private_choice_reloads_no_other_page(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    before = _tags(service, game)
    service.set_mail_preference(game, token(created, 2), "digest")
    service.set_language(game, token(created, 2), "de")
    assert _tags(service, game) == before


def test_moves_and_table_talk_reload_every_page(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    first = _tags(service, game)
    service.say(game, token(created, 1), "good luck")
    second = _tags(service, game)
    assert all(second[v] != first[v] for v in second)
    service.submit_action(game, token(created, 1), "money L", None)
    third = _tags(service, game)
    assert all(third[v] != second[v] for v in third)


def test_once_the_game_is_over_the_players_see_the_spectators_lines_come_in(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    play_out(service, created)
    before = _tags(service, game)
    service.spectator_says(game, "Zoe", "well played")
    after = _tags(service, game)
    assert all(after[v] != before[v] for v in after)


def test_a_players_poll_answers_304_through_a_spectators_line_and_the_page_carries_its_tag(web):
    app, parts = web
    created = two_players(parts.service, SHORT, public=True)
    game = created.game_id
    ann = app.test_client()
    ann.get(f"/g/{game}/{token(created, 1)}")
    page = ann.get(f"/g/{game}").get_data(as_text=True)
    tag = ann.get(f"/g/{game}/live").headers["ETag"]
    assert f"data-tag={tag}" in page  # the page starts from the tag its polls compare
    spectator = app.test_client()
    watched = spectator.get(f"/g/{game}/live?watch=1").headers["ETag"]

    parts.service.spectator_says(game, "Zoe", "go Ann")

    assert ann.get(f"/g/{game}/live", headers={"If-None-Match": tag}).status_code == 304
    moved = spectator.get(f"/g/{game}/live?watch=1", headers={"If-None-Match": watched})
    assert moved.status_code == 200 and moved.headers["ETag"] != watched


def test_the_last_event_of_other_kinds_with_no_kind_left_out_is_the_head(service):
    from pbem.events import SpectatorTalk
    from pbem.store import log

    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.spectator_says(game, "Zoe", "hello")
    with service.db.engine.connect() as conn:
        assert log.last_but(conn, game, ()) == service.clock_of(game)["seq"] == 2
        assert log.last_but(conn, game, (SpectatorTalk,)) == 1
        assert log.last_but(conn, "no-such-game", ()) == 0
