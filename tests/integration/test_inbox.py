"""The inbox ledger, on SQLite and PostgreSQL: a Message-ID acts once; a mail in hand
is to be tried again, and a mail whose handler died is taken over once it has been
in hand too long; the per-sender limit counts the last hour only; a mail over it is
recorded."""

from __future__ import annotations

from pbem.service.inbox import IN_HAND, PER_SENDER_PER_HOUR, Inbox


def test_a_message_in_hand_is_tried_again_until_its_handler_is_presumed_dead(database, clock):
    inbox = Inbox(database, clock)
    assert inbox.receive("<m1@x>", "ann@example.com", "g1") == "new"
    assert inbox.receive("<m1@x>", "ann@example.com", "g1") == "in hand"
    clock.advance(seconds=IN_HAND.total_seconds() + 1)
    assert inbox.receive("<m1@x>", "ann@example.com", "g1") == "new"


def test_a_handled_message_stays_a_duplicate_for_good(database, clock):
    inbox = Inbox(database, clock)
    assert inbox.receive("<m2@x>", "ann@example.com", "g1") == "new"
    inbox.handled("<m2@x>", "accepted")
    clock.advance(days=30)
    assert inbox.receive("<m2@x>", "ann@example.com", "g1") == "duplicate"


def test_the_sender_limit_counts_the_last_hour_only(database, clock):
    inbox = Inbox(database, clock)
    for n in range(PER_SENDER_PER_HOUR):
        assert inbox.receive(f"<a{n}@x>", "ann@example.com", "g1") == "new"
    assert inbox.receive("<over@x>", "ann@example.com", "g1") == "too many"
    assert inbox.receive("<ben@x>", "ben@example.com", "g1") == "new"
    clock.advance(hours=1, seconds=1)
    assert inbox.receive("<over@x>", "ann@example.com", "g1") == "duplicate"  # recorded
    assert inbox.receive("<later@x>", "ann@example.com", "g1") == "new"
