"""Abuse of resigning and the rematch: any text as a token, another game's link,
another seat's link, hostile form values; none resigns a seat, offers or answers a
rematch for anyone, changes a game, or mails an address that did not ask."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.service import BadRequest, Forbidden, PlayerSpec, ServiceError

from abuse import examples
from support import csrf, outbox, play_out

PEOPLE = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]


def nim(service, people=PEOPLE):
    return service.create_game(people, None, {"pile": 5}, game="nim")


UNMAILED = [PlayerSpec("Ann"), PlayerSpec("Ben")]  # many games: no invitation limit


@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(token=st.text(max_size=120))
def test_no_text_resigns_or_answers_for_a_seat(service, token):
    made = nim(service, UNMAILED)
    over = nim(service, UNMAILED)
    play_out(service, over)
    service.offer_rematch(over.game_id, over.seats[0].token)
    heads = (service.state_at(made.game_id)["seq"], service.state_at(over.game_id)["seq"])
    for call in (
        lambda: service.resign(made.game_id, token),
        lambda: service.offer_rematch(over.game_id, token),
        lambda: service.answer_rematch(over.game_id, token, True),
        lambda: service.answer_rematch(over.game_id, token, False),
    ):
        with pytest.raises(Forbidden):
            call()
    assert (service.state_at(made.game_id)["seq"], service.state_at(over.game_id)["seq"]) == heads


def test_a_seat_acts_for_itself_only_and_the_rematch_mails_only_the_table(service):
    over = nim(service)
    play_out(service, over)
    stranger = service.create_game(
        [PlayerSpec("Eve", "eve@example.com"), PlayerSpec("Mal", "mal@example.com")],
        None,
        {"pile": 5},
        game="nim",
    )
    with pytest.raises(Forbidden):  # a link of another game, even a finished one's
        service.answer_rematch(over.game_id, stranger.seats[0].token, True)
    service.offer_rematch(over.game_id, over.seats[1].token)
    with pytest.raises(BadRequest):  # Ben's offer is Ben's acceptance; no second offer
        service.offer_rematch(over.game_id, over.seats[0].token)
    offer = service.rematch_status(over.game_id, 1)["offer"]
    assert offer.by == 2 and offer.accepted == {2}
    started = service.answer_rematch(over.game_id, over.seats[0].token, True)
    again = service.answer_rematch(over.game_id, over.seats[0].token, True)
    assert started.new_game_id == again.new_game_id
    addresses = {to for _, _, _, to in outbox(service, started.new_game_id)}
    addresses |= {to for _, _, _, to in outbox(service, over.game_id)}
    assert addresses == {"ann@example.com", "ben@example.com"}
    with pytest.raises(ServiceError):  # the rematch started: declining it now is refused
        service.answer_rematch(over.game_id, over.seats[1].token, False)


@pytest.mark.parametrize("accept", ["", "yes\x00", "YES", "1", "true", "x" * 5000])
def test_a_hostile_answer_on_the_page_never_accepts(web, accept):
    app, parts = web
    over = nim(parts.service)
    play_out(parts.service, over)
    parts.service.offer_rematch(over.game_id, over.seats[0].token)
    ben = app.test_client()
    ben.get(f"/g/{over.game_id}/{over.seats[1].token}")
    form = {"csrf_token": csrf(ben, f"/g/{over.game_id}"), "accept": accept}
    answer = ben.post(f"/g/{over.game_id}/rematch/answer", data=form)
    assert answer.status_code in (302, 400)
    offer = parts.service.rematch_status(over.game_id, 2)["offer"]
    assert offer.new_game_id is None and 2 not in offer.accepted
