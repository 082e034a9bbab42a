"""The one undo-aware fold over a stored log: each event with the state before and
after it; an UndoDone restores the state at its back_to (from the walk's own states,
or from the store when it reaches before the walk's base); the state at any seq is
that fold; and every event today's service stores reads back as its typed event."""

from __future__ import annotations

import pytest

from pbem.events import (
    ActionTaken,
    EventError,
    GameCreated,
    MailPreferenceChanged,
    SeatReplaced,
    TurnTimedOut,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    VacationStarted,
    decode,
    encode,
    stored_payload,
)
from pbem.games import get
from pbem.games.nim.rules import Take
from pbem.service import PlayerSpec
from pbem.store import log, states
from pbem.store.fold import Fold, MoveDoesNotFold, UndoneBeforeBase, fold

from support import token

NIM = get("nim")
GAME = "foldgame"
PLAYERS = [
    {"seat": s, "name": n, "email": None, "controller": "human", "token_sha256": "0" * 64}
    | {"token_nonce": f"n{s}"}
    for s, n in ((1, "Ann"), (2, "Ben"), (3, "Cy"))
]
CREATED = {
    "game_id": GAME,
    "game": "nim",
    "content": "-",
    "engine_version": "1",
    "players": PLAYERS,
    "options": {},
    "setup": {"pile": 20},
    "seed_sha256": None,
    "setup_chosen": True,
}
# seq 2..5: four moves; 6..9: seat 1 asks to take back everything after seq 2 (three
# moves), the others agree, it is done; 10: a mail preference; 11: the game goes on.
LOG = [
    ActionTaken(1, {"type": "take", "count": 1}),  # 2: pile 19
    ActionTaken(2, {"type": "take", "count": 2}),  # 3: pile 17
    ActionTaken(3, {"type": "take", "count": 3}),  # 4: pile 14
    TurnTimedOut(1, {"type": "take", "count": 1}, "bot_plays"),  # 5: pile 13
    UndoRequested(seat=2, back_to=2),  # 6
    UndoAnswered(seat=1, request=6, agree=True),  # 7
    UndoAnswered(seat=3, request=6, agree=True),  # 8
    UndoDone(back_to=2, asked_by=2, agreed=(1, 3)),  # 9: pile 19 again, seat 2 to move
    MailPreferenceChanged(seat=3, mail="digest", turn="digest", round="digest"),  # 10
    ActionTaken(2, {"type": "take", "count": 3}),  # 11: pile 16
]
PILES = [20, 19, 17, 14, 13, 13, 13, 13, 19, 19, 16]  # after seq 1..11


def store(conn, events=LOG) -> None:
    head = log.start(conn, GAME, CREATED, "admin", "2026-11-01T12:00:00.000000Z")
    for number, event in enumerate(events, start=2):
        type_name, _, payload = encode(event)
        at = f"2026-11-01T12:{number:02d}:00.000000Z"
        head = log.append(conn, GAME, (head.seq, head.hash), type_name, payload, "t", at)


def walk(conn, after=0, upto=None):
    return [
        (step.seq, step.envelope.type, step.before.pile, step.after.pile)
        for step in states.steps(conn, NIM, GAME, after=after, upto=upto)
    ]


def test_the_walk_shows_each_event_with_the_state_before_and_after_it(database):
    with database.writing() as conn:
        store(conn)
        assert walk(conn) == [
            (1, "GameCreated", 20, 20),
            (2, "ActionTaken", 20, 19),
            (3, "ActionTaken", 19, 17),
            (4, "ActionTaken", 17, 14),
            (5, "TurnTimedOut", 14, 13),
            (6, "UndoRequested", 13, 13),
            (7, "UndoAnswered", 13, 13),
            (8, "UndoAnswered", 13, 13),
            (9, "UndoDone", 13, 19),  # three moves taken back at once
            (10, "MailPreferenceChanged", 19, 19),
            (11, "ActionTaken", 19, 16),
        ]
        walked = list(states.steps(conn, NIM, GAME))
    assert [type(step.event) for step in walked[1:]] == [type(event) for event in LOG]
    assert [step.move for step in walked if step.move is not None] == [
        Take(1),
        Take(2),
        Take(3),
        Take(1),
        Take(3),
    ]


def test_an_undo_before_the_walks_base_restores_the_state_from_the_store(database):
    with database.writing() as conn:
        store(conn)
        assert walk(conn, after=4, upto=11) == [
            (5, "TurnTimedOut", 14, 13),
            (6, "UndoRequested", 13, 13),
            (7, "UndoAnswered", 13, 13),
            (8, "UndoAnswered", 13, 13),
            (9, "UndoDone", 13, 19),
            (10, "MailPreferenceChanged", 19, 19),
            (11, "ActionTaken", 19, 16),
        ]
        assert walk(conn, after=8, upto=9) == [(9, "UndoDone", 13, 19)]


def test_the_state_at_each_seq_is_the_fold_of_the_events_up_to_it(database):
    with database.writing() as conn:
        store(conn)
        piles = [states.state_at(conn, NIM, GAME, seq).pile for seq in range(1, 12)]
        turns = [states.state_at(conn, NIM, GAME, seq).turn for seq in (2, 5, 9, 11)]
    assert piles == PILES
    assert turns == [2, 2, 2, 3]


def test_the_fold_alone_cannot_go_back_before_its_base(database):
    with database.writing() as conn:
        store(conn)
        tail = log.events(conn, GAME, after=4)
        base = states.state_at(conn, NIM, GAME, 4)
    walked = fold(NIM, tail, 4, base)
    assert [next(walked).after.pile for _ in range(4)] == [13, 13, 13, 13]
    with pytest.raises(UndoneBeforeBase) as undone:
        next(walked)
    assert undone.value.back_to == 2


def test_a_checked_fold_names_a_stored_move_the_rules_refuse(database):
    with database.writing() as conn:
        store(
            conn,
            [
                ActionTaken(1, {"type": "take", "count": 2}),
                ActionTaken(1, {"type": "take", "count": 1}),
            ],
        )
        events = log.events(conn, GAME)
    created = events[0].event
    assert isinstance(created, GameCreated)
    walk_checked = Fold(NIM, 1, states.initial_state(NIM, created), check=True)
    walk_checked.step(events[1])
    refused = r"^seq 3: seat 1's move does not fold: not seat 1's turn$"
    with pytest.raises(MoveDoesNotFold, match=refused):
        walk_checked.step(events[2])
    trusted = Fold(NIM, 1, states.initial_state(NIM, events[0].payload))
    assert [trusted.step(e).after.pile for e in events] == [20, 18, 17]


def test_the_walk_passes_an_unreadable_event_that_moves_nothing_but_not_such_a_move(database):
    with database.writing() as conn:
        store(conn, [])
        head = log.events(conn, GAME)[-1]
        odd = {"seat": 1, "mail": "digest", "colour": "red"}  # a key no version wrote
        at = "2026-11-01T13:00:00.000000Z"
        head = log.append(conn, GAME, (head.seq, head.hash), "MailPreferenceChanged", odd, "t", at)
        move = {"seat": 1, "action": {"type": "take", "count": 2}}
        head = log.append(conn, GAME, (head.seq, head.hash), "ActionTaken", move, "t", at)
        assert walk(conn) == [
            (1, "GameCreated", 20, 20),
            (2, "MailPreferenceChanged", 20, 20),
            (3, "ActionTaken", 20, 18),
        ]
        bad = {"seat": "1", "action": {"type": "take", "count": 1}}
        log.append(conn, GAME, (head.seq, head.hash), "ActionTaken", bad, "t", at)
        with pytest.raises(EventError, match=r"^game foldgame seq 4: a ActionTaken v2 payload"):
            walk(conn)
        with pytest.raises(EventError, match=r"seq 2: a MailPreferenceChanged v2 .*colour"):
            _ = log.events(conn, GAME)[1].event


def nim_game(service, players=3, pile=30):
    return service.create_game(
        [PlayerSpec(f"P{i}", f"p{i}@example.com") for i in range(1, players + 1)],
        {"hours_per_turn": 24},
        {"pile": pile},
        game="nim",
    )


def test_every_event_the_service_stores_reads_back_as_its_typed_event(service, clock):
    created = nim_game(service)
    game_id = created.game_id
    service.submit_action(game_id, token(created, 1), "take 1", 1)
    service.submit_action(game_id, token(created, 2), "take 2", 2)
    service.undo(game_id, token(created, 1))  # 4: asked; the others must agree
    service.answer_undo(game_id, token(created, 2), True)
    service.answer_undo(game_id, token(created, 3), True)  # 6, and 7: done
    service.submit_action(game_id, token(created, 1), "take 1", 7)
    service.submit_action(game_id, token(created, 2), "take 1", 8)
    service.undo(game_id, token(created, 1))  # 10: asked again
    service.submit_action(game_id, token(created, 3), "take 1", 10)  # 11: it lapses; 12
    service.set_mail_preference(game_id, token(created, 2), "digest")
    service.take_vacation(game_id, token(created, 3), 2)
    doc = service.state_at(game_id)
    service.time_out(game_id, doc["turn"], doc["seq"])
    service.replace_seat(game_id, 1, "bot")
    service.replace_seat(game_id, 3, "human", name="Dee", email=None)
    with service.db.read() as s:
        stored = log.events(s, game_id)
    kinds = {type(e.event) for e in stored}
    assert kinds == {
        GameCreated,
        ActionTaken,
        UndoRequested,
        UndoAnswered,
        UndoDone,
        UndoLapsed,
        MailPreferenceChanged,
        VacationStarted,
        TurnTimedOut,
        SeatReplaced,
    }
    for envelope in stored:
        assert stored_payload(envelope.event) == envelope.payload, envelope.seq
        assert decode(envelope.type, envelope.payload) == envelope.event
    undone = [e.event for e in stored if isinstance(e.event, UndoDone)]
    assert undone == [UndoDone(back_to=1, asked_by=1, agreed=(2, 3))]
    replaced = [e.event for e in stored if isinstance(e.event, SeatReplaced)]
    assert [(r.seat, r.controller, r.holder and r.holder.name) for r in replaced] == [
        (1, "bot:greedy", None),
        (3, "human", "Dee"),
    ]
