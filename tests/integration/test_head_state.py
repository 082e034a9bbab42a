"""The games row keeps the rules state at intervals, not after every move: at a
game's start, every eighth event, an undo and the end. A load from it (the state
cache off) folds the few events after it and is always the fold of all the events;
migration 0007 gives existing rows the state a move would have left them and goes
back to the head's state."""

from __future__ import annotations

import json

from alembic import command
from sqlalchemy import text

from pbem.games import get
from pbem.service import Service
from pbem.store import log, migrate, states
from pbem.store.events import UndoDone
from pbem.store.projection import HEAD_STATE_EVERY

from support import play_out, token, two_players


def kept(service: Service, game_id: str) -> tuple[int, int, dict]:
    """(head_seq, state_seq, state as stored) of the game's row."""
    with service.db.reading() as conn:
        row = conn.execute(
            text("SELECT head_seq, state_seq, state FROM games WHERE id = :g"), {"g": game_id}
        ).one()
    return row.head_seq, row.state_seq, _json(row.state)


def folded(service: Service, game_id: str, seq: int) -> dict:
    """The state document at `seq` from a fold of every event from the game's start."""
    rules = get("mall")
    with service.db.reading() as conn:
        events = log.events(conn, game_id, upto=seq)
    folder = states.Folder(rules, 1, states.initial_state(rules, events[0].payload))
    for event in events[1:]:
        folder.push(event)
    return rules.dump_state(folder.state)


def loaded(service: Service, game_id: str, seq: int) -> dict:
    """The state document at `seq` as the store loads it, no cache involved."""
    rules = get("mall")
    with service.db.reading() as conn:
        return rules.dump_state(states.state_at(conn, rules, game_id, seq))


def move(service: Service, created, seq: int) -> None:
    """The seat to move takes its first legal action at `seq`."""
    state = service.state_at(created.game_id)
    seat = state["turn"]
    action = service.legal(created.game_id, seat)[0]
    service.submit_action(created.game_id, token(created, seat), action, seq)


def test_a_move_writes_the_state_only_at_every_eighth_event(service):
    created = two_players(service, {"seed": "kept"})
    game = created.game_id
    assert kept(service, game)[:2] == (1, 1)  # the start keeps its state
    for seq in range(1, 20):
        _head, _seq, before = kept(service, game)
        move(service, created, seq)
        head, state_seq, stored = kept(service, game)
        assert head == seq + 1
        if head % HEAD_STATE_EVERY == 0:
            assert state_seq == head
            assert stored != before
        else:
            assert state_seq == max(1, head - head % HEAD_STATE_EVERY)
            assert stored == before  # this move wrote no state
        # the head's state, loaded cold from the kept one, is the fold of every event
        assert loaded(service, game, head) == folded(service, game, head)


def test_an_undo_and_the_end_keep_their_state_and_every_seq_loads_as_the_fold(service):
    created = two_players(service, {"seed": "kept-undo"})
    game, ann = created.game_id, token(created, 1)
    for seq in range(1, 10):
        move(service, created, seq)  # seq 10 is the head: the row keeps seq 8
    plan = service.undo_plan(game, 1)  # Ann takes back her last move
    service.undo(game, ann)
    for seat in plan.asks:  # something drawn since: the others agree first
        service.answer_undo(game, token(created, seat), True)
    head, state_seq, _ = kept(service, game)
    with service.db.reading() as conn:
        assert isinstance(log.events(conn, game, after=head - 1)[0].event, UndoDone)
    assert state_seq == head  # the undo keeps its own state
    move(service, created, head)
    assert kept(service, game)[1] == head  # the next move wrote none
    play_out(service, created)
    head, state_seq, _ = kept(service, game)
    assert service.state_at(game)["turn"] is None
    assert state_seq == head  # the end keeps its state
    for seq in range(1, head + 1):
        assert loaded(service, game, seq) == folded(service, game, seq), seq
    assert service.verify(game) == []


def test_a_state_kept_by_another_rules_version_is_not_used(service):
    created = two_players(service, {"seed": "kept-version"})
    for seq in range(1, 11):
        move(service, created, seq)
    game = created.game_id
    with service.db.writing() as conn:  # a state an older engine wrote, unreadable now
        conn.execute(
            text("UPDATE games SET engine_version = 'old', state = '{}' WHERE id = :g"),
            {"g": game},
        )
    assert loaded(service, game, 11) == folded(service, game, 11)


def test_migration_0007_keeps_what_a_move_would_and_goes_back_to_the_heads_state(service, database):
    created = two_players(service, {"seed": "kept-migration"})
    for seq in range(1, 11):
        move(service, created, seq)
    finished = two_players(service, {"seed": "kept-finished"})
    play_out(service, finished)
    game = created.game_id
    rows = {g: kept(service, g) for g in (game, finished.game_id)}
    assert rows[game][:2] == (11, 8)
    config = migrate.alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
    with database.engine.connect() as connection:
        heads = dict(connection.execute(text("SELECT id, state FROM games")).all())
        assert "state_seq" not in list(connection.exec_driver_sql("SELECT * FROM games").keys())
    # revision 0006 reads each row's state as the head's
    assert get("mall").load_state(_json(heads[game])) is not None
    assert _json(heads[game]) == folded(service, game, 11)
    assert _json(heads[finished.game_id]) == rows[finished.game_id][2]

    migrate.upgrade(database)

    assert migrate.current_revision(database) == "0007"
    assert migrate.differences(database) == []
    assert {g: kept(service, g) for g in rows} == rows
    assert service.verify(game) == []
    assert service.verify(finished.game_id) == []


def _json(value: object) -> object:
    """A JSON column's value read without its type: text on SQLite, parsed on
    PostgreSQL."""
    return json.loads(value) if isinstance(value, str) else value
