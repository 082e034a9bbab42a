"""What a move writes, on SQLite and PostgreSQL: one transaction that is all or
nothing (an error or a crash in the middle leaves the game as it was), writers that
queue at BEGIN on SQLite, reads that see one moment, stored states that equal the
fold of the events, and JSON columns that read back exactly what was written."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Text, bindparam, cast, func, select, update
from sqlalchemy.exc import IntegrityError

from pbem.events.jsontext import json_text, load_json
from pbem.games import get
from pbem.service import PlayerSpec
from pbem.store import log, migrate, states
from pbem.store.database import Database, Statement, state_text
from pbem.store.fold import Fold
from pbem.store.tables import Game, Outbox, Seat, core_table

from support import play_out, token, two_players

EVENTS = log.EVENTS
GAMES, SEATS, OUTBOX = core_table(Game), core_table(Seat), core_table(Outbox)
ROOT = Path(__file__).resolve().parents[2]


def _count_events(conn, game_id: str) -> int:
    return conn.execute(select(func.count()).where(EVENTS.c.game_id == game_id)).scalar_one()


def _head_seq(conn, game_id: str) -> int:
    return conn.execute(select(GAMES.c.head_seq).where(GAMES.c.id == game_id)).scalar_one()


def test_a_write_that_fails_leaves_nothing(service):
    created = two_players(service)
    game_id = created.game_id
    with pytest.raises(RuntimeError), service.db.writing() as conn:
        log.append(conn, game_id, (1, "0" * 64), "UndoLapsed", {"seat": 1}, "test", "x")
        assert _count_events(conn, game_id) == 2
        raise RuntimeError("a failure after the first write")
    with service.db.reading() as conn:
        assert _count_events(conn, game_id) == 1


def test_two_events_at_one_seq_is_sqlalchemys_integrity_error(database):
    """The unique (game_id, seq) refuses the second writer as SQLAlchemy's
    IntegrityError (what the service's race handling catches), not the driver's."""
    with database.writing() as conn:
        log.append(conn, "g1", (0, "0" * 64), "UndoLapsed", {"seat": 1}, "a", "t")
    with pytest.raises(IntegrityError), database.writing() as conn:
        log.append(conn, "g1", (0, "0" * 64), "UndoLapsed", {"seat": 2}, "b", "t")
    with database.reading() as conn:
        assert [e.payload["seat"] for e in log.events(conn, "g1")] == [1]


def test_a_move_that_crashes_midway_is_not_stored(service, database_url, tmp_path):
    """The process dies after the move's rows are written and before its commit:
    nothing of it is kept, the chain holds, and the same move can be played again."""
    created = two_players(service)
    game_id, seat_token = created.game_id, token(created, 1)
    action = service.legal(game_id, 1)[0]
    crash = textwrap.dedent(
        """
        import os, sys
        from pbem.config import load_settings
        from pbem.service import Service
        from pbem.store import projection
        from pbem.store.database import Database

        url, game_id, seat_token, action = sys.argv[1:]
        written = projection.project

        def project_then_die(*args, **kwargs):
            head = written(*args, **kwargs)
            os._exit(3)  # every row of the move is written; the commit never comes

        projection.project = project_then_die
        settings = load_settings({}, database_url=url, secret_key="test-secret")
        Service(Database(url), settings).submit_action(game_id, seat_token, action, 1)
        """
    )
    script = tmp_path / "crash.py"
    script.write_text(crash)
    died = subprocess.run(
        [sys.executable, str(script), database_url, game_id, seat_token, action],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert died.returncode == 3, died.stderr
    with service.db.reading() as conn:
        assert _count_events(conn, game_id) == 1
        assert _head_seq(conn, game_id) == 1
    assert service.verify(game_id) == []
    accepted = service.submit_action(game_id, seat_token, action, 1)
    assert accepted.seq == 2
    assert service.verify(game_id) == []


def test_stored_states_are_the_fold_of_the_events(service, settings):
    """The head's state in the games row and every snapshot equal the fold of the
    events from GameCreated (snapshot_every is 5 here, so a game has many)."""
    created = two_players(service)
    play_out(service, created)
    game_id = created.game_id
    rules = get("mall")
    with service.db.reading() as conn:
        events = log.events(conn, game_id)
        walk = Fold(rules, 1, states.initial_state(rules, events[0].payload))
        folded = {1: walk.state}
        for event in events[1:]:
            walk.step(event)
            folded[event.seq] = walk.state
        head = conn.execute(select(GAMES.c.head_seq, GAMES.c.state).where(GAMES.c.id == game_id))
        head_seq, head_state = head.one()
        assert head_seq == len(events)
        assert head_state == rules.dump_state(folded[head_seq])
        snapshots = conn.execute(
            select(states.SNAPSHOTS.c.seq, states.SNAPSHOTS.c.state).where(
                states.SNAPSHOTS.c.game_id == game_id
            )
        ).all()
        assert [seq for seq, _ in snapshots] == [
            s for s in range(1, head_seq + 1) if s % settings.snapshot_every == 0
        ]
        for seq, state in snapshots:
            assert state == rules.dump_state(folded[seq])
        for seq in (1, 2, head_seq // 2, head_seq - 1, head_seq):
            assert rules.dump_state(states.state_at(conn, rules, game_id, seq)) == (
                rules.dump_state(folded[seq])
            )
    assert service.verify(game_id) == []


def test_event_payloads_read_back_exactly(database):
    """What orjson reads differently from the standard library (integers past 64
    bits, lone surrogates cannot be stored at all) still reads back as written."""
    payload = {
        "big": 2**70,
        "negative": -(2**65),
        "almost": 123456789012345678,
        "float": 0.1,
        "text": 'snow \u2603, quote ", backslash \\, tab \t',
        "nested": {"list": [1, [2, [3, {"deep": None}]]], "empty": {}},
        "flag": True,
    }
    with database.writing() as conn:
        written = log.append(conn, "g1", (0, "0" * 64), "UndoLapsed", payload, "test", "t")
    with database.reading() as conn:
        (read,) = log.events(conn, "g1")
    assert read.payload == written.payload
    assert read.payload["big"] == 2**70 and isinstance(read.payload["big"], int)
    assert read.hash == written.hash


def test_a_prebuilt_statement_reads_what_core_reads(service):
    """Every column of a game's row and its seats (JSON, booleans, nulls, text)
    read through a Statement equals the same select run by Core."""
    created = two_players(service, public=True, hours_per_turn=24)
    game_id = created.game_id
    games = select(GAMES).where(GAMES.c.id == bindparam("g"))
    seats = select(SEATS).where(SEATS.c.game_id == bindparam("g"))
    with service.db.reading() as conn:
        by_core = conn.execute(games, {"g": game_id}).one()._asdict()
        by_statement = Statement(games).first(conn, {"g": game_id})._asdict()
        assert by_statement == by_core
        assert by_statement["public"] is True and by_statement["options"]["public"] is True
        core_seats = [r._asdict() for r in conn.execute(seats, {"g": game_id})]
        assert [r._asdict() for r in Statement(seats).rows(conn, {"g": game_id})] == core_seats
        assert Statement(games).first(conn, {"g": "nosuchgame"}) is None


def test_a_prebuilt_statement_holds_its_own_values(service):
    """A statement's own values (`column == "pending"`, an IN of values each its own
    bindparam, a SET of a constant and of NULL) go to the driver as Core sends them,
    on both databases; an UPDATE ... RETURNING gives its columns converted as Core
    gives them. An IN of a list (whose SQL changes with the list) is refused."""
    two_players(service)  # with addresses: its invitations are pending
    with service.db.reading() as conn:
        pending = conn.execute(select(OUTBOX.c.id).order_by(OUTBOX.c.id)).scalars().all()
    assert len(pending) >= 2
    first, second = pending[0], pending[1]
    choose = select(OUTBOX.c.id, OUTBOX.c.payload).where(
        OUTBOX.c.id == bindparam("row"),
        OUTBOX.c.status == "pending",
        OUTBOX.c.attempts < 8,
        OUTBOX.c.channel.in_([bindparam("c0", "chat"), bindparam("c1", "email")]),
    )
    change = (
        update(OUTBOX)
        .where(OUTBOX.c.id == bindparam("row"), OUTBOX.c.status == "pending")
        .values(status="sending", attempts=OUTBOX.c.attempts + 1, last_error=None)
        .returning(*OUTBOX.c)
    )
    with service.db.writing() as conn:
        core = conn.execute(choose, {"row": first}).one()._asdict()
        assert Statement(choose).first(conn, {"row": first})._asdict() == core
        by_core = conn.execute(change, {"row": first}).one()._asdict()
        by_statement = Statement(change).first(conn, {"row": second})._asdict()
    assert by_core["status"] == by_statement["status"] == "sending"
    assert by_core["attempts"] == by_statement["attempts"] == 1
    assert isinstance(by_statement["payload"], dict)
    assert by_statement.keys() == by_core.keys()
    with service.db.reading() as conn:
        stored = conn.execute(select(OUTBOX).where(OUTBOX.c.id == second)).one()._asdict()
    assert stored == by_statement
    with pytest.raises(TypeError, match="one bindparam per value"):
        Statement(select(OUTBOX.c.id).where(OUTBOX.c.kind.in_(["a", "b"]))).first(conn, {})


def test_a_move_s_notices_are_stored_as_core_stores_them(service):
    """Outbox rows of `new_mail` go in through a prebuilt statement, any other row
    through Core: the stored rows are the same either way, ids in order."""
    from pbem.service import rows

    game_id = two_players(service).game_id
    payload = {"hours": 12, "words": "Grüße — 😀", "nested": {"b": [1, None, True], "a": ""}}
    made = [
        rows.new_mail(
            game_id, 2, "reminder", 1, "ann@example.com", payload, "2026-12-01T06:00:00.000000Z"
        ),
        rows.new_mail(
            None,
            None,
            "digest",
            None,
            "ben@example.com",
            {},
            "2026-12-01T06:00:00.000000Z",
            language="de",
        ),
    ]
    with service.db.writing() as conn:
        prebuilt = rows.add_mails(conn, made)
        again = [{**made[0], "seq": 3}, made[1]]  # (game, seq, kind, seat, topic) is unique
        by_core = list(conn.execute(rows._ADD_MAIL, again).scalars())
        failed = rows.add_mails(
            conn, [{**made[0], "seq": 4, "status": "failed", "last_error": "x"}]
        )
    assert prebuilt == sorted(prebuilt) and by_core[0] > prebuilt[-1]
    with service.db.reading() as conn:
        stored = {
            r.id: r._asdict()
            for r in conn.execute(
                select(OUTBOX).where(OUTBOX.c.id.in_(prebuilt + by_core + failed))
            )
        }
    for ours, core in zip(prebuilt, by_core, strict=True):
        assert {**stored[ours], "id": 0, "seq": 0} == {**stored[core], "id": 0, "seq": 0}
    assert stored[prebuilt[0]]["payload"] == payload
    assert stored[failed[0]]["last_error"] == "x" and stored[failed[0]]["status"] == "failed"


def test_a_prebuilt_statement_runs_in_a_session_too(service):
    # The store's functions take a connection or a session (`Database.read`): a
    # prebuilt statement runs in either, and a state read in one is the same.
    game_id = two_players(service).game_id
    games = select(GAMES).where(GAMES.c.id == bindparam("g"))
    rules = get("mall")
    with service.db.reading() as conn:
        by_connection = Statement(games).first(conn, {"g": game_id})._asdict()
        state = rules.dump_state(states.state_at(conn, rules, game_id, 1))
    with service.db.read() as session:
        assert Statement(games).first(session, {"g": game_id})._asdict() == by_connection
        assert rules.dump_state(states.state_at(session, rules, game_id, 1)) == state


# -- SQLite: the write lock at BEGIN, and reads of one moment ---------------------------


@pytest.fixture
def sqlite_database(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    migrate.upgrade(database)
    yield database
    database.dispose()


def test_sqlite_writers_queue_at_begin(sqlite_database):
    """A second writer waits at BEGIN for the first to commit (BEGIN IMMEDIATE), so
    it reads the first one's rows and never fails at its own commit."""
    first_wrote, release = threading.Event(), threading.Event()
    second_inside = threading.Event()
    seen: list[int] = []

    def first() -> None:
        with sqlite_database.writing() as conn:
            log.append(conn, "g1", (0, "0" * 64), "UndoLapsed", {"seat": 1}, "a", "t")
            first_wrote.set()
            release.wait(30)

    def second() -> None:
        first_wrote.wait(30)
        with sqlite_database.writing() as conn:
            second_inside.set()
            seen.append(_count_events(conn, "g1"))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    first_wrote.wait(30)
    assert not second_inside.wait(0.5), "the second writer began while the first wrote"
    release.set()
    for thread in threads:
        thread.join(30)
    assert seen == [1]


def test_sqlite_reading_sees_one_moment(sqlite_database):
    """Rows committed while a read transaction is open are not in it."""
    with sqlite_database.writing() as conn:
        log.append(conn, "g1", (0, "0" * 64), "UndoLapsed", {"seat": 1}, "a", "t")
    with sqlite_database.reading() as conn:
        before = _count_events(conn, "g1")

        def write_more() -> None:
            with sqlite_database.writing() as other:
                prev = log.events(other, "g1")[-1]
                log.append(other, "g1", (1, prev.hash), "UndoLapsed", {"seat": 2}, "b", "t")

        writer = threading.Thread(target=write_more)
        writer.start()
        writer.join(30)
        assert _count_events(conn, "g1") == before == 1
    with sqlite_database.reading() as conn:
        assert _count_events(conn, "g1") == 2


# -- JSON text: exactly the standard library's reading --------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_json_columns_read_what_the_standard_library_reads(value):
    text = json.dumps(value, ensure_ascii=False)
    assert load_json(text) == json.loads(text)
    assert type(load_json(text)) is type(json.loads(text))
    assert load_json(json_text(value)) == value


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "[Infinity, -Infinity]",
        '"\\ud800"',
        "12345678901234567890123",
        "[1e400]",
        '{"a": 1, "a": 2}',
    ],
)
def test_json_columns_read_odd_json_as_the_standard_library_does(text):
    expected = repr(json.loads(text))
    assert repr(load_json(text)) == expected
    assert repr(load_json(text.encode())) == expected


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_state_text_writes_what_reads_back_equal(value):
    assert json.loads(state_text(value)) == value


# -- what a move writes: the standard library's JSON, to the byte -------------------------


def _stored_text(conn, game_id: str) -> list[tuple]:
    """Each event's row with its payload as the text the database holds."""
    columns = (EVENTS.c.seq, EVENTS.c.type, cast(EVENTS.c.payload, Text), EVENTS.c.actor)
    more = (EVENTS.c.created_at, EVENTS.c.prev_hash, EVENTS.c.hash, EVENTS.c.salt)
    query = select(*columns, *more).where(EVENTS.c.game_id == game_id).order_by(EVENTS.c.seq)
    return [tuple(row) for row in conn.execute(query)]


SEP = (",", ":")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _assert_standard_json_and_chain(rows: list[tuple], chain: int) -> None:
    """Every payload is stored as json.dumps writes it, and every hash is the
    contract's formula of the chain's version over json.dumps's canonical text:
    version 1 of the fields, version 2 of a salted commitment to them."""
    previous = "0" * 64
    for seq, type, text, actor, created_at, prev_hash, digest, salt in rows:
        payload = json.loads(text)
        assert text == json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        body = {"seq": seq, "type": type, "payload": payload, "actor": actor}
        canonical = json.dumps(
            {**body, "created_at": created_at},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        assert prev_hash == previous
        if chain == 1:
            assert salt is None
            assert digest == _sha256(previous + canonical)
        else:
            assert len(bytes.fromhex(salt)) >= 16
            committed = _sha256(salt + canonical)
            link = {"seq": seq, "commitment": committed}
            assert digest == _sha256(previous + json.dumps(link, sort_keys=True, separators=SEP))
        previous = digest


@pytest.mark.parametrize("chain", [1, 2])
def test_a_played_game_stores_the_standard_librarys_json_and_hashes(service, chain):
    created = service.create_game(
        [PlayerSpec("Zoë 東京 😀", "zoe@example.com"), PlayerSpec('Ben "B" \\ O\'Neil')],
        setup={"seed": "standard json"},
        chain=chain,
    )
    play_out(service, created)
    with service.db.reading() as conn:
        rows = _stored_text(conn, created.game_id)
    assert len(rows) > 10
    assert '"name":"Zoë 東京 😀"' in rows[0][2]  # UTF-8 kept, not \u escapes
    _assert_standard_json_and_chain(rows, chain)
    assert service.verify(created.game_id) == []


@pytest.mark.parametrize("chain", [1, 2])
def test_awkward_payloads_are_stored_and_hashed_as_the_standard_library_writes(database, chain):
    payloads = [
        {"small": 1e-07, "tiny": 1e-05, "large": 1e16, "zero": -0.0, "whole": 2.0},
        {"big": 2**70, "edge": 2**64 - 1, "low": -(2**63), "below": -(2**63) - 1},
        {"\U0001f600": 1, "\uffff": 2, "\ue000": 3, "é": 4, "z": 5, "A": 6},
        {"text": "".join(map(chr, range(1, 0x20))) + '\x7f\u2028\u2029/\\"', "none": None},
        {"pair": (1, "two"), "nested": [{"b": [], "a": {}}, [[True, False]]]},
    ]
    head = (0, "0" * 64)
    with database.writing() as conn:
        for payload in payloads:
            written = log.append(conn, "g1", head, "UndoLapsed", payload, "test", "t", chain=chain)
            head = (written.seq, written.hash)
    with database.reading() as conn:
        rows = _stored_text(conn, "g1")
        assert log.chain_problems(conn, "g1") == []
    stored = [{**payload, "v": 1} for payload in payloads]
    assert [json.loads(row[2]) for row in rows] == json.loads(json.dumps(stored))
    _assert_standard_json_and_chain(rows, chain)
