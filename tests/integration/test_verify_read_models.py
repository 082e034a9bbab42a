"""`verify` checks the read models against the events, not only the head pointer:
the games row, each seat's row and each snapshot are recomputed from the events
and every difference is one line; a sound game gives none."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from pbem.service import NotFound, PlayerSpec

from support import token, two_players


def played(service) -> str:
    """A mall game of nine events (snapshots every 5 in the test settings): moves,
    a mail preference, a vacation that moves the deadline, an undo agreed to."""
    created = two_players(service, {"seed": "verify"})
    game, ann, ben = created.game_id, token(created, 1), token(created, 2)
    service.submit_action(game, ann, "money L", 1)  # seq 2
    service.submit_action(game, ben, "money R", 2)  # seq 3
    service.set_mail_preference(game, ben, "digest")  # seq 4
    service.take_vacation(game, ann, 2)  # seq 5: a snapshot; Ann's deadline moves
    service.submit_action(game, ann, "money L", 5)  # seq 6
    service.undo(game, ann)  # seq 7: a tile was drawn, so Ben is asked
    service.answer_undo(game, ben, True)  # seq 8 agrees, seq 9 takes it back to 5
    return game


def corrupt(service, sql: str, **values) -> None:
    with service.db.writing() as conn:
        assert conn.execute(text(sql), values).rowcount == 1


def test_a_sound_game_has_nothing_to_report(service):
    game = played(service)
    assert service.verify(game) == []


def test_a_games_row_that_disagrees_with_the_events_is_reported_column_by_column(service):
    game = played(service)
    row = service.games()[0]
    assert (row.turn, row.round) == (1, 2)
    corrupt(service, "UPDATE games SET turn = 2, round = 3 WHERE id = :g", g=game)
    assert service.verify(game) == [
        "games row: turn is 2, the events give 1",
        "games row: round is 3, the events give 2",
    ]


def test_a_wrong_deadline_status_or_head_is_reported(service):
    game = played(service)
    deadline = service.games()[0].deadline_at
    corrupt(
        service,
        "UPDATE games SET deadline_at = '2030-01-01T00:00:00Z', status = 'finished', "
        "head_seq = 8 WHERE id = :g",
        g=game,
    )
    assert service.verify(game) == [
        "games row: status is 'finished', the events give 'playing'",
        "games row: head_seq is 8, the events give 9",
        f"games row: deadline_at is '2030-01-01T00:00:00Z', the events give {deadline!r}",
    ]


def test_a_missing_games_row_is_reported_for_a_game_whose_events_exist(service):
    game = played(service)
    corrupt(service, "DELETE FROM games WHERE id = :g", g=game)
    assert service.verify(game) == ["games row: missing"]
    with pytest.raises(NotFound):  # no events either: no such game
        service.verify("a" * 16)


def test_a_seat_row_the_events_never_gave_is_reported(service):
    game = played(service)
    corrupt(
        service,
        "INSERT INTO seats (game_id, seat, name, email, token_sha256, token_nonce, controller,"
        " timeouts, mail, language, vacation_days_used) VALUES (:g, 3, 'Cy', NULL, :t, 'n',"
        " 'human', 0, 'every', 'en', 0)",
        g=game,
        t="f" * 64,
    )
    assert service.verify(game) == ["seat 3: the events give no such row"]


def test_a_head_state_that_is_not_the_folded_state_is_reported(service):
    game = played(service)
    service.submit_action(game, token_of(service, game, 1), "money R", 9)  # seq 10
    corrupt(  # the head state of seq 10 replaced by the snapshot of seq 5
        service,
        "UPDATE games SET state = (SELECT state FROM snapshots WHERE game_id = :g AND seq = 5) "
        "WHERE id = :g",
        g=game,
    )
    assert service.verify(game) == ["games row: state is not what the events give"]


def token_of(service, game: str, seat: int) -> str:
    return next(s.token for s in service.seat_links(game) if s.seat == seat)


@pytest.mark.parametrize(
    ("sql", "line"),
    [
        (
            "UPDATE seats SET name = 'Mallory' WHERE game_id = :g AND seat = 2",
            "seat 2: name is 'Mallory', the events give 'Ben'",
        ),
        (
            "UPDATE seats SET mail = 'every' WHERE game_id = :g AND seat = 2",
            "seat 2: mail is 'every', the events give 'digest'",
        ),
        (
            "UPDATE seats SET language = 'de' WHERE game_id = :g AND seat = 2",
            "seat 2: language is 'de', the events give 'en'",
        ),
        (
            "UPDATE seats SET vacation_days_used = 0 WHERE game_id = :g AND seat = 1",
            "seat 1: vacation_days_used is 0, the events give 2",
        ),
        (
            "UPDATE seats SET controller = 'bot:x' WHERE game_id = :g AND seat = 1",
            "seat 1: controller is 'bot:x', the events give 'human'",
        ),
        ("DELETE FROM seats WHERE game_id = :g AND seat = 2", "seat 2: missing"),
    ],
)
def test_a_seat_row_that_disagrees_with_the_events_is_reported(service, sql, line):
    game = played(service)
    corrupt(service, sql, g=game)
    assert service.verify(game) == [line]


def test_a_snapshot_that_is_not_the_state_at_its_seq_is_reported(service):
    game = played(service)
    service.submit_action(game, token_of(service, game, 1), "money R", 9)  # seq 10: a snapshot
    assert service.verify(game) == []
    with service.db.writing() as conn:  # the snapshot of seq 10 holds the state of seq 5
        conn.execute(
            text(
                "UPDATE snapshots SET state = (SELECT state FROM snapshots s "
                "WHERE s.game_id = :g AND s.seq = 5) WHERE game_id = :g AND seq = 10"
            ),
            {"g": game},
        )
    assert service.verify(game) == ["snapshot at seq 10: its state is not the one the events give"]


def test_verify_leaves_the_read_models_as_it_found_them(service):
    game = played(service)
    corrupt(service, "UPDATE seats SET name = 'Mallory' WHERE game_id = :g AND seat = 2", g=game)
    service.verify(game)
    with service.db.writing() as conn:
        name = conn.execute(
            text("SELECT name FROM seats WHERE game_id = :g AND seat = 2"), {"g": game}
        ).scalar()
    assert name == "Mallory"  # verify reports; `pbem db rebuild` repairs


def test_timeouts_new_holders_and_bots_are_no_difference(service):
    created = two_players(service, {"seed": "holders"}, timeout_policy="replace", replace_after=1)
    game = created.game_id
    service.time_out(game, 1, 1)  # seq 2, and seq 3: a bot takes seat 1 for good
    service.replace_seat(game, 2, "human", name="Cy", email="cy@example.com")  # seq 4
    service.play_bots(game)
    nim = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="random")],
        None,
        {"pile": 7},
        game="nim",
    )
    service.submit_action(nim.game_id, token(nim, 1), "take 1", 1)
    service.play_bots(nim.game_id)
    assert service.verify(game) == []
    assert service.verify(nim.game_id) == []
