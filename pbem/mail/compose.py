"""Turning an outbox row into a mail: a Jinja2 text and HTML pair from templates/mail/,
headers built with `email.message` (never pasted together), threaded per game and
seat, the game's log head in the footer."""

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

TEMPLATES = PROJECT / "templates"
SUBJECTS = {
    "invitation": "You are invited to a game of Mall ({game})",
    "my_games": "Your games of Mall",
}


class UnknownMail(ValueError):
    """An outbox row of a kind this server does not write mails for."""


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
        """The mail of an outbox row (claimed, so it has its Message-ID)."""
        if row.kind not in SUBJECTS:
            raise UnknownMail(f"no mail is written for {row.kind!r} rows")
        context = getattr(self, f"_{row.kind}")(row)
        message = EmailMessage()
        message["Subject"] = SUBJECTS[row.kind].format(game=row.game_id)
        message["From"] = Address("Mall by mail", "noreply", self.settings.mail_domain)
        message["To"] = Address(context.get("name", ""), addr_spec=row.to_address)
        message["Message-ID"] = row.message_id
        if row.game_id is not None:
            thread = f"<game-{row.game_id}-seat-{row.seat}@{self.settings.mail_domain}>"
            if thread != row.message_id:
                message["In-Reply-To"] = thread
                message["References"] = thread
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(self.templates.get_template(f"mail/{row.kind}.txt").render(context))
        message.add_alternative(
            self.templates.get_template(f"mail/{row.kind}.html").render(context), subtype="html"
        )
        return message

    def _link(self, game_id: str, seat: int) -> tuple[str, str]:
        """(player name, personal link) of a seat, as it is now."""
        link = next(s for s in self.service.seat_links(game_id) if s.seat == seat)
        return link.name, seat_url(self.settings.base_url, game_id, link.token or "")

    def _invitation(self, row: Row) -> dict[str, Any]:
        name, url = self._link(row.game_id, row.seat)
        doc = self.service.state_at(row.game_id, seat=row.seat)
        return {
            "name": name,
            "link": url,
            "game": row.game_id,
            "seat": row.seat,
            "players": [(p["seat"], p["name"]) for p in doc["players"]],
            "options": self.service.options(row.game_id),
            "head": doc["head_hash"],
            "seq": doc["seq"],
        }

    def _my_games(self, row: Row) -> dict[str, Any]:
        games = []
        for game_id, seat in row.payload["seats"]:
            name, url = self._link(game_id, seat)
            doc = self.service.state_at(game_id, seat=seat)
            games.append(
                {
                    "game": game_id,
                    "seat": seat,
                    "name": name,
                    "link": url,
                    "status": doc["status"],
                    "turn": doc["turn"],
                    "round": doc["round"],
                }
            )
        return {"name": games[0]["name"] if games else "", "games": games}
