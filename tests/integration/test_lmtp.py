"""`pbem lmtp`, the real listener in its own process on SQLite and PostgreSQL, spoken
to with smtplib's LMTP client: a reply plays its move and each recipient gets its
own answer after DATA; over 1 MB is 552 for each; the database away is 451 and
records nothing; a Message-ID acts once; SIGTERM answers the mail in hand, then
exits 0."""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from pbem.service.inbox import INBOUND

from support import Table, free_port

FORGED = "play+" + "a" * 16 + ".1.1." + "b" * 24 + "@pbem.localhost"


@pytest.fixture
def table(make_parts, clock, database_url):
    return Table(make_parts(clock, database_url=database_url))


class Listener:
    """`pbem lmtp` in a process of its own, on the table's settings (or others)."""

    def __init__(self, table: Table, *args: str, **env: str) -> None:
        settings = table.parts.settings
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "PBEM_DATABASE_URL": settings.database_url,
            "PBEM_SECRET_KEY": "web-secret",
            "PBEM_INSTANCE_DIR": str(settings.instance_dir),
            "PBEM_BASE_URL": "http://pbem.test",
            "PBEM_BROKER_URL": "filesystem://",
            **env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "lmtp", "--port", "0", *args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        said = self.process.stdout.readline()  # once it takes connections
        assert said.startswith("pbem lmtp listening on "), self.process.communicate()[1]
        self.where = said.split()[-1]

    def client(self) -> smtplib.LMTP:
        kind, _, rest = self.where.partition(":")
        if kind == "unix":
            lmtp = smtplib.LMTP(rest, timeout=60)
        else:
            host, _, port = rest.rpartition(":")
            lmtp = smtplib.LMTP(host, int(port), timeout=60)
        lmtp.ehlo("mx.test")
        return lmtp

    def logged(self, what: str) -> None:
        """Until the listener logs a line with `what` in it."""
        for line in self.process.stderr:
            if what in line:
                return
        raise AssertionError(f"the listener ended without logging {what!r}")

    def stop(self) -> tuple[int, str]:
        """SIGTERM; its exit status and what it logged."""
        self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=60)
        return self.process.returncode, err


@pytest.fixture
def listen():
    started: list[Listener] = []

    def start(table: Table, *args: str, **env: str) -> Listener:
        started.append(Listener(table, *args, **env))
        return started[-1]

    yield start
    for listener in started:
        if listener.process.poll() is None:
            listener.process.kill()
            listener.process.communicate()


def deliver(lmtp: smtplib.LMTP, raw: bytes, *recipients: str) -> list[tuple[int, str]]:
    """One LMTP transaction: the reply after DATA of each recipient, in order."""
    assert lmtp.mail("ann@example.com")[0] == 250
    for recipient in recipients:
        assert lmtp.rcpt(recipient)[0] == 250
    first = lmtp.data(raw)
    replies = [first, *(lmtp.getreply() for _ in recipients[1:])]
    return [(code, said.decode()) for code, said in replies]


def ledger(table: Table) -> list:
    with table.parts.database.reading() as conn:
        return conn.execute(select(INBOUND.c.message_id, INBOUND.c.outcome)).all()


def test_a_reply_plays_its_move_and_its_answer_is_queued(table, listen):
    listener = listen(table)
    raw = table.mail("outlook.eml", "money L", message_id="<one@mail.example>")
    with listener.client() as lmtp:
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 accepted")]
    assert table.seq() == 2
    (answer,) = table.answers()
    assert answer.address == "ann@example.com"
    assert answer.payload["lines"][0].startswith("Played: Burger Bar (Y01) from L1 as money")
    # handed to the broker for a worker at once (the Celery app made for it)
    tasks = list((table.parts.settings.instance_dir / "broker").glob("*.msg"))
    assert any("pbem.deliver" in task.read_text() for task in tasks)
    status, logged = listener.stop()
    assert status == 0
    assert f"250 2.0.0 accepted game {table.game}" in logged
    assert "play+" not in logged  # never a reply address, nor its signature


def test_each_recipient_gets_its_own_answer(table, listen):
    listener = listen(table)
    raw = table.mail("outlook.eml", "money L")
    with listener.client() as lmtp:
        replies = deliver(lmtp, raw, table.address(1), FORGED, "nobody@elsewhere.example")
        # the third falls back to the mail's own To, as `pbem inbound` does: seen before
        assert [code for code, _ in replies] == [250, 550, 250]
        assert replies[1][1].startswith("5.1.1 ")
        assert replies[2][1] == "2.0.0 duplicate"
        unsigned = table.mail("outlook.eml", "money R", address="nobody@pbem.localhost")
        assert deliver(lmtp, unsigned, "nobody@pbem.localhost") == [
            (550, "5.1.1 No such reply address here")
        ]
    assert table.seq() == 2
    assert len(table.answers()) == 1
    assert listener.stop()[0] == 0


def test_a_mail_over_1_mb_is_refused_with_552_for_each_recipient(table, listen):
    listener = listen(table)
    raw = table.mail("outlook.eml", "money L")
    big = raw + b"\r\n" + (b"x" * 998 + b"\r\n") * 1001
    with listener.client() as lmtp:
        replies = deliver(lmtp, big, table.address(1), table.address(2))
        assert replies == [(552, "5.3.4 Message too big: at most 1000000 bytes")] * 2
        # the connection goes on: the same mail at its size is played
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 accepted")]
    assert table.seq() == 2
    assert listener.stop()[0] == 0


def test_with_the_database_away_the_answer_is_451_and_nothing_is_recorded(table, listen):
    away = f"postgresql+psycopg://pbem:pbem@127.0.0.1:{free_port()}/pbem"
    listener = listen(table, PBEM_DATABASE_URL=away)
    raw = table.mail("outlook.eml", "money L")
    with listener.client() as lmtp:
        replies = deliver(lmtp, raw, table.address(1), FORGED)
    assert replies == [(451, "4.3.0 Not handled now, try again later")] * 2
    status, logged = listener.stop()
    assert status == 0 and "pbem:pbem@" not in logged  # never the database's password
    assert ledger(table) == [] and table.seq() == 1 and table.answers() == []
    # the mail server's retry, with the database back, is played
    with listen(table).client() as lmtp:
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 accepted")]
    assert table.seq() == 2


def test_the_same_message_id_twice_is_handled_once(table, listen):
    listener = listen(table)
    raw = table.mail("outlook.eml", "money L", message_id="<twice@mail.example>")
    with listener.client() as lmtp:
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 accepted")]
    with listener.client() as lmtp:
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 duplicate")]
    assert table.seq() == 2 and len(table.answers()) == 1
    assert ledger(table) == [("<twice@mail.example>", "accepted")]
    assert listener.stop()[0] == 0


def test_a_unix_socket_listener(table, listen, tmp_path):
    path = tmp_path / "lmtp.sock"
    listener = listen(table, "--socket", str(path))
    assert listener.where == f"unix:{path}"
    assert oct(path.stat().st_mode & 0o777) == "0o660"
    with listener.client() as lmtp:
        raw = table.mail("outlook.eml", "money L")
        assert deliver(lmtp, raw, table.address(1)) == [(250, "2.0.0 accepted")]
    assert listener.stop()[0] == 0
    assert not Path(path).exists()


def test_sigterm_answers_the_mail_in_hand_then_exits_0(table, listen, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("the mail is held in hand by PostgreSQL's ledger lock")
    from pbem.service import inbox

    listener = listen(table)
    raw = table.mail("outlook.eml", "money L")
    holder = create_engine(database_url)
    replies: list = []
    with holder.connect() as held:
        held.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": inbox._LOCK})
        lmtp = listener.client()
        sending = threading.Thread(
            target=lambda: replies.extend(deliver(lmtp, raw, table.address(1)))
        )
        sending.start()
        waiting = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        with holder.connect() as watch:
            while watch.execute(waiting).scalar_one() == 0:  # the listener waits on the ledger
                watch.rollback()
        listener.process.send_signal(signal.SIGTERM)
        listener.logged("pbem lmtp stopping")
        with pytest.raises(ConnectionRefusedError):  # it takes no new mail
            listener.client()
        held.rollback()  # the ledger free again: the mail in hand goes on
    sending.join(timeout=60)
    lmtp.close()
    holder.dispose()
    assert replies == [(250, "2.0.0 accepted")]
    assert listener.process.wait(timeout=60) == 0
    assert table.seq() == 2


def test_a_mail_waiting_on_the_database_holds_up_no_other_connection(table, listen, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("the mail is held in hand by PostgreSQL's ledger lock")
    from pbem.service import inbox

    listener = listen(table)
    raw = table.mail("outlook.eml", "money L")
    holder = create_engine(database_url)
    replies: list = []
    with holder.connect() as held:
        held.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": inbox._LOCK})
        lmtp = listener.client()
        sending = threading.Thread(
            target=lambda: replies.extend(deliver(lmtp, raw, table.address(1)))
        )
        sending.start()
        waiting = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        with holder.connect() as watch:
            while watch.execute(waiting).scalar_one() == 0:  # the first mail waits on the ledger
                watch.rollback()
        # meanwhile another connection's mail (a refusal takes no ledger lock) is answered
        forged = table.mail("outlook.eml", "money L", address=FORGED)
        with listener.client() as other:
            assert deliver(other, forged, FORGED)[0][0] == 550
        assert replies == []  # the first is still waiting
        held.rollback()
    sending.join(timeout=60)
    lmtp.close()
    holder.dispose()
    assert replies == [(250, "2.0.0 accepted")]
    assert listener.stop()[0] == 0


def test_a_place_it_cannot_listen_on_or_a_bad_mode_is_refused_clearly(table, tmp_path):
    settings = table.parts.settings
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
    }
    run = [sys.executable, "-m", "pbem.cli", "lmtp"]
    missing = tmp_path / "no-such-folder" / "lmtp.sock"
    done = subprocess.run(
        [*run, "--socket", str(missing)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert f"Error: cannot listen on {missing}: No such file or directory" in done.stderr
    done = subprocess.run(
        [*run, "--socket-mode", "999"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "--socket-mode" in done.stderr
