"""Turning an outbox row into a mail, in the row's language (its subject, both parts and its
picture's words; `Content-Language` says which): a Jinja2 text and HTML pair from
templates/mail/ (each kind of notice has its pair; what only a game knows comes from its own
partials, `<game>/mail/_turn.txt` and the like, and its `mails` part), headers from cleaned
text, encoded and folded by `email.header` (never pasted together), dated by the composer's
clock, threaded per game and seat, the game's log head in the footer; the draft is written out
by pbem.mail.writing. A game is read once per mail (pbem.service.moment): its mails at one
moment share what it is then, each reader's view made once for that reader.
A turn mail whose turn was played before it could go is moot, and is skipped rather than sent;
so is a mail whose seat has changed hands since it was written, except the ones a former holder
still gets (without a link to the seat)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from sqlalchemy import Row

from pbem import i18n, resources
from pbem.config import Settings
from pbem.events import MOVE_TYPES, parse_timestamp
from pbem.games import GAMES
from pbem.i18n import gettext as _
from pbem.service import Happened, Service, naming
from pbem.service.addresses import checked_address
from pbem.service.history import PRIVATE, lapse_reason
from pbem.service.moment import Moment
from pbem.service.notices import Kind, Moot, kind_of
from pbem.service.tokens import seat_url, token_hash

from . import moot
from .invite import invitation_mail
from .pictures import Pictures
from .replyto import reply_address
from .several import digest_mail, join_confirm_mail, my_games_mail, sign_in_mail, sign_out_mail
from .tablemail import farewell, rematch_offer_mail, resigned_mail
from .templating import environment, mails_of
from .wording import flowed, number, time_left, when
from .writing import Draft, Mail, chat_mail, header_text, written, written_address, written_out

TEMPLATES = resources.TEMPLATES
TURN_ENDED = MOVE_TYPES  # a seat's own turns
FOR_FORMER_HOLDERS = ("game_over", "timed_out")  # what still goes once a seat changed hands
MOMENTS_KEPT = 32  # the games whose moment the composer keeps for their next mails


class UnknownMail(ValueError):
    """An outbox row of a kind this server does not write mails for."""


__all__ = ["Composer", "Moot", "UnknownMail", "environment", "header_text", "mails_of"]


Writer = Callable[["Composer", Row], tuple[str, dict[str, Any]]]


class Composer:
    def __init__(self, service: Service, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.templates = environment(settings.site_name, auto_reload=settings.dev)
        # Headers that are the same in every mail (folded once, see writing._header).
        self.sender = Address("", "noreply", settings.mail_domain).addr_spec
        self._from_name = header_text(settings.site_name)
        self._from = written_address("From", self._from_name, self.sender)
        self.pictures = Pictures(service, settings.mail_domain)
        # A game read once per mail: its mails at one moment share what it is then.
        self.moments = service.moments(MOMENTS_KEPT)

    def message_id(self) -> str:
        return make_msgid(domain=self.settings.mail_domain)

    def warm(self) -> None:
        """Import every game's part of the mails, compile every mail template (each
        kind's and each game's parts) and load the picture's rasteriser: what the
        first mails of a worker would wait for."""
        for plugin in GAMES.values():
            mails_of(plugin)
        for name in self.templates.list_templates(extensions=("txt", "html")):
            if name.startswith("mail/") or "/mail/" in name:
                self.templates.get_template(name)
        self.pictures.warm()

    def compose(self, row: Row) -> EmailMessage:
        """The mail of a claimed outbox row (it has its Message-ID in `delivery_id`),
        read back as a message; raises when it cannot be written out."""
        return self.write(row).message()

    def write(self, row: Row) -> Mail:
        """The mail of a claimed outbox row: its envelope and its bytes as they go to
        an SMTP server (a mail that cannot be written fails here)."""
        draft = self.draft(row)
        return Mail(draft.sender, draft.recipients, written_out(draft))

    def draft(self, row: Row) -> Draft:
        """The whole mail in the row's language: its subject, parts and picture's words
        (a row of no language, or one this server does not speak, is in English)."""
        chosen = getattr(row, "language", None)
        with i18n.speaking(chosen if chosen in i18n.LANGUAGES else i18n.DEFAULT) as language:
            return self._drafted(row, language)

    def _drafted(self, row: Row, language: str) -> Draft:
        kind = kind_of(row.kind)
        write = WRITERS.get(kind)
        if write is None:
            raise UnknownMail(f"no mail is written for {row.kind!r} rows")
        subject, context = write(self, row)
        # The headers written per mail go as they are on the wire (see writing.Written).
        to = checked_address(row.address)
        headers: list[tuple[str, str]] = [
            ("Subject", written("Subject", header_text(subject))),
            ("From", self._from),
            ("To", written_address("To", header_text(context.get("name", "")), to)),
            ("Date", written("Date", format_datetime(self.service.clock()))),
            ("Message-ID", written("Message-ID", header_text(row.delivery_id))),
        ]
        if row.game_id is not None:
            seat = context.get("seat", row.seat)
            thread = f"<game-{row.game_id}-seat-{seat}@{self.settings.mail_domain}>"
            answered = header_text(context.get("in_reply_to") or "")
            headers.append(("In-Reply-To", written("In-Reply-To", answered or thread)))
            references = f"{thread} {answered}" if answered else thread
            headers.append(("References", written("References", references)))
            if "reply_to" in context:
                reply_to = context["reply_to"]  # our own signed address
                headers.append(("Reply-To", written_address("Reply-To", self._from_name, reply_to)))
        automatic = "auto-replied" if kind is Kind.ANSWER else "auto-generated"
        headers += [("Auto-Submitted", automatic), ("X-Pbem-Kind", kind.value)]
        text = self.templates.get_template(f"mail/{kind}.txt").render(context)
        html = self.templates.get_template(f"mail/{kind}.html").render(context)
        return Draft(
            tuple(headers),
            flowed(text),
            html,
            context.get("picture"),  # with the HTML part: multipart/related
            language,
            self.sender,
            (to,),
        )

    # -- what each mail says --------------------------------------------------------

    def _game(self, row: Row, seat: int | None = None) -> dict[str, Any]:
        """What every game mail knows (see _game_at)."""
        return self._game_at(row, seat)[0]

    def _game_at(self, row: Row, seat: int | None = None) -> tuple[dict[str, Any], Moment]:
        """What every game mail knows: the reader, their link, the game as they may
        see it now, and the log's head; and the moment it was read at. A reader who
        no longer holds the seat gets no link to it (nor its hidden view), and most
        mails to them are moot."""
        seat = row.seat if seat is None else seat
        if seat is None:
            seat = row.payload["seat"]  # a former holder's mail
        now = self.moments.now(row.game_id)
        links = now.links()
        link = next(s for s in links if s.seat == seat)
        held = _holds(row, link)
        if not held and row.kind not in FOR_FORMER_HOLDERS and not farewell(row):
            raise Moot("the seat has changed hands since this mail was written")
        doc = now.view(seat if held else None)
        plugin = GAMES[doc["game"]]
        mails = mails_of(plugin)
        names = {p["seat"]: p["name"] for p in doc["players"]}
        options = now.options()
        base = self.settings.base_url.rstrip("/")
        context = {
            "name": link.name if held else row.payload.get("name", link.name),
            "seat": seat,
            "link": seat_url(base, row.game_id, link.token) if held and link.token else None,
            "watch": f"{base}/g/{row.game_id}/watch" if options["public"] else None,
            "held": held,
            "game": row.game_id,
            "doc": doc,
            "names": names,
            "head": doc["head_hash"],
            "seq": doc["seq"],
            "game_name": plugin.name,
            "title": _(plugin.title),
            # the game as this reader is told of it: its name and their opponents
            "called": naming.label(now.row.name, names, seat if held else None),
            "tagline": _(str(mails.TAGLINE)),
            "notation": mails.NOTATION,
            "game_options": options,
            "links": links,
        }
        if held:
            context["reply_to"] = reply_address(
                self.settings.signing_key(),
                self.settings.mail_domain,
                row.game_id,
                seat,
                doc["seq"],
                link.token or "",
            )
        return context, now

    def _your_turn(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)
        if row.seat not in context["doc"]["waiting"] or self._played_since(row, now):
            raise Moot("the turn was played before this mail went")
        context.update(self._turn(row, now))
        context["picture"] = self.pictures.of(
            row.game_id, now.head[0], lambda: now.view(None), seat=row.seat
        )
        about = {**_about(context, row), "round": context["doc"]["round"]}
        if context["deadline"]:
            return _(
                "%(game)s: your turn (round %(round)s) — answer by %(by)s",
                by=context["deadline"]["by"],
                **about,
            ), context
        return _("%(game)s: your turn (round %(round)s)", **about), context

    def _reminder(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)
        if row.seat not in context["doc"]["waiting"] or self._played_since(row, now):
            raise Moot("the turn was played before the reminder went")
        hours = number(row.payload["hours"])
        context.update(self._turn(row, now), hours=hours)
        deadline = context["deadline"]
        left = deadline["left"] if deadline else _("%(hours)s hours", hours=hours)
        about = _about(context, row)
        subject = _("%(game)s — reminder: %(left)s left for your turn", left=left, **about)
        return subject, context

    def _history(self, row: Row, seat: int | None, now: Moment) -> list[Happened]:
        """The game's events `seat` may be told of at the moment `now`."""
        return now.history(seat)

    def _played_since(self, row: Row, now: Moment) -> bool:
        """Whether the turn the row announces was played since (see `moot.played_since`)."""
        return moot.played_since(row.seq, row.seat, now)

    def _turn(self, row: Row, now: Moment) -> dict[str, Any]:
        """What a player needs to move: what happened since their last turn, the
        position as text, and every legal action with what it would do."""
        events = self._history(row, row.seat, now)
        mine = [e.seq for e in events if e.seat == row.seat and isinstance(e.event, TURN_ENDED)]
        last = mine[-1] if mine else 1
        # the game's news, not the reader's own settings (mail preference, language)
        since = [e for e in events if e.seq > last and not isinstance(e.event, PRIVATE)]
        # the rounds closed since the last turn mail: by the seat's own last move too
        closed = [e for e in events if e.seq >= last and e.closes_round]
        scored = None
        if closed:  # the scores of the last round closed since: no round mail of its own
            at = self.service.state_at(row.game_id, closed[-1].seq, row.seat)
            scored = {"round": closed[-1].round, "table": self._standings(at)}
        return {
            "since": since,
            "scored": scored,
            "deadline": self._deadline(now, row.seat),
            "position": now.describe(row.seat),
            "options": now.turn_options(row.seat),
        }

    def _deadline(self, now: Moment, seat: int) -> dict[str, str] | None:
        """When the seat's turn ends ("Tue 3 Dec 14:00 UTC") and how long is left
        ("2 days 4 hours"), or None when the game has no deadline."""
        at = now.deadline(seat)
        if not at:
            return None
        due = parse_timestamp(at)
        return {"by": when(due), "left": time_left(due - self.service.clock())}

    def _standings(self, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The players of a state document, best first (the game's standings order)."""
        players = {p["seat"]: p for p in doc["players"]}
        return [players[seat] for seat in GAMES[doc["game"]].standings(doc)]

    def _round_scored(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)
        number = row.payload["round"]
        scored = self.service.state_at(row.game_id, row.seq, row.seat)
        context["scored"] = self._standings(scored)
        context["round"] = number
        played = [e for e in self._history(row, row.seat, now) if e.round == number and e.seat]
        context["played"] = played
        return _("%(game)s: round %(round)s scored", round=number, **_about(context, row)), context

    def _game_over(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)  # to a former holder too (payload's seat)
        doc = context["doc"]
        context["final"] = self._standings(doc)
        context["winners"] = [context["names"][s] for s in doc["winners"] or []]
        ending = getattr(mails_of(GAMES[doc["game"]]), "game_over", None)
        context["ending"] = ending(doc) if ending is not None else {}
        spectator = lambda: now.view(None)  # noqa: E731 (the end as everyone sees it)
        context["picture"] = self.pictures.of(row.game_id, now.head[0], spectator, final=True)
        return _("%(game)s: the game is over", **_about(context, row)), context

    def _timed_out(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)
        events = self._history(row, row.seat if context["held"] else None, now)
        context["played"] = next(e for e in events if e.seq == row.seq).text
        bot_now = next(s for s in context["links"] if s.seat == row.seat)
        context["bot_now"] = bool(row.payload.get("replaced")) or bot_now.token is None
        about = _about(context, row)
        if context["bot_now"]:
            return _("%(game)s: time ran out and a bot now plays your seat", **about), context
        return _("%(game)s: time ran out and a bot played your turn", **about), context

    def _undo_request(self, row: Row) -> tuple[str, dict[str, Any]]:
        context, now = self._game_at(row)
        context["asker"] = context["names"][row.payload["asked_by"]]
        # the request as the history tells it to the reader: the move in the game's words
        told = [e.text for e in self._history(row, row.seat, now) if e.seq == row.seq]
        context["request"] = told[0] if told else None
        about = {**_about(context, row), "asker": context["asker"]}
        return _("%(game)s: %(asker)s asks to take back a move", **about), context

    def _undo_lapsed(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        asked_by = row.payload["asked_by"]
        context["yours"] = asked_by == row.seat
        context["asker"] = context["names"][asked_by]
        context["reason"] = lapse_reason(row.payload["reason"])  # in the reader's words
        about = _about(context, row)
        return _("%(game)s: the request to take back a move lapsed", **about), context

    def _vacation(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context["who"] = context["names"][row.payload["who"]]
        context["until"] = row.payload["until"][:16].replace("T", " ") + " UTC"
        about = {**_about(context, row), "who": context["who"]}
        return _("%(game)s: %(who)s is on vacation", **about), context

    def _answer(self, row: Row) -> tuple[str, dict[str, Any]]:
        context = self._game(row)
        context.update(row.payload)
        subject = row.payload["subject"] or context["called"]
        return subject if subject.lower().startswith("re:") else f"Re: {subject}", context


# What each kind of notice says, as a mail; a test checks that every Kind has one.
WRITERS: dict[Kind, Writer] = {
    Kind.INVITATION: invitation_mail,
    Kind.YOUR_TURN: Composer._your_turn,
    Kind.ROUND_SCORED: Composer._round_scored,
    Kind.REMINDER: Composer._reminder,
    Kind.TIMED_OUT: Composer._timed_out,
    Kind.GAME_OVER: Composer._game_over,
    Kind.UNDO_REQUEST: Composer._undo_request,
    Kind.UNDO_LAPSED: Composer._undo_lapsed,
    Kind.VACATION: Composer._vacation,
    Kind.DIGEST: digest_mail,
    Kind.ANSWER: Composer._answer,
    Kind.MY_GAMES: my_games_mail,
    Kind.CHAT: chat_mail,
    Kind.SIGN_IN: sign_in_mail,
    Kind.SIGN_OUT: sign_out_mail,
    Kind.RESIGNED: resigned_mail,
    Kind.REMATCH_OFFER: rematch_offer_mail,
    Kind.JOIN_CONFIRM: join_confirm_mail,
}


# The game's partials each kind includes ("<game>/mail/<partial>"); every game has them.
GAME_PARTIALS: dict[Kind, tuple[str, ...]] = {
    Kind.INVITATION: ("_turn",),
    Kind.YOUR_TURN: ("_turn", "_standings"),
    Kind.REMINDER: ("_turn",),
    Kind.ROUND_SCORED: ("_standings",),
    Kind.GAME_OVER: ("_game_over",),
}


def _about(context: Mapping[str, Any], row: Row) -> dict[str, Any]:
    """What most subjects name: the game as its reader is told of it (its name and
    their opponents, first: a mail client shows a subject's start) and the game's
    title, in the reader's language; the id is in the mail's details."""
    return {"title": context["title"], "game": context["called"]}


def _holds(row: Row, link: Any) -> bool:
    """Whether the row's reader still holds the seat: the holder it was written
    for (its token's hash), or, for rows written before holders were recorded, the
    seat's person at the row's address."""
    if link.token is None:
        return False  # a bot plays the seat now
    holder = row.payload.get("holder")
    if holder is not None:
        return holder == token_hash(link.token)
    return (link.email or "").lower() == row.address.lower()
