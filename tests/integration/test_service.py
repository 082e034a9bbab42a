"""The game service, on SQLite and PostgreSQL: creating games, moves checked by the
rules, stale and repeated submits, seat tokens, history, mails in the outbox,
timeouts, bots and replaced seats."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from sqlmodel import select

from pbem.games import GAMES, NAMES
from pbem.games.mall import apply, parse, setup
from pbem.service import BadRequest, Forbidden, Illegal, PlayerSpec, Stale
from pbem.service.tokens import token_hash
from pbem.store import log
from pbem.store.tables import Outbox, Seat

from support import SHORT, outbox, play_out, token, two_players


def test_a_new_game_stores_token_hashes_and_the_seed_hash_never_a_token(service):
    created = two_players(service, {"seed": "the seed"})
    with service.db.read() as s:
        payload = log.created(s, created.game_id).payload
    assert payload["seed_sha256"] == hashlib.sha256(b"the seed").hexdigest()
    assert [p["token_sha256"] for p in payload["players"]] == [
        token_hash(token(created, 1)),
        token_hash(token(created, 2)),
    ]
    assert token(created, 1) not in str(payload) and token(created, 2) not in str(payload)
    assert outbox(service, created.game_id) == [
        (1, "invitation", 1, "ann@example.com"),
        (1, "invitation", 2, "ben@example.com"),  # Ann's tells her first turn too
    ]


def test_a_legal_move_gets_the_next_seq_and_the_next_player_is_mailed(service):
    created = two_players(service, SHORT)
    accepted = service.submit_action(created.game_id, token(created, 1), "build L1 at 0,2", 1)
    assert (accepted.seq, accepted.seat, accepted.action) == (2, 1, "build L1 at 0,2")
    assert accepted.narration == (
        "Burger Bar (Y01) from L1 at 0,2;"
        " a customer wanting food moves from the Main Entrance to Burger Bar (Y01)"
    )
    assert outbox(service, created.game_id)[-1] == (2, "your_turn", 2, "ben@example.com")
    doc = service.state_at(created.game_id)
    assert (doc["seq"], doc["turn"], doc["head_hash"]) == (2, 2, accepted.head_hash)


def test_an_illegal_move_is_refused_with_the_rule_and_changes_nothing(service):
    created = two_players(service, SHORT)
    with pytest.raises(Illegal) as refused:
        service.submit_action(created.game_id, token(created, 1), "build L2 at 0,5", 1)
    assert refused.value.message == "(0,5) would float: nothing below supports it"
    assert refused.value.status == 422 and refused.value.detail == {"rule": "6"}
    with pytest.raises(Illegal, match='cannot read "fly away"'):
        service.submit_action(created.game_id, token(created, 1), "fly away", 1)
    assert service.state_at(created.game_id)["seq"] == 1
    assert len(outbox(service, created.game_id)) == 2  # the opening mails only


def test_a_stale_submit_is_refused_with_what_happened_since(service):
    created = two_players(service, SHORT)
    service.submit_action(created.game_id, token(created, 1), "money L", 1)
    service.submit_action(created.game_id, token(created, 2), "money R", 2)
    with pytest.raises(Stale) as stale:
        service.submit_action(created.game_id, token(created, 1), "money L", 2)
    assert stale.value.status == 409
    assert stale.value.head == 3
    assert [(h.seq, h.seat, h.text) for h in stale.value.since] == [
        (3, 2, "Ben played Burger Bar (Y02) from R1 as money, gaining 1 note")
    ]
    assert "you saw seq 2, it is now at seq 3" in stale.value.message


def test_the_same_idempotency_key_gives_the_first_answer_and_stores_nothing(service):
    created = two_players(service, SHORT)
    first = service.submit_action(created.game_id, token(created, 1), "money L", 1, "key-1")
    again = service.submit_action(created.game_id, token(created, 1), "money L", 1, "key-1")
    assert (again.seq, again.action, again.head_hash, again.replayed) == (
        first.seq,
        first.action,
        first.head_hash,
        True,
    )
    assert service.state_at(created.game_id)["seq"] == 2


def test_a_seat_token_acts_only_for_its_own_seat_and_game(service):
    game = two_players(service, SHORT)
    other = two_players(service, SHORT)
    with pytest.raises(Illegal, match="not seat 2's turn"):
        service.submit_action(game.game_id, token(game, 2), "money L", 1)
    with pytest.raises(Forbidden, match="belongs to another game"):
        service.submit_action(game.game_id, token(other, 1), "money L", 1)
    with pytest.raises(Forbidden, match="not valid"):
        service.submit_action(game.game_id, "made-up-token", "money L", 1)
    with pytest.raises(Forbidden, match="personal link"):
        service.submit_action(game.game_id, "", "money L", 1)
    assert service.state_at(game.game_id)["seq"] == 1


def test_the_state_at_any_seq_is_the_fold_of_the_events_up_to_it(service):
    created = two_players(service, {"seed": "history"})
    texts = []
    for _ in range(12):  # past two snapshot checkpoints (every 5 events here)
        doc = service.state_at(created.game_id)
        text = service.legal(created.game_id, doc["turn"])[-1]
        service.submit_action(created.game_id, token(created, doc["turn"]), text, doc["seq"])
        texts.append(text)
    state = setup(["Ann", "Ben"], seed="history")
    for seq, text in enumerate(texts, start=2):
        state = apply(state, parse(text))
        doc = service.state_at(created.game_id, seq)
        assert doc["seq"] == seq
        assert doc["turn"] == state.turn and doc["bank"] == state.bank
        assert [p["money"] for p in doc["players"]] == [p.money for p in state.players]
        assert doc["dispenser"]["L"] == list(state.dispenser[0])


def test_the_end_of_a_round_goes_in_the_turn_mails_and_the_end_mails_everyone(service):
    created = two_players(service, SHORT)
    play_out(service, created)
    kinds = [(kind, seat) for _, kind, seat, _ in outbox(service, created.game_id)]
    # SHORT leaves 4 tiles in the supply and each seat's first legal action is money L,
    # one draw a turn: seat 2 draws the last in round 2 (trigger A), which ends the game
    # there, so one round ends before the game does: its scores ride in the turn
    # mails (both seats get every turn mail), with no round mail of its own
    assert kinds.count(("round_scored", 1)) == kinds.count(("round_scored", 2)) == 0
    # seat 1's first turn is told in its invitation
    assert kinds.count(("your_turn", 1)) + 1 == kinds.count(("your_turn", 2)) == 2
    assert kinds[-2:] == [("game_over", 1), ("game_over", 2)]
    doc = service.state_at(created.game_id)
    assert doc["status"] == "finished" and doc["turn"] is None


def test_people_who_once_held_a_seat_are_told_the_end_in_the_language_they_chose(service):
    players = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
    created = service.create_game(players, None, SHORT)
    game = created.game_id
    service.set_language(game, token(created, 1), "de")  # Ann's own choice
    # Dora reads German too, the seat's language already (so no choice is recorded)
    service.replace_seat(game, 1, "human", name="Dora", email="dora@example.com", language="de")
    eve = service.replace_seat(game, 1, "human", name="Eve", email="eve@example.com").token
    # Ben chose nothing; Cat, who reads German, takes his seat, then a bot takes hers
    service.replace_seat(game, 2, "human", name="Cat", email="cat@example.com", language="de")
    service.replace_seat(game, 2, "bot")
    while (state := service.state_at(game))["turn"] is not None:
        if state["turn"] == 1:
            service.submit_action(game, eve, service.legal(game, 1)[0], state["seq"])
        else:
            service.play_bots(game)
    with service.db.read() as s:
        over = s.exec(
            select(Outbox.address, Outbox.seat, Outbox.language).where(
                Outbox.game_id == game, Outbox.kind == "game_over"
            )
        ).all()
    assert sorted(over, key=lambda row: row[0]) == [
        ("ann@example.com", None, "de"),
        ("ben@example.com", None, "en"),
        ("cat@example.com", None, "de"),
        ("dora@example.com", None, "de"),
        ("eve@example.com", 1, "en"),
    ]


def test_a_timeout_lets_the_greedy_bot_play_and_is_refused_once_the_game_moved(service):
    created = two_players(service, SHORT)
    accepted = service.time_out(created.game_id, 1, expected_seq=1)
    assert accepted.seq == 2 and accepted.seat == 1
    with service.db.read() as s:
        event = log.events(s, created.game_id, after=1)[0]
        seat = s.get(Seat, (created.game_id, 1))
    assert event.type == "TurnTimedOut" and event.payload["policy"] == "bot_plays"
    assert event.actor == "system" and seat.timeouts == 1 and seat.controller == "human"
    assert (2, "timed_out", 1, "ann@example.com") in outbox(service, created.game_id)
    with pytest.raises(Stale):
        service.time_out(created.game_id, 1, expected_seq=1)  # a second sweep: no effect
    assert service.state_at(created.game_id)["seq"] == 2


def test_under_the_replace_policy_a_bot_takes_the_seat_after_enough_timeouts(service):
    created = two_players(service, {"seed": "timeouts"}, timeout_policy="replace", replace_after=2)
    for _ in range(2):
        doc = service.state_at(created.game_id)
        service.time_out(created.game_id, 1, doc["seq"])
        doc = service.state_at(created.game_id)
        service.submit_action(created.game_id, token(created, 2), "money L", doc["seq"])
    with service.db.read() as s:
        seat = s.get(Seat, (created.game_id, 1))
        types = [e.type for e in log.events(s, created.game_id)]
    assert seat.controller == "bot:greedy" and seat.timeouts == 2
    assert types[-2:] == ["SeatReplaced", "ActionTaken"]
    with pytest.raises(Forbidden):  # the seat's old link no longer plays
        service.submit_action(created.game_id, token(created, 1), "money L")
    played = service.play_bots(created.game_id)
    assert [a.seat for a in played] == [1]


def test_a_seat_handed_to_a_new_person_gets_a_new_link_and_the_old_one_dies(service):
    created = two_players(service, SHORT)
    link = service.replace_seat(created.game_id, 1, "human", name="Cy", email="cy@example.com")
    assert link.token and link.token != token(created, 1)
    with pytest.raises(Forbidden):
        service.submit_action(created.game_id, token(created, 1), "money L", 2)
    assert service.submit_action(created.game_id, link.token, "money L", 2).seq == 3
    assert outbox(service, created.game_id)[2] == (2, "invitation", 1, "cy@example.com")
    assert service.state_at(created.game_id)["players"][0]["name"] == "Ann"  # the rules' name
    with service.db.read() as s:
        assert s.exec(select(Seat.name).where(Seat.game_id == created.game_id)).all() == [
            "Cy",
            "Ben",
        ]


def test_the_new_holder_of_the_seat_to_move_is_told_it_is_their_turn(service):
    created = two_players(service, SHORT)  # seat 1 is to move
    service.replace_seat(created.game_id, 1, "human", name="Cy", email="cy@example.com")
    # the invitation tells the turn: it is the new holder's turn mail too
    assert outbox(service, created.game_id)[-2:] == [
        (1, "invitation", 2, "ben@example.com"),
        (2, "invitation", 1, "cy@example.com"),
    ]
    service.replace_seat(created.game_id, 2, "human", name="Di", email="di@example.com")
    assert outbox(service, created.game_id)[-1] == (3, "invitation", 2, "di@example.com")


def test_bot_seats_play_by_the_service_and_never_get_mail(service):
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")], None, SHORT
    )
    assert created.seats[1].token is None
    service.submit_action(created.game_id, token(created, 1), "money L", 1)
    played = service.play_bots(created.game_id)
    assert [(a.seq, a.seat) for a in played] == [(3, 2)]
    assert all(seat == 1 for _, _, seat, _ in outbox(service, created.game_id))


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        ([PlayerSpec("Ann")], None, "setup: the game takes 2 to 4 players, not 1"),
        ([PlayerSpec("Ann", "not-an-address"), PlayerSpec("Ben")], None, "is not an email"),
        ([PlayerSpec(""), PlayerSpec("Ben")], None, "every player needs a name"),
        ([PlayerSpec("A"), PlayerSpec("B", bot="clever")], None, "unknown bot 'clever'"),
        ([PlayerSpec("A"), PlayerSpec("B")], {"hours": 3}, "unknown options: hours"),
        ([PlayerSpec("A"), PlayerSpec("B")], {"hours_per_turn": 0}, "hours_per_turn is"),
    ],
)
def test_a_game_that_cannot_be_created_is_refused_with_the_reason(
    service, players, options, message
):
    with pytest.raises(BadRequest, match=message):
        service.create_game(players, options)
    assert service.games() == []


@pytest.fixture
def nim_with_other_bots(monkeypatch):
    """The nim plugin as a game whose only bot, and timeout bot, is "random": the
    service must take a game's bots from its plugin, never from a list of its own."""
    plugin = GAMES["nim"]
    monkeypatch.setitem(
        GAMES._loaded, "nim", replace(plugin, bots=("random",), timeout_bot="random")
    )
    return plugin.rules


def test_a_games_bots_and_timeout_bot_come_from_its_plugin(service, nim_with_other_bots):
    people = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
    with pytest.raises(BadRequest, match="unknown bot 'greedy': bots are random"):
        service.create_game([people[0], PlayerSpec("Robo", bot="greedy")], game="nim")
    created = service.create_game(
        people, {"timeout_policy": "replace", "replace_after": 1}, {"pile": 9}, game="nim"
    )
    accepted = service.time_out(created.game_id, 1, expected_seq=1)
    chosen = nim_with_other_bots.bot("random", f"{created.game_id}/1")(
        nim_with_other_bots.setup(["Ann", "Ben"], {"pile": 9}), 1
    )
    assert accepted.action == nim_with_other_bots.format(chosen)
    with service.db.read() as s:
        assert s.get(Seat, (created.game_id, 1)).controller == "bot:random"
    link = service.replace_seat(created.game_id, 2, "bot")  # the game's first bot
    assert link.token is None
    with service.db.read() as s:
        assert s.get(Seat, (created.game_id, 2)).controller == "bot:random"


def test_a_game_created_without_naming_one_is_the_registrys_first(service):
    created = service.create_game([PlayerSpec("Ann"), PlayerSpec("Ben")])
    assert service.games()[0].game == NAMES[0]
    assert service.state_at(created.game_id)["seq"] == 1


def test_a_given_setup_marks_only_a_game_that_hides_something(service):
    people = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
    pile = service.create_game(people, setup={"pile": 30}, game="nim").game_id
    dealt = service.create_game(people, setup={"seed": "x" * 48}, game="mall").game_id
    drawn = service.create_game(people, game="mall").game_id
    # a pile of 30 is there for all to see; a chosen seed decides the hidden supply
    assert [service.setup_chosen(g) for g in (pile, dealt, drawn)] == [False, True, False]
    imported = service.import_log(service.export_log(pile), actor="import").game_id
    assert service.setup_chosen(imported) is False
