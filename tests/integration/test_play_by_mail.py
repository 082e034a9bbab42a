"""A whole two-player game played by mail only: each player waits for their turn
mail, hits reply, writes the first legal action the mail lists on the first line
above the quoted mail, and sends it to the server's SMTP address; nothing else."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller

from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.mail.inbound import Inbound
from pbem.service import PlayerSpec

from support import Kept, free_port

SUPPLY = [
    "Y01",
    "B01",
    "G01",
    "R13",
    "Y02",
    "B02",
    "G02",
    "R01",
    "Y03",
    "B03",
    "G03",
    "R02",
    "Y04",
    "B04",
]


class Piped:
    """The server's incoming mail: each message handed to the inbound handler, as a
    mail server's pipe would."""

    def __init__(self, inbound: Inbound) -> None:
        self.inbound = inbound
        self.outcomes: list[str] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        handled = self.inbound.handle(envelope.original_content, envelope.rcpt_tos[0])
        self.outcomes.append(handled.status)
        return "550 5.1.1 not a game address" if handled.bounce else "250 OK"


@pytest.fixture
def post(web):
    _, parts = web
    kept, piped = (
        Kept(),
        Piped(Inbound(parts.service, parts.outbox, parts.settings, parts.service.clock)),
    )
    out = Controller(kept, hostname="127.0.0.1", port=free_port())
    into = Controller(piped, hostname="127.0.0.1", port=free_port())
    out.start()
    into.start()
    yield kept, piped, Smtp("127.0.0.1", out.port), into.port
    out.stop()
    into.stop()


def reply_to(mail: EmailMessage, sender: str, first_line: str) -> EmailMessage:
    """What hitting reply and typing a line gives, as most mail programs write it."""
    answer = EmailMessage()
    answer["From"] = sender
    answer["To"] = mail["Reply-To"]
    answer["Subject"] = "Re: " + mail["Subject"]
    answer["In-Reply-To"] = mail["Message-ID"]
    answer["Message-ID"] = f"<reply-to-{mail['Message-ID'].strip('<>')}>"
    quoted = "\n".join("> " + line for line in mail.get_body(("plain",)).get_content().splitlines())
    answer.set_content(f"{first_line}\n\nOn Monday, Mall by mail wrote:\n{quoted}\n")
    return answer


def first_legal(mail: EmailMessage) -> str:
    lines = mail.get_body(("plain",)).get_content().splitlines()
    return lines[lines.index("Your legal actions:") + 1].strip().split("  (")[0]


def test_a_whole_game_by_mail_only(web, post):
    _, parts = web
    kept, piped, outgoing, incoming = post
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"supply": SUPPLY, "commons": ["aqua-dome"], "secrets": {"1": "O3", "2": "O5"}},
    )
    composer = Composer(parts.service, parts.settings)
    answered: set[str] = set()
    for _ in range(40):
        deliver_due(parts.outbox, composer, outgoing)
        turns = [
            m
            for m in kept.mails
            # turn mails, and the invitation that is the first one
            if "Your legal actions:" in m.get_body(("plain",)).get_content()
            and m["Message-ID"] not in answered
        ]
        if not turns:
            break
        mail = turns[0]
        answered.add(mail["Message-ID"])
        player = mail["To"].addresses[0].addr_spec
        with smtplib.SMTP("127.0.0.1", incoming) as server:
            server.send_message(reply_to(mail, player, first_legal(mail)))
    state = parts.service.state_at(created.game_id)
    assert state["status"] == "finished"
    moves = [h for h in parts.service.history(created.game_id) if h.type == "ActionTaken"]
    assert len(moves) == len(piped.outcomes) - 0 and set(piped.outcomes) == {"accepted"}
    kinds = [m["X-Pbem-Kind"] for m in kept.mails]
    assert kinds.count("invitation") == 2 and kinds.count("game_over") == 2
    assert kinds.count("answer") == len(moves)
    played = [m for m in kept.mails if m["X-Pbem-Kind"] == "answer"]
    assert all(m["In-Reply-To"].startswith("<reply-to-") for m in played)
    assert all(m.get_body(("plain",)).get_content().count("Played: ") == 1 for m in played)
