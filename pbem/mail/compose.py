"""Turning an outbox row into a mail: a Jinja2 text and HTML pair from templates/mail/,
headers built with `email.message` (never pasted together), threaded per game and
seat, the game's log head in the footer. A turn mail whose turn was played before it
could go is moot, and is skipped rather than sent."""

from __future__ import annotations

from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy import Row

from pbem.config import PROJECT, Settings
from pbem.service import Service
from pbem.service.tokens import seat_url

from .replyto import reply_address

TEMPLATES = PROJECT / "templates"
SHORT_NOTATION = "money L, build L2 at 1,3, attraction haunted-hotel at -1,2 mirror, pass"


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
        message["Subject"] = subject
        message["From"] = Address("Mall by mail", "noreply", self.settings.mail_domain)
        message["To"] = Address(context.get("name", ""), addr_spec=row.to_address)
        message["Message-ID"] = row.message_id
        if row.game_id is not None:
            thread = f"<game-{row.game_id}-seat-{row.seat}@{self.settings.mail_domain}>"
            answered = context.get("in_reply_to")
            message["In-Reply-To"] = answered or thread
            message["References"] = f"{thread} {answered}" if answered else thread
            if "reply_to" in context:
                message["Reply-To"] = Address("Mall by mail", addr_spec=context["reply_to"])
        message["Auto-Submitted"] = "auto-replied" if kind == "answer" else "auto-generated"
        message["X-Pbem-Kind"] = row.kind
        message.set_content(self.templates.get_template(f"mail/{kind}.txt").render(context))
        html = self.templates.get_template(f"mail/{kind}.html").render(context)
        message.add_alternative(html, subtype="html")
        return message

    # -- what each mail says --------------------------------------------------------

    def _game(self, row: Row, seat: int | None = None) -> dict[str, Any]:
        """What every game mail knows: the reader, their link, the game as they may
        see it now, and the log's head."""
        seat = row.seat if seat is None else seat
        link = next(s for s in self.service.seat_links(row.game_id) if s.seat == seat)
        doc = self.service.state_at(row.game_id, seat=seat)
        names = {p["seat"]: p["name"] for p in doc["players"]}
        reply = reply_address(
            self.settings.signing_key(), self.settings.mail_domain, row.game_id, seat, doc["seq"]
        )
        return {
            "reply_to": reply,
            "name": link.name,
            "seat": seat,
            "link": seat_url(self.settings.base_url, row.game_id, link.token or ""),
            "game": row.game_id,
            "doc": doc,
            "names": names,
            "head": doc["head_hash"],
            "seq": doc["seq"],
            "notation": SHORT_NOTATION,
        }

    def _invitation(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["options"] = self.service.options(row.game_id)
        return f"You are invited to a game of Mall ({row.game_id})", context

    def _your_turn(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        if context["doc"]["turn"] != row.seat:
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

    def _turn(self, row: Row) -> dict[str, Any]:
        """What a player needs to move: what happened since their last turn, the
        position as text, and every legal action with what it would do."""
        events = self.service.history(row.game_id)
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
            e for e in self.service.history(row.game_id) if e.round == number and e.seat
        ]
        return f"Mall {row.game_id}: round {number} scored", context

    def _game_over(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
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
        events = self.service.history(row.game_id)
        context["played"] = next(e.text for e in events if e.seq == row.seq)
        return f"Mall {row.game_id}: time ran out and a bot played your turn", context

    def _undo_request(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["asker"] = context["names"][row.payload["asked_by"]]
        return f"Mall {row.game_id}: {context['asker']} asks to take back a move", context

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
        games = [self._summary(game_id, seat) for game_id, seat in row.payload["seats"]]
        return "Your games of Mall", {"name": games[0]["name"] if games else "", "games": games}

    def _digest(self, row: Row) -> tuple[str, dict[str, Any]]:
        games = [self._summary(game_id, seat) for game_id, seat in row.payload["seats"]]
        return "Your daily Mall digest", {"name": games[0]["name"] if games else "", "games": games}

    def _summary(self, game_id: str, seat: int) -> dict[str, Any]:
        link = next(s for s in self.service.seat_links(game_id) if s.seat == seat)
        doc = self.service.state_at(game_id, seat=seat)
        return {
            "game": game_id,
            "seat": seat,
            "name": link.name,
            "link": seat_url(self.settings.base_url, game_id, link.token or ""),
            "status": doc["status"],
            "turn": doc["turn"],
            "round": doc["round"],
        }


def _standings(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Players with their scores, best first (the rules' winner order)."""
    players = [{"name": p["name"], "seat": p["seat"], **p["score"]} for p in doc["players"]]
    return sorted(players, key=lambda p: (-p["total"], -p["rainbow"], p["seat"]))
