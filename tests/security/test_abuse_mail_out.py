"""Mail out under abuse: a mail that can never be built fails at once and never
holds up anyone else's; the attempt cap holds; a link goes only to the holder it
was written for; a turn mail for a turn already played never goes, and a person's
mails arrive in the order they were written; a replaced person is told and still
gets the game-over mail; every mail has a Date; every event kind reads as a
sentence, and a player's private settings are never shown to others.

Mail goes to a real aiosmtpd server in this process; each test runs on SQLite and
PostgreSQL."""

from __future__ import annotations

import re
import socket
from dataclasses import replace
from email import policy
from email.parser import BytesParser
from email.utils import format_datetime, parsedate_to_datetime

import pytest
from aiosmtpd.controller import Controller
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from pbem.events import EVENT_TYPES, VERSIONS, timestamp
from pbem.mail import catcher
from pbem.mail.compose import TEMPLATES, Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import BadRequest, PlayerSpec, Stale, rows
from pbem.service import history as told
from pbem.service.outbox import LEASE, MAX_ATTEMPTS, Outbox
from pbem.service.tokens import token_hash

from abuse import examples
from support import SHORT, claim_alone, token

OUTBOX = rows.OUTBOX
PEOPLE = [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")]
UNBUILDABLE = [
    "a:b@example.com",  # a colon: only "a" is an address
    "zëd@example.com",  # a non-ASCII local part
    "ann@ex☃mple.com",  # an internationalised domain that is no IDNA 2008 name
    "ann@xn--zz.com",  # an ASCII-form label that decodes to nothing
    '"ann@example.com',  # an unterminated quote
    "ann@example.com\x00",
    "ann@",
    "ann@example.com\r\nBcc: victim@example.com",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """An SMTP server keeping every message it accepts, as sent; it can refuse for
    now (451)."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.refuse = False

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.refuse:
            return "451 4.3.0 try again later"
        self.raw.append(envelope.original_content)
        return "250 OK"

    def messages(self) -> list:
        parser = BytesParser(policy=policy.default)
        return [parser.parsebytes(raw) for raw in self.raw]

    def to(self, address: str) -> list:
        return [m for m in self.messages() if m["To"].addresses[0].addr_spec == address]


@pytest.fixture
def server():
    handler = Server()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    handler.smtp = Smtp("127.0.0.1", port)
    yield handler
    controller.stop()


@pytest.fixture
def outbox(database, clock):
    return Outbox(database, clock)


@pytest.fixture
def composer(service, settings):
    return Composer(service, settings)


def send(outbox, composer, server) -> int:
    return deliver_due(outbox, composer, server.smtp)


def outbox_rows(service) -> list:
    with service.db.reading() as conn:
        return list(conn.execute(select(OUTBOX).order_by(OUTBOX.c.id)).all())


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content()


def html_of(message) -> str:
    return message.get_body(("html",)).get_content()


# -- 7. a mail that can never be built ------------------------------------------------


@pytest.mark.parametrize("address", UNBUILDABLE)
def test_an_address_no_mail_can_be_built_for_is_refused_at_creation(service, address):
    with pytest.raises(BadRequest, match="is not an email address"):
        service.create_game([PlayerSpec("Ann", address), PlayerSpec("Ben", "ben@example.com")])
    created = service.create_game(PEOPLE, None, SHORT)
    with pytest.raises(BadRequest, match="is not an email address"):
        service.replace_seat(created.game_id, 2, "human", name="Cat", email=address)


def test_an_internationalised_domain_is_mailed_at_its_ascii_form(service, outbox, composer, server):
    """The server speaks no SMTPUTF8: a domain like exämple.com is written, in the
    envelope and in To, as its A-labels, which every mail server takes."""
    created = service.create_game([PlayerSpec("Ann", "ann@exämple.com"), PEOPLE[1]])
    row_id = _answer(outbox, created.game_id, "ann@exämple.com")
    send(outbox, composer, server)
    assert {r.id: r for r in outbox_rows(service)}[row_id].status == "sent"
    to_ann = [m for m in server.messages() if "ann@" in str(m["To"])]
    # her invitation tells her first turn too
    assert {m["X-Pbem-Kind"] for m in to_ann} == {"invitation", "answer"}
    assert {m["To"].addresses[0].addr_spec for m in to_ann} == {"ann@xn--exmple-cua.com"}
    assert all(raw.split(b"\r\n\r\n")[0].isascii() for raw in server.raw)  # every head


def _answer(outbox, game_id: str, to: str, subject: str = "move") -> int:
    payload = {"lines": ["Your move was taken."], "ignored": [], "in_reply_to": "<m@x.org>"}
    return outbox.answer(game_id, 1, to, {**payload, "subject": subject})


def test_a_mail_that_cannot_be_built_fails_at_once_and_the_others_go(
    service, outbox, composer, server, clock
):
    created = service.create_game(PEOPLE, None, SHORT)
    game = created.game_id
    answered = [_answer(outbox, game, address) for address in UNBUILDABLE]
    # rows written before addresses were checked (a text column cannot hold a NUL)
    holder = {"holder": token_hash(token(created, 1)), "subject": "x"}  # for Ann, at seat 1
    old = [
        rows.new_mail(
            game,
            None,
            "answer",
            1,
            address,
            {**holder, "lines": [], "ignored": []},
            timestamp(clock()),
        )
        for address in UNBUILDABLE
        if "\x00" not in address
    ]
    with service.db.writing() as conn:
        written = rows.add_mails(conn, old)
    good = _answer(outbox, game, "ann@example.com")
    # two invitations (Ann's tells her turn), the answer
    assert send(outbox, composer, server) == 3
    found = {r.id: r for r in outbox_rows(service)}
    for row_id in answered:  # refused as it was written
        assert found[row_id].status == "failed" and found[row_id].attempts == 0
        assert "cannot be written" in found[row_id].last_error
    for row_id in written:  # refused at its first attempt, never tried again
        assert found[row_id].status == "failed" and found[row_id].attempts == 1
        assert "cannot be written" in found[row_id].last_error
    assert found[good].status == "sent"
    assert all(r.status in ("sent", "failed") for r in found.values())


def test_an_answer_whose_subject_decodes_to_a_new_line_adds_no_header(
    service, outbox, composer, server
):
    created = service.create_game(PEOPLE, None, SHORT)
    _answer(outbox, created.game_id, "ann@example.com", "move\r\nBcc: victim@example.com\x00")
    send(outbox, composer, server)
    (answer,) = [m for m in server.messages() if m["X-Pbem-Kind"] == "answer"]
    assert answer["Bcc"] is None
    assert answer["Subject"] == "Re: move Bcc: victim@example.com"
    head = server.raw[-1].split(b"\r\n\r\n")[0]
    assert not re.search(rb"^Bcc:", head, re.MULTILINE | re.IGNORECASE)


def test_the_attempt_cap_holds_when_a_dead_senders_row_is_taken_back(
    service, outbox, composer, server, clock
):
    service.create_game(PEOPLE, None, SHORT)
    first = outbox_rows(service)[0].id
    with service.db.writing() as conn:  # its sender died during its last attempt
        conn.execute(
            update(OUTBOX)
            .where(OUTBOX.c.id == first)
            .values(status="sending", attempts=MAX_ATTEMPTS, delivery_id="<last@x.org>")
        )
    clock.advance(seconds=LEASE.total_seconds() + 1)
    send(outbox, composer, server)
    row = outbox_rows(service)[0]
    assert row.status == "failed" and row.attempts == MAX_ATTEMPTS
    assert f"{MAX_ATTEMPTS} attempts" in row.last_error
    assert len(server.raw) == 1  # Ben's invitation, not the given-up one (Ann's, her turn too)


# -- 8. a link only for the holder it was written for ---------------------------------


def test_mails_queued_for_a_replaced_person_never_carry_the_new_holders_link(
    service, outbox, composer, server
):
    created = service.create_game(PEOPLE, {"public": True}, SHORT)
    game = created.game_id
    new = service.replace_seat(game, 1, "human", name="Cat", email="cat@example.com")
    send(outbox, composer, server)
    for message in server.to("ann@example.com"):
        body = text_of(message) + html_of(message)
        assert new.token not in body and token(created, 1) not in body
    statuses = {(r.kind, r.address): r.status for r in outbox_rows(service)}
    assert statuses[("invitation", "ann@example.com")] == "skipped"  # her turn's mail too
    (invitation,) = server.to("cat@example.com")  # Cat holds the seat to move: one mail
    assert f"/g/{game}/{new.token}" in text_of(invitation)
    assert invitation["Subject"].endswith("it is your turn")


# -- 9. stale turn mails and the order of one person's mails --------------------------


def test_after_an_outage_no_turn_mail_for_a_played_turn_goes_and_each_persons_mails_keep_order(
    service, outbox, composer, server, clock
):
    created = service.create_game(PEOPLE, None, SHORT)
    game = created.game_id
    server.refuse = True
    assert send(outbox, composer, server) == 0  # both invitations wait for a retry
    for seat in (1, 2):  # Ann, then Ben: the round is scored, and it is Ann's turn again
        state = service.state_at(game)
        service.submit_action(
            game, token(created, seat), service.legal(game, seat)[0], state["seq"]
        )
    assert service.state_at(game)["turn"] == 1
    server.refuse = False
    send(outbox, composer, server)  # the new mails wait behind the ones being retried
    assert server.raw == []
    clock.advance(minutes=1, seconds=1)
    send(outbox, composer, server)
    kinds = [(m["X-Pbem-Kind"], m["Subject"]) for m in server.to("ann@example.com")]
    # the round's scores ride in Ann's turn mail; Ben's next turn mail will carry them
    assert [k for k, _ in kinds] == ["invitation", "your_turn"]
    assert [m["X-Pbem-Kind"] for m in server.to("ben@example.com")] == ["invitation"]
    skipped = [(r.kind, r.seq) for r in outbox_rows(service) if r.status == "skipped"]
    # Ann's first turn was in her invitation, which went without it
    assert sorted(skipped) == [("your_turn", 2)]
    (invitation, _turn) = server.to("ann@example.com")
    assert "Your legal actions" not in text_of(invitation)


# -- 10. a seat taken over by a bot, or by another person -----------------------------


def test_a_person_replaced_by_a_bot_is_told_and_still_gets_the_game_over_mail(
    service, outbox, composer, server
):
    created = service.create_game(
        PEOPLE, {"timeout_policy": "replace", "replace_after": 1, "public": True}, SHORT
    )
    game = created.game_id
    service.time_out(game, 1, service.state_at(game)["seq"])
    service.replace_seat(game, 2, "human", name="Cat", email="cat@example.com")
    send(outbox, composer, server)  # while the game is on: once it is over, only its end goes
    cat = next(s for s in service.seat_links(game) if s.seat == 2).token
    while service.state_at(game)["turn"] is not None:
        service.play_bots(game)
        state = service.state_at(game)
        if state["turn"] == 2:
            service.submit_action(game, cat, service.legal(game, 2)[0], state["seq"])
    send(outbox, composer, server)
    (timed_out,) = [m for m in server.to("ann@example.com") if m["X-Pbem-Kind"] == "timed_out"]
    assert "a bot now plays your seat" in text_of(timed_out)
    assert "a bot now plays your seat" in html_of(timed_out)
    for address in ("ann@example.com", "ben@example.com", "cat@example.com"):
        over = [m for m in server.to(address) if m["X-Pbem-Kind"] == "game_over"]
        assert len(over) == 1, address
    for message in server.messages():
        body = text_of(message) + html_of(message)
        assert not re.search(rf"/g/{game}/(?=[\s\"<)]|$)", body), message["Subject"]
    for address in ("ann@example.com", "ben@example.com"):
        (over,) = [m for m in server.to(address) if m["X-Pbem-Kind"] == "game_over"]
        body = text_of(over) + html_of(over)
        assert token(created, 1) not in body and token(created, 2) not in body and cat not in body
        assert f"/g/{game}/watch" in body


def test_a_person_who_once_held_a_seat_reads_the_end_in_their_own_language(
    service, outbox, composer, server
):
    people = [replace(PEOPLE[0], language="de"), PEOPLE[1]]
    created = service.create_game(people, None, SHORT)
    game = created.game_id
    for seat in (1, 2):
        service.replace_seat(game, seat, "bot")
    service.play_bots(game)
    assert service.state_at(game)["turn"] is None
    send(outbox, composer, server)
    (ann,) = [m for m in server.to("ann@example.com") if m["X-Pbem-Kind"] == "game_over"]
    (ben,) = [m for m in server.to("ben@example.com") if m["X-Pbem-Kind"] == "game_over"]
    assert ann["Subject"].endswith(": Die Partie ist zu Ende")
    assert text_of(ann).startswith("Hallo Ann,")
    assert ben["Subject"].endswith(": the game is over")
    assert text_of(ben).startswith("Hello Ben,")


# -- 11. a Date on every mail ---------------------------------------------------------


def _compose(service, composer, outbox, clock, game_id, seq, kind, seat, to, payload):
    mail = rows.new_mail(game_id, seq, kind, seat, to, payload, timestamp(clock()))
    with service.db.writing() as conn:
        (row_id,) = rows.add_mails(conn, [mail])
    return composer.compose(claim_alone(outbox, row_id, composer.message_id))


def test_every_kind_of_mail_has_a_date(service, outbox, composer, clock):
    created = service.create_game(PEOPLE, None, SHORT)
    game = created.game_id
    state = service.state_at(game)
    service.submit_action(game, token(created, 1), service.legal(game, 1)[0], state["seq"])
    service.take_vacation(game, token(created, 1), 1)
    service.set_mail_preference(game, token(created, 2), "none")  # its chat row is written here
    service.say(game, token(created, 1), "hello")
    seq = service.state_at(game)["seq"]
    answer = {"lines": ["ok"], "ignored": [], "in_reply_to": "", "subject": "hi"}
    mails = [
        ("chat", 2, {}),
        ("invitation", 2, {}),
        ("your_turn", 2, {}),
        ("reminder", 2, {"hours": 24}),
        ("round_scored", 1, {"round": 1}),
        ("game_over", 1, {}),
        ("timed_out", 1, {}),
        ("undo_request", 2, {"asked_by": 1}),
        ("undo_lapsed", 2, {"asked_by": 1, "reason": "it was not answered in time"}),
        ("vacation", 2, {"who": 1, "until": timestamp(clock())}),
        ("answer", 1, answer),
        ("resigned", 2, {"who": 1}),
    ]
    kinds = {k for k, _, _ in mails} | {"rematch_offer"}  # tried after the loop: at the end
    written = {p.stem for p in (TEMPLATES / "mail").glob("*.txt") if not p.stem.startswith("_")}
    several = {"my_games", "digest", "sign_in", "sign_out"}
    assert kinds | several | {"join_confirm"} == written  # every kind is tried here
    clock.advance(hours=5)
    expected = format_datetime(clock())
    for kind, seat, payload in mails:
        to = PEOPLE[seat - 1].email
        at = None if kind == "vacation" else seq  # the vacation's own mail is written
        message = _compose(service, composer, outbox, clock, game, at, kind, seat, to, payload)
        assert message["Date"] == expected, kind
    for kind in sorted(several):
        payload = {"seats": [[game, 1]], "nonce": "0123456789abcdef"}
        message = _compose(
            service, composer, outbox, clock, None, None, kind, None, "ann@example.com", payload
        )
        assert message["Date"] == expected, kind
    table = service.open_table([PEOPLE[0]], 1, game="nim").table_id
    payload = {"nonce": "0123456789abcdef", "table": table, "name": "Cy"}
    message = _compose(
        service,
        composer,
        outbox,
        clock,
        None,
        None,
        "join_confirm",
        None,
        "cy@example.com",
        payload,
    )
    assert message["Date"] == expected
    over = service.create_game(PEOPLE, None, {"pile": 2}, game="nim")
    service.submit_action(over.game_id, token(over, 1), "take 2", 1)
    service.offer_rematch(over.game_id, token(over, 1))  # writes its row to Ben
    with service.db.reading() as conn:
        offer = conn.execute(
            select(rows.OUTBOX.c.id).where(rows.OUTBOX.c.kind == "rematch_offer")
        ).scalar_one()
    message = composer.compose(claim_alone(outbox, offer, composer.message_id))
    assert message["Date"] == expected


def test_the_dev_mail_pages_show_each_mails_date(web, clock, tmp_path):
    app, parts = web
    folder = tmp_path / "instance" / "mail"
    port = _free_port()
    controller = catcher.start(folder, port=port)
    try:
        parts.service.create_game(PEOPLE, None, SHORT)
        deliver_due(parts.outbox, Composer(parts.service, parts.settings), Smtp("127.0.0.1", port))
    finally:
        controller.stop()
    client = app.test_client()
    date = format_datetime(clock())
    assert date in client.get("/dev/mail").get_data(as_text=True)
    assert date in client.get("/dev/mail/1").get_data(as_text=True)


# -- 12. events as sentences; private ones stay private -------------------------------


def test_every_event_kind_has_a_sentence_for_players():
    assert set(told.SENTENCES) == set(EVENT_TYPES)
    assert {kind.TYPE for kind in told.SENTENCES} == set(VERSIONS)


def test_a_players_mail_preference_is_never_shown_to_others(service, outbox, composer, server):
    created = service.create_game(PEOPLE, None, SHORT)
    game = created.game_id
    service.set_mail_preference(game, token(created, 1), "every")
    service.take_vacation(game, token(created, 1), 2)
    seen = service.state_at(game)["seq"]
    service.submit_action(game, token(created, 1), service.legal(game, 1)[0], seen)
    for seat in (None, 1, 2):
        for happened in service.history(game, seat):
            assert happened.text != happened.type and happened.type not in happened.text
    own = [h.type for h in service.history(game, 1)]
    assert "MailPreferenceChanged" in own and "VacationStarted" in own
    for seat in (None, 2):
        assert "MailPreferenceChanged" not in [h.type for h in service.history(game, seat)]
    with pytest.raises(Stale) as stale:
        service.submit_action(game, token(created, 2), service.legal(game, 2)[0], 1)
    assert "MailPreferenceChanged" not in [h.type for h in stale.value.since]
    assert "mail" not in stale.value.message.lower().replace("by mail", "")
    send(outbox, composer, server)
    (turn,) = [m for m in server.to("ben@example.com") if m["X-Pbem-Kind"] == "your_turn"]
    text = text_of(turn)
    assert "VacationStarted" not in text and "MailPreferenceChanged" not in text
    assert "Ann is on vacation until" in text and "mail preference" not in text


# -- whatever goes in, every row ends well and the others still go --------------------

HOSTILE = st.text(
    st.one_of(
        st.sampled_from(["\r", "\n", "\x00", '"', "<", ">", "@", ":", ",", ";", "\\"]),
        st.characters(codec="utf-8"),
    ),
    max_size=300,
)


@hypothesis_settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(address=HOSTILE, subject=HOSTILE, name=HOSTILE)
def test_hostile_addresses_subjects_and_names_never_stop_delivery(
    service, outbox, composer, server, clock, address, subject, name
):
    clock.advance(hours=25)  # an address gets a few invitations a day
    game = service.create_game(PEOPLE, None, SHORT).game_id
    hostile = [_answer(outbox, game, address, subject), _answer(outbox, game, "ann@x.org", subject)]
    try:
        created = service.create_game(
            [PlayerSpec(name or "N", address or None), PlayerSpec("Ben", "ben@example.com")]
        )
        hostile.append(created.game_id)
    except BadRequest:
        pass
    good = _answer(outbox, game, "ben@example.com", "fine")
    before = len(server.raw)
    send(outbox, composer, server)
    found = {r.id: r for r in outbox_rows(service)}
    assert found[good].status == "sent"
    for row in found.values():
        assert row.status in ("sent", "failed", "skipped"), row
        assert row.attempts <= MAX_ATTEMPTS
    for raw in server.raw[before:]:
        head = raw.split(b"\r\n\r\n")[0]
        names = [
            line.split(b":")[0].lower() for line in head.split(b"\r\n") if line[:1] not in b" \t"
        ]
        assert b"bcc" not in names and names.count(b"subject") == 1 and names.count(b"to") == 1
        assert b"\x00" not in head and all(line.isascii() for line in head.split(b"\r\n"))
        message = BytesParser(policy=policy.default).parsebytes(raw)
        assert parsedate_to_datetime(message["Date"]) <= clock()


def test_the_game_page_log_shows_a_mail_preference_only_to_its_own_seat(web):
    app, parts = web
    created = parts.service.create_game(PEOPLE, {"public": True}, SHORT)
    game = created.game_id
    parts.service.set_mail_preference(game, token(created, 1), "digest")
    pages = {}
    for seat in (1, 2):
        client = app.test_client()
        assert client.get(f"/g/{game}/{token(created, seat)}").status_code == 302
        pages[seat] = client.get(f"/g/{game}").get_data(as_text=True)
    pages[None] = app.test_client().get(f"/g/{game}/watch").get_data(as_text=True)
    assert "You chose one digest a day" in pages[1]
    for seat in (2, None):
        assert "chose one digest" not in pages[seat] and "MailPreferenceChanged" not in pages[seat]
