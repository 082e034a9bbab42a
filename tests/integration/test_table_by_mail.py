"""Resigning and answering a rematch by replying: real SMTP both ways (aiosmtpd), the
real outbox and the inbound handler. The sender is checked as for a move: a
stranger's "yes" or "resign" changes nothing and is answered by nothing."""

from __future__ import annotations

import smtplib

from test_play_by_mail import post, reply_to  # noqa: F401 - the fixture, and a reply

from pbem.mail.compose import Composer
from pbem.mail.deliver import deliver_due
from pbem.service import PlayerSpec

from support import play_out

ANN, BEN = PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com", language="de")


def reply(mail, sender: str, line: str, mid: str):
    """A reply of its own Message-ID (the ledger reads each Message-ID once)."""
    written = reply_to(mail, sender, line)
    del written["Message-ID"]
    written["Message-ID"] = f"<{mid}@mail.example>"
    return written


def send(port: int, mail) -> None:
    with smtplib.SMTP("127.0.0.1", port) as server:
        server.send_message(mail)


def kinds_to(kept, address: str) -> list[str]:
    return [m["X-Pbem-Kind"] for m in kept.mails if m["To"].addresses[0].addr_spec == address]


def text(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def test_a_rematch_accepted_by_replying_yes_starts_the_new_game(web, post):  # noqa: F811
    _, parts = web
    kept, piped, outgoing, incoming = post
    service = parts.service
    made = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    play_out(service, made)
    service.offer_rematch(made.game_id, made.seats[0].token)
    composer = Composer(service, parts.settings)
    deliver_due(parts.outbox, composer, outgoing)
    offer = next(m for m in kept.mails if m["X-Pbem-Kind"] == "rematch_offer")
    assert offer["To"].addresses[0].addr_spec == "ben@example.com"
    assert offer["Subject"] == "Ann gegen Ben: Ann bietet eine Revanche an"
    assert "yes" in text(offer) and "Ann" in text(offer)

    send(incoming, reply(offer, "eve@example.com", "yes", "eve"))  # not the seat's address
    assert piped.outcomes == ["refused"]
    assert service.rematch_status(made.game_id, 2)["offer"].new_game_id is None

    send(incoming, reply_to(offer, "ben@example.com", "Yes"))
    assert piped.outcomes[-1] == "rematch"
    new = service.rematch_status(made.game_id, 2)["offer"].new_game_id
    assert new
    deliver_due(parts.outbox, composer, outgoing)
    invitations = [m for m in kept.mails if m["X-Pbem-Kind"] == "invitation" and new in text(m)]
    by_address = {m["To"].addresses[0].addr_spec: text(m) for m in invitations}
    links = {s.seat: s.token for s in service.seat_links(new)}
    assert set(by_address) == {"ann@example.com", "ben@example.com"}
    assert (
        links[1] in by_address["ann@example.com"] and links[2] not in by_address["ann@example.com"]
    )
    assert (
        links[2] in by_address["ben@example.com"] and links[1] not in by_address["ben@example.com"]
    )
    answer = [m for m in kept.mails if m["X-Pbem-Kind"] == "answer"][-1]
    assert new in text(answer)
    assert "eve@example.com" not in [a for r in kept.recipients for a in r]


def test_resigning_by_reply_takes_the_word_alone_and_tells_the_other(web, post):  # noqa: F811
    _, parts = web
    kept, piped, outgoing, incoming = post
    service = parts.service
    made = service.create_game([ANN, BEN], None, {"pile": 9}, game="nim")
    composer = Composer(service, parts.settings)
    deliver_due(parts.outbox, composer, outgoing)
    invitation = next(
        m
        for m in kept.mails
        if m["X-Pbem-Kind"] == "invitation" and m["To"].addresses[0].addr_spec == "ann@example.com"
    )
    send(incoming, reply(invitation, "eve@example.com", "resign", "eve"))
    wordy = reply_to(invitation, "ann@example.com", "resign")
    wordy.set_content("resign\nbut only if Ben agrees\n")
    del wordy["Message-ID"]
    wordy["Message-ID"] = "<wordy@mail.example>"
    send(incoming, wordy)
    assert service.state_at(made.game_id)["status"] == "playing"

    send(incoming, reply_to(invitation, "ann@example.com", "resign"))
    assert piped.outcomes == ["refused", "refused", "resigned"]
    doc = service.state_at(made.game_id)
    assert doc["status"] == "finished" and doc["winners"] == [2]
    deliver_due(parts.outbox, composer, outgoing)
    assert "resigned" in kinds_to(kept, "ben@example.com")
    told = next(m for m in kept.mails if m["X-Pbem-Kind"] == "resigned")
    assert told["Subject"] == "Ann gegen Ben: Ann hat aufgegeben"
    answers = [text(m) for m in kept.mails if m["X-Pbem-Kind"] == "answer"]
    assert any("resign alone" in a for a in answers)
    assert any("You resigned, and the game is over." in a for a in answers)


def test_a_rematch_is_declined_by_replying_nein_and_accepted_by_ja(web, post):  # noqa: F811
    """A person answers in their own language: "ja" and "nein" count as "yes" and "no"."""
    _, parts = web
    kept, piped, outgoing, incoming = post
    service = parts.service
    composer = Composer(service, parts.settings)
    first = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    play_out(service, first)
    service.offer_rematch(first.game_id, first.seats[0].token)
    deliver_due(parts.outbox, composer, outgoing)
    offer = next(m for m in kept.mails if m["X-Pbem-Kind"] == "rematch_offer")
    send(incoming, reply(offer, "ben@example.com", "Nein", "ben-nein"))
    assert piped.outcomes[-1] == "rematch"
    assert service.rematch_status(first.game_id, 2)["offer"].closed == "declined"

    second = service.create_game([ANN, BEN], None, {"pile": 5}, game="nim")
    play_out(service, second)
    service.offer_rematch(second.game_id, second.seats[0].token)
    deliver_due(parts.outbox, composer, outgoing)
    offer = [m for m in kept.mails if m["X-Pbem-Kind"] == "rematch_offer"][-1]
    assert offer["Subject"].endswith("Ann bietet eine Revanche an")
    send(incoming, reply(offer, "ben@example.com", "ja", "ben-ja"))
    assert service.rematch_status(second.game_id, 2)["offer"].new_game_id


def test_a_resignation_that_ends_the_game_is_mailed_with_the_end(web, post):  # noqa: F811
    """The game is over when its mails go out: the resignation that ended it still
    goes with the game-over mail (nothing else of a finished game does)."""
    _, parts = web
    kept, _piped, outgoing, _incoming = post
    service = parts.service
    made = service.create_game([ANN, BEN], None, {"pile": 9}, game="nim")
    service.resign(made.game_id, made.seats[0].token)
    deliver_due(parts.outbox, Composer(service, parts.settings), outgoing)
    assert set(kinds_to(kept, "ben@example.com")) == {"invitation", "resigned", "game_over"}
    assert "resigned" not in kinds_to(kept, "ann@example.com")
