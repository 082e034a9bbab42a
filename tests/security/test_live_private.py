"""A seat's private choices (its mail preference, its language) tell nobody else
that anything happened: a spectator's live poll and the other seat's answer the
same seq and tag after them as before (a 304 to a conditional poll), and the other
seat's move, made with the seq its page showed, still stands."""

from __future__ import annotations

import pytest

from support import SHORT, token, two_players


def _polls(app, game_id: str, created) -> dict[str, object]:
    """Each viewer's poll client: the spectator's and each seat's (signed in)."""
    spectator = app.test_client()
    seats = {}
    for seat in (1, 2):
        client = app.test_client()
        client.get(f"/g/{game_id}/{token(created, seat)}")
        seats[seat] = client
    return {"spectator": spectator, "ann": seats[1], "ben": seats[2]}


def _answer(client, game_id: str, who: str):
    url = f"/g/{game_id}/live" + ("?watch=1" if who == "spectator" else "")
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.json["seq"], answer.json["tag"], answer.headers["ETag"], url


@pytest.mark.parametrize(
    "private",
    [
        lambda s, g, c: s.set_language(g, token(c, 2), "de"),
        lambda s, g, c: s.set_mail_preference(g, token(c, 2), "digest"),
    ],
    ids=["language", "mail preference"],
)
def test_a_private_choice_changes_no_one_elses_live_poll(make_web, private):
    app, parts = make_web()
    service = parts.service
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    service.say(game, token(created, 1), "hello")
    clients = _polls(app, game, created)
    before = {who: _answer(c, game, who) for who, c in clients.items() if who != "ben"}

    private(service, game, created)
    private(service, game, created)

    for who, (seq, tag, etag, url) in before.items():
        again = clients[who].get(url)
        assert (again.json["seq"], again.json["tag"], again.headers["ETag"]) == (seq, tag, etag)
        assert clients[who].get(url, headers={"If-None-Match": etag}).status_code == 304
    assert before["spectator"][0] == before["ann"][0] == 2  # the last event they may see


def test_the_other_seats_move_with_the_seq_it_saw_stands_after_a_private_choice(service):
    created = two_players(service, SHORT, public=True)
    game = created.game_id
    seen = service.clock_of(game, 1)["seq"]
    assert seen == service.state_at(game, seat=1)["seq"]
    service.set_language(game, token(created, 2), "de")
    service.set_mail_preference(game, token(created, 2), "none")
    accepted = service.submit_action(game, token(created, 1), "money L", seen)
    assert accepted.seq == seen + 3
