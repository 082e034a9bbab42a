"""Playing by replying: one handler for every way a mail comes in (`pbem inbound` on
stdin, the IMAP poller, the webhook). It trusts the signed reply address and the
sender, acts on the first command line once per Message-ID, and answers by mail:
accepted, illegal (the rule and the legal actions), stale (what happened, and the
choice now), unreadable (the grammar), or what was asked (status, legal, undo,
help). It never answers an automatic mail, a list mail, or one of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr

from pbem.config import Settings
from pbem.service import Illegal, Service, ServiceError, Stale
from pbem.service.inbox import PER_SENDER_PER_HOUR, Inbox
from pbem.service.outbox import Outbox
from pbem.service.service import Notice

from . import replyto
from .reading import body_text, reply_lines

MAX_BYTES = 1_000_000
GRAMMAR = [
    "Write your move on the first line of your reply, in the game's notation:",
    "  money L             take the bottom tile of column L as money",
    "  build L2 at 1,3     build the tile in slot L2 on cell (1,3) of your mall",
    "  build L2 at 1,3 for M1.2    ... and say which customer moves, when several can",
    "  attraction haunted-hotel at -1,2 mirror    build an attraction (mirrored)",
    "  dock GD2 at 2       build a docking bay",
    "  pass                only when nothing else is legal",
    "Or one of: status (the game now), legal (your legal actions), undo (take back",
    "your last move), help (this).",
]


@dataclass
class Handled:
    """What became of an incoming mail. `bounce` is true when the mail server should
    refuse it (a reply address this server did not sign, a mail too large)."""

    status: str
    detail: str = ""
    bounce: bool = False
    answer: int | None = None  # the outbox row of the answer, if any
    ignored: list[str] = field(default_factory=list)


class Inbound:
    def __init__(
        self,
        service: Service,
        outbox: Outbox,
        settings: Settings,
        clock: Callable[[], datetime],
    ) -> None:
        self.service = service
        self.outbox = outbox
        self.inbox = Inbox(service.db, clock)
        self.settings = settings
        self.key = settings.signing_key()

    def handle(self, raw: bytes, recipient: str | None = None) -> Handled:
        """Act on one RFC 822 message; `recipient` is the envelope recipient when
        the mail server tells it."""
        if len(raw) > MAX_BYTES:
            return Handled("refused", f"the mail is larger than {MAX_BYTES} bytes", bounce=True)
        message = BytesParser(policy=policy.default).parsebytes(raw)
        why = _automatic(message)
        if why:
            return Handled("ignored", why)
        address = replyto.find([recipient or "", *_recipients(message)])
        if address is None:
            return Handled("refused", "no game's reply address among the recipients", bounce=True)
        try:
            reply = replyto.read(self.key, self.settings.mail_domain, address)
        except replyto.Forged as error:
            return Handled("refused", str(error), bounce=True)
        sender = parseaddr(str(message.get("From", "")))[1].lower()
        message_id = str(message.get("Message-ID") or "").strip()
        if not sender or not message_id:
            return Handled("refused", "a mail needs a From and a Message-ID", bounce=True)
        seat = self._seat(reply, sender)
        if seat is None:
            return self._answered(
                reply,
                sender,
                message,
                "refused",
                [
                    f"This address ({sender}) does not play seat {reply.seat} of game "
                    f"{reply.game_id}, so the mail was not acted on. Reply from the address "
                    "your game mails go to.",
                ],
            )
        received = self.inbox.receive(message_id, sender, reply.game_id)
        if received == "duplicate":
            return Handled("duplicate", f"{message_id} was handled already")
        if received == "too many":
            return Handled(
                "ignored", f"{sender} sent more than {PER_SENDER_PER_HOUR} mails in an hour"
            )
        lines = reply_lines(body_text(message))
        handled = self._act(reply, seat, sender, message, lines)
        self.inbox.handled(message_id, handled.status)
        return handled

    # -- who and whether ------------------------------------------------------------

    def _seat(self, reply: replyto.ReplyTo, sender: str) -> str | None:
        """The seat's token, when `sender` may play it (its own address, or anyone
        when the game allows any sender)."""
        try:
            links = {s.seat: s for s in self.service.seat_links(reply.game_id)}
            options = self.service.options(reply.game_id)
        except ServiceError:
            return None
        link = links.get(reply.seat)
        if link is None or link.token is None:
            return None
        if options["any_sender"] or (link.email or "").lower() == sender:
            return link.token
        return None

    # -- what it says ---------------------------------------------------------------

    def _act(
        self,
        reply: replyto.ReplyTo,
        token: str,
        sender: str,
        message: EmailMessage,
        lines: list[str],
    ) -> Handled:
        if not lines:
            return self._answered(
                reply,
                sender,
                message,
                "unreadable",
                ["Your mail had no command in it.", "", *GRAMMAR],
            )
        command, ignored = lines[0], lines[1:]
        word = command.lower().strip(".! ")
        if word == "help":
            return self._answered(reply, sender, message, "help", GRAMMAR, ignored)
        if word == "status":
            text = self.service.describe(reply.game_id, seat=reply.seat).splitlines()
            return self._answered(reply, sender, message, "status", text, ignored)
        if word == "legal":
            return self._answered(reply, sender, message, "legal", self._choice(reply), ignored)
        if word == "undo":
            try:
                event = self.service.undo(reply.game_id, token)
            except ServiceError as error:
                return self._answered(
                    reply, sender, message, "undo", [f"No undo: {error.message}."], ignored
                )
            said = (
                "Your last move was taken back."
                if event.type == "UndoDone"
                else "The others must agree to take your move back; they have been asked."
            )
            return self._answered(
                reply, sender, message, "undo", [said, "", *self._choice(reply)], ignored
            )
        return self._move(reply, token, sender, message, command, ignored)

    def _move(
        self,
        reply: replyto.ReplyTo,
        token: str,
        sender: str,
        message: EmailMessage,
        command: str,
        ignored: list[str],
    ) -> Handled:
        key = "mail:" + str(message.get("Message-ID")).strip()
        earlier = self.service.earlier_answer(reply.game_id, key)
        if earlier is not None:  # a handler died after playing it: say so again
            lines = [f"Played: {earlier.narration}.", "The next player is mailed as usual."]
            return self._answered(reply, sender, message, "accepted", lines, ignored)
        since = self._moves_since(reply)
        if since:
            lines = [
                "The game moved on since the mail you answered, so your move was not played:",
                *(f"  seq {h.seq}: {h.text}" for h in since),
                "",
                *self._choice(reply),
            ]
            return self._answered(reply, sender, message, "stale", lines, ignored)
        head = self.service.state_at(reply.game_id)["seq"]
        try:
            accepted = self.service.submit_action(reply.game_id, token, command, head, key)
        except Stale as stale:
            lines = [
                "The game moved on while your mail was on its way:",
                *(f"  seq {h.seq}: {h.text}" for h in stale.since),
                "",
                *self._choice(reply),
            ]
            return self._answered(reply, sender, message, "stale", lines, ignored)
        except Illegal as error:
            if (error.detail or {}).get("unreadable"):
                lines = [f'"{command}" is not a move this server can read.', "", *GRAMMAR]
                return self._answered(reply, sender, message, "unreadable", lines, ignored)
            lines = [f'"{command}" is not legal: {error.message}.', "", *self._choice(reply)]
            return self._answered(reply, sender, message, "illegal", lines, ignored)
        lines = [f"Played: {accepted.narration}.", "The next player is mailed as usual."]
        return self._answered(reply, sender, message, "accepted", lines, ignored)

    def _moves_since(self, reply: replyto.ReplyTo) -> list:
        """The moves (or undos) made after the seq the answered mail was written at."""
        moves = ("ActionTaken", "TurnTimedOut", "UndoDone")
        return [
            h for h in self.service.history(reply.game_id) if h.seq > reply.seq and h.type in moves
        ]

    def _choice(self, reply: replyto.ReplyTo) -> list[str]:
        """The seat's choice now: its legal actions, or whose turn it is."""
        doc = self.service.state_at(reply.game_id, seat=reply.seat)
        if doc["turn"] is None:
            return ["The game is over."]
        if doc["turn"] != reply.seat:
            name = doc["players"][doc["turn"] - 1]["name"]
            return [f"It is {name}'s turn (seat {doc['turn']}); you will get a mail at yours."]
        options = self.service.turn_options(reply.game_id, reply.seat)
        return ["Your legal actions now:", *(f"  {o['text']}  ({o['preview']})" for o in options)]

    def _answered(
        self,
        reply: replyto.ReplyTo,
        sender: str,
        message: EmailMessage,
        status: str,
        lines: list[str],
        ignored: list[str] | None = None,
    ) -> Handled:
        """Queue the answer to `message` and say what was done."""
        ignored = ignored or []
        payload = {
            "status": status,
            "lines": lines,
            "ignored": ignored,
            "in_reply_to": str(message.get("Message-ID") or "").strip(),
            "subject": str(message.get("Subject") or "").strip(),
        }
        answer = self.outbox.answer(reply.game_id, reply.seat, sender, payload)
        if self.service.notify is not None:
            self.service.notify(Notice(reply.game_id, (answer,), None))
        return Handled(status, lines[0] if lines else "", answer=answer, ignored=ignored)


def _recipients(message: EmailMessage) -> list[str]:
    """Every address the mail says it was for, the delivery headers first."""
    headers = [
        *message.get_all("Delivered-To", []),
        *message.get_all("X-Original-To", []),
        *message.get_all("To", []),
        *message.get_all("Cc", []),
    ]
    return [address for _, address in getaddresses([str(h) for h in headers])]


def _automatic(message: EmailMessage) -> str | None:
    """Why a mail must not be answered (it is automatic, a list's, or ours), or None."""
    auto = str(message.get("Auto-Submitted", "no")).strip().lower()
    if auto != "no":
        return f"an automatic mail (Auto-Submitted: {auto})"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"a {precedence} mail"
    if message.get("X-Pbem-Kind") is not None:
        return "one of this server's own mails"
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    if sender.startswith(("mailer-daemon@", "postmaster@")) or message.get("Return-Path") == "<>":
        return "a bounce"
    return None
