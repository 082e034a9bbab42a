"""Table talk by mail: in a reply to any of a game's mails, each line the player wrote
that starts with `say ` becomes a line of the players' chat (quoted lines never do:
the reader has left them out already), and in a game of private press `say to Ben:
text` or `say to Ben, Cy: text` (names as the game shows them, or `seat 2`) says it
to those seats alone; the other lines are read as before. What is refused is told
in the seat's language (the language of the moment)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pbem.games import NotationError, get
from pbem.i18n import gettext as _
from pbem.service import BadRequest, Service, ServiceError
from pbem.service.options import press
from pbem.service.press import named

_SAY = re.compile(r"say\s+(?P<text>.+)", re.IGNORECASE)
_SAY_TO = re.compile(r"to\s+(?P<to>[^:]{1,200}?)\s*:\s*(?P<text>.+)", re.IGNORECASE)
_TO_ONE = re.compile(r"to\s+(?P<to>\S+)(?:\s.*)?", re.IGNORECASE)
MOST = 10  # chat lines one mail may say
COMMANDS = ("help", "status", "legal", "undo", "agree", "refuse")  # as the handler reads them


@dataclass
class Said:
    """What the `say` lines of a mail did: how many were said, the lines left to
    read as commands, and why the rest was not said (None: all were)."""

    rest: list[str] = field(default_factory=list)
    count: int = 0
    refusal: str | None = None


def say_lines(service: Service, game_id: str, token: str, lines: list[str]) -> Said:
    """Say the `say ` lines of a reply for the seat of `token`, in order, until one
    is refused (too long, too many a minute, ...)."""
    said = Said()
    for line in lines:
        found = _SAY.fullmatch(line)
        if found is None:
            said.rest.append(line)
        elif said.refusal is None:
            if said.count >= MOST:
                said.refusal = _("at most %(most)s say lines are read from one mail", most=MOST)
                continue
            try:
                _say(service, game_id, token, found["text"])
                said.count += 1
            except ServiceError as error:
                said.refusal = error.message
    while said.rest and not said.rest[0]:  # a blank line ("") left first by a say line
        said.rest.pop(0)
    return said


def _say(service: Service, game_id: str, token: str, text: str) -> None:
    """Say one `say` line's text: to the seats it names (`to NAMES: text`), else to
    everyone. In a game without private press, `to ...:` that names no one is
    text like any other ("say to be honest: ..."); in one with it, a name that is
    no one is refused, naming who can be addressed, and so is `to Ben` without
    the colon (it would have gone to everyone)."""
    private = _SAY_TO.fullmatch(text)
    rules = press(service.options(game_id))
    if private is None:
        one = _TO_ONE.fullmatch(text) if rules == "private" else None
        if one is not None and _names(service, game_id, token, one["to"]) is not None:
            raise BadRequest(
                _("to say it to some players only, write a colon after their names: say to Ben: hi")
            )
        service.say(game_id, token, text)
        return
    seats = service.seat_links(game_id)
    sayer = service.seat_of(game_id, token) or 0
    try:
        to = named(seats, sayer, private["to"])
    except BadRequest:
        if rules != "private":
            service.say(game_id, token, text)
            return
        raise
    service.say(game_id, token, private["text"], list(to))


def _names(service: Service, game_id: str, token: str, word: str) -> tuple[int, ...] | None:
    """The seats `word` names, or None."""
    try:
        return named(service.seat_links(game_id), service.seat_of(game_id, token) or 0, word)
    except BadRequest:
        return None


def handle(inbound: Any, mail: Any, lines: list[str], handled: type[Any]) -> Any:
    """Act on a reply's lines for the inbound handler: the `say` lines are said;
    the other lines are acted on as before. A mail of `say` lines alone gets no
    answer (the other players are mailed the lines), unless one was refused."""
    address = mail.address
    said = say_lines(inbound.service, address.game_id, mail.token, lines)
    if said.count and said.rest and not _command(inbound.service, address.game_id, said.rest[0]):
        # "say hi" and a name signed under it: the name is no command to answer
        text = f"{said.count} line{'' if said.count == 1 else 's'} said at the table"
        return handled("said", text, ignored=[line for line in said.rest if line][:5])
    if said.rest or (not said.count and said.refusal is None):
        return inbound._act(mail, said.rest)
    if said.refusal is not None:
        refused = _("Not said at the table: %(why)s.", why=said.refusal)
        return inbound._answered(mail, "refused", [refused])
    return handled("said", f"{said.count} line{'' if said.count == 1 else 's'} said at the table")


def _command(service: Service, game_id: str, line: str) -> bool:
    """Whether a line reads as a command or a move of the game."""
    word = line.rstrip(".!?,;: ").lower()
    if word in COMMANDS:
        return True
    try:
        get(service.game_of(game_id)).parse(word)
    except NotationError:
        return False
    return True
