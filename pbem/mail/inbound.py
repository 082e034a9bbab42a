"""Playing by replying: one handler for every way a mail comes in (`pbem inbound` on
stdin, the IMAP poller, the webhook). It trusts a reply address signed for the seat's
current holder and, for the sender, the seat's own address (or anyone, when the game
allows it; or only mail our receiving server authenticated, when the game asks). Every
mail passes the ledger first (once per Message-ID, limits per sender and per answered
address); then it acts on the first command line and answers by mail — only ever to
the seat's own address: accepted, illegal (the rule and the legal actions), stale
(what happened, and the choice now), unreadable (the grammar), or what was asked
(status, legal, undo, agree, refuse, help). A sender who is not the seat gets nothing.
It never answers an automatic mail, a list mail, or one of its own; a mail it cannot
read is refused and recorded, never left to be tried again; only a passing failure
(the database or the broker away) is raised, with the ledger left for the retry."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.parser import BytesParser

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from pbem import i18n, logs
from pbem.config import Settings
from pbem.events import MOVE_TYPES, UndoDone
from pbem.i18n import gettext as _
from pbem.service import Illegal, Service, ServiceError, Stale
from pbem.service.errors import SeatLink
from pbem.service.inbox import PER_SENDER_PER_HOUR, TOO_MANY, Inbox, ledger_key
from pbem.service.outbox import Outbox
from pbem.service.service import Notice

from . import answers, headers, replyto, tablereply, talk
from .handled import FORGED, MALFORMED, NO_ADDRESS, TOO_LARGE, UNREADABLE, Handled
from .reading import body_text, reply_lines

# The words a reply's first line may be besides a move (its table talk, `say`, is
# read before): never the start of a move of several lines.
COMMANDS = (*talk.COMMANDS, *tablereply.WORDS)

try:  # the broker away
    from kombu.exceptions import OperationalError as BrokerDown
except ImportError:  # pragma: no cover - kombu comes with celery
    BrokerDown = OperationalError  # type: ignore[misc,assignment]

log = logging.getLogger(__name__)

MAX_BYTES = 1_000_000
# Failures that pass: the mail server (or poller) should try the mail again later.
TEMPORARY: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeout,
    BrokerDown,
)
_MSG_ID = re.compile(r"<[!-;=?-~]{1,180}@[!-;=?-~]{1,180}>")


@dataclass
class _Entry:
    """What the ledger knows of the mail being handled."""

    message_id: str = ""
    sender: str = ""
    game_id: str | None = None
    received: bool = False  # a "received" row is ours


@dataclass
class _Reply:
    """A mail to a seat's signed address, from a sender who may act for it."""

    address: replyto.ReplyTo
    token: str
    to: str | None  # the seat's own address: the only one answers go to
    message_id: str
    in_reply_to: str
    subject: str
    quiet: bool = False  # the sender asks for no automatic answers


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
        the mail server tells it. Never raises, except one of TEMPORARY (then the
        ledger is left so that the retry is handled)."""
        entry = _Entry()
        try:
            with logs.context():  # the lines of this mail carry its game and seat
                handled = self._handle(raw, recipient, entry)
        except TEMPORARY:
            if entry.received:
                try:
                    self.inbox.release(entry.message_id)
                except TEMPORARY:  # still away: the row is taken over after IN_HAND
                    log.warning("mail %s stays in hand until it is taken over", entry.message_id)
            raise
        except Exception as error:  # a mail this server cannot read, whatever it holds
            log.warning("mail refused: %s: %s", type(error).__name__, error)
            why = "the mail could not be read"
            try:
                handled = self._refused(entry, raw, why, UNREADABLE)
            except TEMPORARY:
                raise
            except Exception as unrecorded:  # refused all the same
                log.error("refused mail not recorded: %s", unrecorded)
                handled = Handled("refused", why, bounce=True, reason=UNREADABLE)
        handled.game = entry.game_id
        return handled

    def _handle(self, raw: bytes, recipient: str | None, entry: _Entry) -> Handled:
        if len(raw) > MAX_BYTES:
            return self._refused(
                entry, raw, f"the mail is larger than {MAX_BYTES} bytes", TOO_LARGE
            )
        message = BytesParser(policy=policy.default).parsebytes(raw)
        entry.message_id = headers.first(message, "Message-ID").strip()
        why = headers.automatic(message, self.settings.mail_domain)
        if why:
            return self._ignored(entry, raw, headers.sender(message) or "", why)
        address = replyto.find([recipient or "", *headers.recipients(message)])
        if address is None:
            return self._refused(
                entry, raw, "no game's reply address among the recipients", NO_ADDRESS
            )
        try:
            reply = replyto.read(self.key, self.settings.mail_domain, address, self._holder)
        except replyto.Forged as error:
            return self._refused(entry, raw, str(error), FORGED)
        entry.game_id = reply.game_id
        logs.bind(game_id=reply.game_id, seat=reply.seat)
        sender = headers.sender(message)
        if sender is None or not entry.message_id:
            return self._refused(
                entry, raw, "a mail needs one readable From address and a Message-ID", MALFORMED
            )
        entry.sender = sender
        link = self._link(reply)
        options = self.service.options(reply.game_id)
        own = (link.email or "").lower() == sender
        if not own and not options.get("any_sender"):
            return self._refused(
                entry, raw, f"{sender} does not play seat {reply.seat} of game {reply.game_id}"
            )
        if options.get("authenticated_mail") and not headers.authenticated(
            message, sender, self.settings.authserv_id
        ):
            return self._refused(
                entry,
                raw,
                "the game takes only mail its receiving server authenticated "
                "(DKIM, SPF or DMARC pass for the From domain)",
            )
        to = link.email or None
        mail = _Reply(
            reply,
            link.token or "",
            to,
            entry.message_id,
            entry.message_id if _MSG_ID.fullmatch(entry.message_id) else "",
            headers.text(headers.first(message, "Subject"))[:200],
            headers.no_answers(message),
        )
        received = self.inbox.receive(entry.message_id, sender, reply.game_id, to)
        if received == "duplicate":
            return Handled("duplicate", "this mail (its Message-ID) was handled already")
        if received == "in hand":
            return Handled("in hand", "this mail is being handled now", retry=True)
        # the answer is in the seat's language, as its other mails are
        language = self.service.seat_settings(reply.game_id, reply.seat).get("language")
        with i18n.speaking(language or i18n.DEFAULT):
            if received == TOO_MANY:
                return self._too_many(mail, sender)
            entry.received = True
            lines = reply_lines(body_text(message), blanks=True)
            handled = talk.handle(self, mail, lines, Handled)
        self.inbox.handled(entry.message_id, handled.status)
        return handled

    # -- who and whether ------------------------------------------------------------

    def _holder(self, game_id: str, seat: int) -> str | None:
        """The seat's current token (None: no such game or seat, or a bot's)."""
        try:
            links = self.service.seat_links(game_id)
        except ServiceError:
            return None
        return next((s.token for s in links if s.seat == seat), None)

    def _link(self, reply: replyto.ReplyTo) -> SeatLink:
        return next(s for s in self.service.seat_links(reply.game_id) if s.seat == reply.seat)

    def _refused(self, entry: _Entry, raw: bytes, why: str, bounce: str = "") -> Handled:
        """Record the mail as refused (no answer goes to anyone); it bounces when
        `bounce` gives the reason why (see pbem.mail.handled)."""
        key = entry.message_id or "sha256-of-mail:" + hashlib.sha256(raw).hexdigest()
        self.inbox.refuse(key, entry.sender, entry.game_id)
        return Handled("refused", why, bounce=bool(bounce), reason=bounce)

    def _ignored(self, entry: _Entry, raw: bytes, sender: str, why: str) -> Handled:
        """Record an automatic mail as ignored: no answer, and (of no game) it
        counts toward no sender's limit."""
        key = entry.message_id or "sha256-of-mail:" + hashlib.sha256(raw).hexdigest()
        self.inbox.refuse(key, sender, None, outcome="ignored")
        return Handled("ignored", why)

    def _too_many(self, mail: _Reply, sender: str) -> Handled:
        """Over the limit: the seat is told once an hour, then nothing."""
        detail = f"{sender} sent more than {PER_SENDER_PER_HOUR} mails in an hour"
        if mail.to is None or mail.quiet:
            return Handled("ignored", detail)
        lines = answers.too_many()
        answer = self.inbox.answer(
            mail.address.game_id,
            mail.address.seat,
            mail.to,
            self._payload(mail, TOO_MANY, lines, []),
            note=True,
        )
        self._notify(mail.address.game_id, answer)
        return Handled("ignored", detail, answer=answer)

    # -- what it says ---------------------------------------------------------------

    def _act(self, mail: _Reply, lines: list[str]) -> Handled:
        """Act on the lines the player wrote ("" where blank lines parted them): the
        first is a command, or the move; a game whose mails read a move of several
        lines (`MULTILINE`) takes every line up to the first blank one."""
        lines = answers.read(self.service, mail.address.game_id, lines, COMMANDS)
        if not lines:
            lines = [_("Your mail had no command in it."), "", *self._grammar(mail)]
            return self._answered(mail, "unreadable", lines)
        command, ignored = lines[0], answers.ignored(lines[1:])
        word = command.lower()
        game_id, seat = mail.address.game_id, mail.address.seat
        if word == "help":
            return self._answered(mail, "help", self._grammar(mail), ignored)
        if word == "status":
            text = self.service.describe(game_id, seat=seat).splitlines()
            return self._answered(mail, "status", text, ignored, "the position was mailed")
        if word == "legal":
            choice = self._choice(mail)
            return self._answered(mail, "legal", choice, ignored, "the legal actions were mailed")
        if word == "undo":
            try:
                event = self.service.undo(game_id, mail.token)
            except ServiceError as error:
                no = _("No undo: %(why)s.", why=error.message)
                return self._answered(mail, "undo", [no], ignored)
            said = (
                _("Your last move was taken back.")
                if isinstance(event.event, UndoDone)
                else _("The others must agree to take your move back; they have been asked.")
            )
            return self._answered(mail, "undo", [said, "", *self._choice(mail)], ignored)
        if word in ("agree", "refuse"):
            try:
                event = self.service.answer_undo(game_id, mail.token, word == "agree")
            except ServiceError as error:
                no = _("No undo to answer: %(why)s.", why=error.message)
                return self._answered(mail, "undo", [no])
            if isinstance(event.event, UndoDone):
                said = _("You agreed, and the move was taken back.")
            elif word == "agree":
                said = _("You agreed; the others have still to answer.")
            else:
                said = _("You refused, so the move stands.")
            return self._answered(mail, "undo", [said, "", *self._choice(mail)], ignored)
        return tablereply.act(self, mail, command, ignored) or self._move(mail, command, ignored)

    def _move(self, mail: _Reply, command: str, ignored: list[str]) -> Handled:
        reply = mail.address
        shown = "; ".join(command.split("\n"))  # a move of several lines, said on one
        key = "mail:" + hashlib.sha256(ledger_key(mail.message_id).encode()).hexdigest()
        since = self._moves_since(reply)
        try:
            if since:  # stale, unless this very mail was played before a handler died
                accepted = self.service.submit_action(
                    reply.game_id, mail.token, command, reply.seq, key
                )
            else:
                head = self.service.state_at(reply.game_id)["seq"]
                accepted = self.service.submit_action(reply.game_id, mail.token, command, head, key)
        except Stale as stale:
            moves = since or stale.since
            lines = [
                _("The game moved on since the mail you answered, so your move was not played:")
                if since
                else _("The game moved on while your mail was on its way:"),
                *("  " + _("seq %(seq)s: %(text)s", seq=h.seq, text=h.text) for h in moves),
                "",
                *self._choice(mail),
            ]
            return self._answered(mail, "stale", lines, ignored)
        except Illegal as error:
            if (error.detail or {}).get("unreadable"):
                lines = [*answers.unreadable(command, error.message), "", *self._grammar(mail)]
                return self._answered(mail, "unreadable", lines, ignored)
            illegal = _('"%(command)s" is not legal: %(why)s.', command=shown, why=error.message)
            return self._answered(mail, "illegal", [illegal, "", *self._choice(mail)], ignored)
        except ServiceError as error:
            refused = [_("Not played: %(why)s.", why=error.message)]
            return self._answered(mail, "refused", refused, ignored)
        doc = self.service.state_at(reply.game_id, seat=reply.seat)
        if doc["status"] == "playing" and doc["turn"] is None:  # seats moving at once
            after = (
                _("The phase is resolved: the mail for the next one follows.")
                if reply.seat in doc["waiting"]
                else _("Until the phase is resolved you may send other orders; they replace these.")
            )
        else:
            after = _("The next player is mailed as usual.")
        lines = [_("Played: %(move)s.", move=accepted.narration), after]
        return self._answered(mail, "accepted", lines, ignored)

    def _grammar(self, mail: _Reply) -> list[str]:
        return answers.grammar(self.service, mail.address.game_id)

    def _choice(self, mail: _Reply) -> list[str]:
        return answers.choice(self.service, mail.address.game_id, mail.address.seat)

    def _moves_since(self, reply: replyto.ReplyTo) -> list:
        """The moves (or undos) made after the seq the answered mail was written at."""
        moves = (*MOVE_TYPES, UndoDone)
        return [
            h
            for h in self.service.history(reply.game_id)
            if h.seq > reply.seq and isinstance(h.event, moves)
        ]

    def _payload(self, mail: _Reply, status: str, lines: list[str], ignored: list[str]) -> dict:
        return {
            "status": status,
            "lines": lines,
            "ignored": ignored,
            "in_reply_to": mail.in_reply_to,
            "subject": mail.subject,
        }

    def _answered(
        self,
        mail: _Reply,
        status: str,
        lines: list[str],
        ignored: list[str] | None = None,
        detail: str | None = None,
    ) -> Handled:
        """Queue the answer — to the seat's own address only, within its limit —
        and say what was done."""
        ignored = ignored or []
        answer = None
        if mail.to is not None and not mail.quiet:
            answer = self.inbox.answer(
                mail.address.game_id,
                mail.address.seat,
                mail.to,
                self._payload(mail, status, lines, ignored),
            )
            self._notify(mail.address.game_id, answer)
        said = detail if detail is not None else (lines[0] if lines else "")
        if detail is None and i18n.language() != i18n.DEFAULT:
            said = f"answered ({status})"  # what was done, for the log: in English
        if mail.quiet:
            said += " (no answer sent: the sender asks for none, X-Auto-Response-Suppress)"
        return Handled(status, said, answer=answer, ignored=ignored)

    def _notify(self, game_id: str, answer: int | None) -> None:
        """Hand the answer to a worker now; when the broker is away, the sweep
        finds it."""
        if answer is None or self.service.notify is None:
            return
        try:
            self.service.notify(Notice(game_id, (answer,), None))
        except Exception as error:  # the outbox row is there: the sweep sends it
            log.warning("answer %s left for the sweep: %s", answer, error)
