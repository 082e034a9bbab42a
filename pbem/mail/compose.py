"""Turning an outbox row into a mail: a Jinja2 text and HTML pair from templates/mail/,
headers built with `email.message` (never pasted together) from cleaned text, dated by
the composer's clock, threaded per game and seat, the game's log head in the footer.
A turn mail whose turn was played before it could go is moot, and is skipped rather
than sent; so is a mail whose seat has changed hands since it was written, except
the ones a former holder still gets (without a link to the seat)."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy import Row

from pbem import resources
from pbem.config import Settings
from pbem.service import Happened, Service
from pbem.service.addresses import checked_address
from pbem.service.tokens import seat_url, token_hash
from pbem.store.events import ACTION_TAKEN, TURN_TIMED_OUT, UNDO_DONE

from .replyto import reply_address

TEMPLATES = resources.TEMPLATES
SHORT_NOTATION = "money L, build L2 at 1,3, attraction haunted-hotel at -1,2 mirror, pass"
TURN_PLAYED = (ACTION_TAKEN, TURN_TIMED_OUT, UNDO_DONE)  # events that end a turn mail's turn
FOR_FORMER_HOLDERS = ("game_over", "timed_out")  # what still goes once a seat changed hands
HEADER_TEXT_LIMIT = 200


class UnknownMail(ValueError):
    """An outbox row of a kind this server does not write mails for."""


class Moot(Exception):
    """A mail that no longer matters (its turn was played, its game moved on)."""


def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


class Composer:
    def __init__(self, service: Service, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.templates = environment()

    def message_id(self) -> str:
        return make_msgid(domain=self.settings.mail_domain)

    def compose(self, row: Row) -> EmailMessage:
        """The mail of a claimed outbox row (it has its Message-ID)."""
        kind = "reminder" if row.kind.startswith("reminder-") else row.kind
        build = getattr(self, f"_{kind}", None)
        if build is None:
            raise UnknownMail(f"no mail is written for {row.kind!r} rows")
        subject, context = build(row)
        message = EmailMessage()
        message["Subject"] = header_text(subject)
        message["From"] = Address("Mall by mail", "noreply", self.settings.mail_domain)
        to = checked_address(row.to_address)
        message["To"] = Address(header_text(context.get("name", "")), addr_spec=to)
        message["Date"] = format_datetime(self.service.clock())
        message["Message-ID"] = row.message_id
        if row.game_id is not None:
            seat = context.get("seat", row.seat)
            thread = f"<game-{row.game_id}-seat-{seat}@{self.settings.mail_domain}>"
            answered = header_text(context.get("in_reply_to") or "")
            message["In-Reply-To"] = answered or thread
            message["References"] = f"{thread} {answered}" if answered else thread
            if "reply_to" in context:
                message["Reply-To"] = Address("Mall by mail", addr_spec=context["reply_to"])
        message["Auto-Submitted"] = "auto-replied" if kind == "answer" else "auto-generated"
        message["X-Pbem-Kind"] = row.kind
        message.set_content(self.templates.get_template(f"mail/{kind}.txt").render(context))
        html = self.templates.get_template(f"mail/{kind}.html").render(context)
        message.add_alternative(html, subtype="html")
        message.as_bytes()  # a mail that cannot be written out fails here, not at the server
        return message

    # -- what each mail says --------------------------------------------------------

    def _game(self, row: Row, seat: int | None = None) -> dict[str, Any]:
        """What every game mail knows: the reader, their link, the game as they may
        see it now, and the log's head. A reader who no longer holds the seat gets
        no link to it (nor its hidden view), and most mails to them are moot."""
        seat = row.seat if seat is None else seat
        if seat is None:
            seat = row.payload["seat"]  # a former holder's mail
        link = next(s for s in self.service.seat_links(row.game_id) if s.seat == seat)
        held = _holds(row, link)
        if not held and row.kind not in FOR_FORMER_HOLDERS:
            raise Moot("the seat has changed hands since this mail was written")
        doc = self.service.state_at(row.game_id, seat=seat if held else None)
        names = {p["seat"]: p["name"] for p in doc["players"]}
        reply = reply_address(
            self.settings.signing_key(),
            self.settings.mail_domain,
            row.game_id,
            seat,
            doc["seq"],
            link.token or "",
        )
        public = self.service.options(row.game_id)["public"]
        base = self.settings.base_url.rstrip("/")
        context = {
            "name": link.name if held else row.payload.get("name", link.name),
            "seat": seat,
            "link": seat_url(base, row.game_id, link.token) if held and link.token else None,
            "watch": f"{base}/g/{row.game_id}/watch" if public else None,
            "held": held,
            "game": row.game_id,
            "doc": doc,
            "names": names,
            "head": doc["head_hash"],
            "seq": doc["seq"],
            "notation": SHORT_NOTATION,
        }
        if held:
            context["reply_to"] = reply
        return context

    def _invitation(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["options"] = self.service.options(row.game_id)
        return f"You are invited to a game of Mall ({row.game_id})", context

    def _your_turn(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        if context["doc"]["turn"] != row.seat or self._played_since(row, context["doc"]):
            raise Moot("the turn was played before this mail went")
        context.update(self._turn(row))
        round_number = context["doc"]["round"]
        return f"Your turn in Mall {row.game_id} (round {round_number})", context

    def _reminder(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        if context["doc"]["seq"] != row.seq or context["doc"]["turn"] != row.seat:
            raise Moot("the turn was played before the reminder went")
        context.update(self._turn(row), hours=row.payload["hours"])
        return (
            f"Reminder: your turn in Mall {row.game_id} ends in {row.payload['hours']:g} hours",
            context,
        )

    def _history(self, row: Row, seat: int | None) -> list[Happened]:
        """The game's events `seat` may be told of, each sentence blanking what it
        may not see now (a tile an undo put back, named by a move taken back)."""
        censor = self.service.censor(row.game_id, seat)
        return [replace(e, text=censor(e.text)) for e in self.service.history(row.game_id, seat)]

    def _played_since(self, row: Row, doc: dict[str, Any]) -> bool:
        """Whether a move (or an undo) was made after the row was written: then its
        turn is not the one the mail announces, even if the same seat is to move."""
        if doc["seq"] == row.seq:
            return False
        later = self.service.history(row.game_id, row.seat)
        return any(e.seq > row.seq and e.type in TURN_PLAYED for e in later)

    def _turn(self, row: Row) -> dict[str, Any]:
        """What a player needs to move: what happened since their last turn, the
        position as text, and every legal action with what it would do."""
        events = self._history(row, row.seat)
        mine = [
            e.seq
            for e in events
            if e.seat == row.seat and e.type in ("ActionTaken", "TurnTimedOut")
        ]
        since = [e for e in events if e.seq > (mine[-1] if mine else 1)]
        return {
            "since": since,
            "position": self.service.describe(row.game_id, seat=row.seat),
            "options": self.service.turn_options(row.game_id, row.seat),
        }

    def _round_scored(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        number = row.payload["round"]
        scored = self.service.state_at(row.game_id, row.seq, row.seat)
        context["scored"] = _standings(scored)
        context["round"] = number
        context["played"] = [
            e for e in self._history(row, row.seat) if e.round == number and e.seat
        ]
        return f"Mall {row.game_id}: round {number} scored", context

    def _game_over(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)  # to a former holder too (row.seat None, payload's seat)
        doc = context["doc"]
        context["final"] = _standings(doc)
        context["winners"] = [context["names"][s] for s in doc["winners"] or []]
        context["attractions"] = {
            p["name"]: [t["id"] for t in p["tiles"] if t["kind"] == "attraction"]
            for p in doc["players"]
        }
        return f"Mall {row.game_id}: the game is over", context

    def _timed_out(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        events = self._history(row, row.seat if context["held"] else None)
        context["played"] = next(e.text for e in events if e.seq == row.seq)
        bot_now = next(s for s in self.service.seat_links(row.game_id) if s.seat == row.seat)
        context["bot_now"] = bool(row.payload.get("replaced")) or bot_now.token is None
        if context["bot_now"]:
            return f"Mall {row.game_id}: time ran out and a bot now plays your seat", context
        return f"Mall {row.game_id}: time ran out and a bot played your turn", context

    def _undo_request(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["asker"] = context["names"][row.payload["asked_by"]]
        return f"Mall {row.game_id}: {context['asker']} asks to take back a move", context

    def _undo_lapsed(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        asked_by = row.payload["asked_by"]
        context["yours"] = asked_by == row.seat
        context["asker"] = context["names"][asked_by]
        context["reason"] = row.payload["reason"]
        return f"Mall {row.game_id}: the request to take back a move lapsed", context

    def _vacation(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["who"] = context["names"][row.payload["who"]]
        context["until"] = row.payload["until"][:16].replace("T", " ") + " UTC"
        return f"Mall {row.game_id}: {context['who']} is on vacation", context

    def _answer(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context.update(row.payload)
        subject = row.payload["subject"] or f"Mall {row.game_id}"
        return subject if subject.lower().startswith("re:") else f"Re: {subject}", context

    def _my_games(self, row: Row) -> tuple[str, dict[str, Any]]:
        games = self._summaries(row)
        if not games:
            raise Moot("the address holds none of these seats any more")
        return "Your games of Mall", {"name": games[0]["name"] if games else "", "games": games}

    def _digest(self, row: Row) -> tuple[str, dict[str, Any]]:
        games = self._summaries(row)
        if not games:
            raise Moot("the address holds none of these seats any more")
        return "Your daily Mall digest", {"name": games[0]["name"] if games else "", "games": games}

    def _summaries(self, row: Row) -> list[dict[str, Any]]:
        """The games of the row's list whose seat the address still holds."""
        found = [
            self._summary(game_id, seat, row.to_address) for game_id, seat in row.payload["seats"]
        ]
        return [s for s in found if s is not None]

    def _summary(self, game_id: str, seat: int, address: str) -> dict[str, Any] | None:
        link = next(s for s in self.service.seat_links(game_id) if s.seat == seat)
        if link.token is None or (link.email or "").lower() != address.lower():
            return None  # a bot's, or another person's seat now
        doc = self.service.state_at(game_id, seat=seat)
        return {
            "game": game_id,
            "seat": seat,
            "name": link.name,
            "link": seat_url(self.settings.base_url, game_id, link.token),
            "status": doc["status"],
            "turn": doc["turn"],
            "round": doc["round"],
        }


def _holds(row: Row, link: Any) -> bool:
    """Whether the row's reader still holds the seat: the holder it was written
    for (its token's hash), or, for rows written before holders were recorded, the
    seat's person at the row's address."""
    if link.token is None:
        return False  # a bot plays the seat now
    holder = row.payload.get("holder")
    if holder is not None:
        return holder == token_hash(link.token)
    return (link.email or "").lower() == row.to_address.lower()


def header_text(text: str) -> str:
    """`text` fit for a header: no line breaks, control or format characters (they
    become spaces), no runs of spaces, at most HEADER_TEXT_LIMIT characters."""
    kept = "".join(
        " " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in str(text)
    )
    return " ".join(kept.split())[:HEADER_TEXT_LIMIT]


def _standings(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Players with their scores, best first (the rules' winner order)."""
    players = [{"name": p["name"], "seat": p["seat"], **p["score"]} for p in doc["players"]]
    return sorted(players, key=lambda p: (-p["total"], -p["rainbow"], p["seat"]))
