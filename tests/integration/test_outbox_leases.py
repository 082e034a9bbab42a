"""The outbox's leases, through a real SMTP server, on SQLite and PostgreSQL: a mail is
marked sent the moment the server took it; a dead sender's or a lost task's mails
come back within seconds, not minutes; mails the broker would not take are given
back at once; and one address's notices of one game go in the order written, even
when the first is held by a sender that died."""

from __future__ import annotations

import time

import pytest
from aiosmtpd.controller import Controller
from celery import Celery
from kombu.exceptions import OperationalError

from pbem.events import timestamp
from pbem.service import PlayerSpec
from pbem.service.delivery import Deliveries, Heartbeat
from pbem.service.outbox import HANDED, LEASE
from pbem.service.sweep import Work
from worker.scheduler import hand_out

from support import SHORT, Kept, free_port

ANN, BEN = "ann@example.com", "ben@example.com"


@pytest.fixture
def smtp():
    kept = Kept()
    port = free_port()
    controller = Controller(kept, hostname="127.0.0.1", port=port)
    controller.start()
    kept.url = f"smtp://127.0.0.1:{port}"
    yield kept
    controller.stop()


@pytest.fixture
def parts(make_parts, clock, database_url, smtp):
    return make_parts(clock, database_url=database_url, smtp_url=smtp.url)


def _game(parts, **options):
    created = parts.service.create_game(
        [PlayerSpec("Ann", ANN), PlayerSpec("Ben", BEN)],
        {"hours_per_turn": 48, "reminders": [24], **options},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def _rows(parts, game_id):
    from sqlalchemy import select

    from pbem.service import rows

    with parts.database.reading() as conn:
        return conn.execute(
            select(rows.OUTBOX).where(rows.OUTBOX.c.game_id == game_id).order_by(rows.OUTBOX.c.id)
        ).all()


def _sent_kinds(smtp, to):
    return [m["X-Pbem-Kind"] for m in smtp.mails if m["To"].addresses[0].addr_spec == to]


def test_a_mail_is_marked_sent_the_moment_the_server_took_it(parts, smtp):
    _game(parts)
    first = parts.outbox.take_due()[0]
    deliveries = Deliveries(parts.outbox, parts.channels)
    assert deliveries.deliver(first) == "sent"
    # no finish(), no next claim: a worker killed now leaves nothing to send again
    assert parts.outbox.status(first) == "sent"
    assert len(smtp.mails) == 1


def test_a_dead_senders_mail_comes_back_within_seconds_with_its_message_id(parts, clock, smtp):
    _game(parts)
    first = parts.outbox.take_due()[0]
    claimed = parts.outbox.claim(first, channels=parts.channels)
    assert claimed is not None and claimed.status == "sending"
    # the sender died before the server answered: nothing renews the lease
    clock.advance(seconds=LEASE.total_seconds() - 1)
    assert first not in parts.outbox.take_due()
    clock.advance(seconds=2)
    assert LEASE.total_seconds() <= 30
    assert first in parts.outbox.take_due()
    assert Deliveries(parts.outbox, parts.channels).deliver(first) == "sent"
    assert [m["Message-ID"] for m in smtp.mails] == [claimed.delivery_id]


def test_a_live_sender_keeps_its_mails_by_renewing_their_leases(parts, clock):
    _game(parts)
    handed = parts.outbox.take_due()
    parts.outbox.claim(handed[0], channels=parts.channels)
    for _ in range(10):  # five minutes of a slow server, renewed every 30 s less a bit
        clock.advance(seconds=LEASE.total_seconds() - 1)
        assert parts.outbox.renew(handed) == len(handed)
        assert parts.outbox.take_due() == []
    clock.advance(seconds=LEASE.total_seconds() + 1)  # then it died
    assert parts.outbox.take_due() == handed


def test_the_heartbeat_renews_from_its_own_thread_until_the_task_ends(make_parts, database_url):
    parts = make_parts(database_url=database_url)  # the real clock
    _game(parts)
    handed = parts.outbox.take_due()
    before = {r.id: r.leased_until for r in _rows(parts, parts.outbox.get(handed[0]).game_id)}
    with Heartbeat(parts.outbox, handed, every=0.05) as heartbeat:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = {r.id: r.leased_until for r in _rows(parts, parts.outbox.get(handed[0]).game_id)}
            if all(now[i] != before[i] for i in handed):
                break
            time.sleep(0.05)
        assert all(now[i] != before[i] for i in handed)
        heartbeat.done(handed[0])
    game_id = parts.outbox.get(handed[0]).game_id
    ended = {r.id: r.leased_until for r in _rows(parts, game_id)}
    time.sleep(0.3)
    assert {r.id: r.leased_until for r in _rows(parts, game_id)} == ended  # it stopped


def test_a_lost_tasks_mails_come_back_after_the_hand_out_lease(parts, clock):
    _game(parts)
    handed = parts.outbox.take_due()
    assert parts.outbox.take_due() == []
    clock.advance(seconds=HANDED.total_seconds() + 1)  # the broker lost the task
    assert parts.outbox.take_due() == handed
    assert HANDED.total_seconds() <= 60


def test_mails_the_broker_would_not_take_are_given_back_to_the_next_sweep(parts, clock):
    _game(parts)
    handed = parts.outbox.take_due()
    nowhere = Celery("pbem", broker=f"redis://127.0.0.1:{free_port()}/0")
    nowhere.conf.broker_connection_retry_on_startup = False
    nowhere.conf.broker_connection_max_retries = 0
    with pytest.raises(OperationalError):
        hand_out(nowhere, Work(mails=handed), parts.outbox)
    # no lease left on them: the next sweep, a few seconds later, hands them out
    assert parts.outbox.take_due() == handed


def test_a_reminder_waits_behind_a_turn_mail_its_dead_sender_held(parts, clock, smtp):
    game_id, tokens = _game(parts)
    deliveries = Deliveries(parts.outbox, parts.channels)
    for row_id in parts.outbox.take_due():  # the invitations and Ann's first turn mail
        deliveries.deliver(row_id)
    parts.service.submit_action(game_id, tokens[1], "money L", 1)  # Ben's turn mail
    (turn,) = parts.outbox.take_due()
    assert parts.outbox.claim(turn, channels=parts.channels) is not None  # ... and died
    clock.advance(seconds=5)
    parts.service.remind(game_id, 2, 24)  # as the sweep does when Ben's reminder is due
    (reminder,) = [r.id for r in _rows(parts, game_id) if r.kind == "reminder"]
    assert deliveries.deliver(reminder) == "pending"  # it waits: the turn mail goes first
    assert _sent_kinds(smtp, BEN) == ["invitation"]
    assert parts.outbox.take_due() == [reminder]  # due again at once, to wait again
    assert deliveries.deliver(reminder) == "pending"
    clock.advance(seconds=LEASE.total_seconds())
    assert parts.outbox.take_due() == [turn, reminder]  # the dead sender's lease ran out
    for row_id in (turn, reminder):
        assert deliveries.deliver(row_id) == "sent"
    assert _sent_kinds(smtp, BEN) == ["invitation", "your_turn", "reminder"]


def test_a_later_mail_does_not_inherit_the_lease_of_one_just_handed_out(parts, clock, smtp):
    robo = PlayerSpec("Robo", bot="greedy")  # moves first: Ann's first turn has a mail of its own
    created = parts.service.create_game([robo, PlayerSpec("Ann", ANN), PlayerSpec("Ben", BEN)])
    parts.service.play_bots(created.game_id)
    deliveries = Deliveries(parts.outbox, parts.channels)
    invitations = parts.outbox.take_due()
    parts.outbox.claim(invitations[0], channels=parts.channels)
    parts.outbox.failed(invitations[0], "451 try again later")  # Ann's invitation: retried
    for row_id in invitations[1:]:
        deliveries.deliver(row_id)  # Ann's turn mail waits behind it
    clock.advance(minutes=1, seconds=1)
    handed = parts.outbox.take_due()  # both, in the order written
    assert handed[0] == invitations[0]
    waiting = handed[-1]
    assert deliveries.deliver(waiting) == "pending"  # a worker took the later one first
    row = parts.outbox.get(waiting)
    assert (row.next_attempt_at, row.leased_until) == (timestamp(clock()), None)  # due at once
    assert deliveries.deliver(invitations[0]) == "sent"
    clock.advance(seconds=1)
    assert parts.outbox.take_due() == [waiting]
    assert deliveries.deliver(waiting) == "sent"
    assert _sent_kinds(smtp, ANN) == ["invitation", "your_turn"]


def test_talk_gathered_for_later_does_not_hold_back_a_turn_mail(parts, clock, smtp):
    game_id, tokens = _game(parts)
    deliveries = Deliveries(parts.outbox, parts.channels)
    for row_id in parts.outbox.take_due():
        deliveries.deliver(row_id)
    parts.service.say(game_id, tokens[1], "hello Ben")  # Ben's talk mail waits minutes
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    for row_id in parts.outbox.take_due():
        assert deliveries.deliver(row_id) == "sent"
    assert _sent_kinds(smtp, BEN) == ["invitation", "your_turn"]
