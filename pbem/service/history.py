"""Events told as sentences, for "what happened since", pages and mails; and which
events a viewer may be told at all (a player's mail preference is their own, a
private line of table talk its sayer's and addressees')."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem import i18n
from pbem.events import (
    ActionTaken,
    Envelope,
    Event,
    EventError,
    GameCreated,
    LanguageChosen,
    MailPreferenceChanged,
    RematchAccepted,
    RematchClosed,
    RematchOffered,
    RematchStarted,
    Resolved,
    SeatReplaced,
    SeatResigned,
    SpectatorTalk,
    TableTalk,
    TurnTimedOut,
    UndoAnswered,
    UndoDone,
    UndoLapsed,
    UndoRequested,
    VacationStarted,
)
from pbem.games import Rules as Game
from pbem.games.names import said_name
from pbem.i18n import N_, ngettext, pgettext
from pbem.i18n import gettext as _


@dataclass(frozen=True)
class Who:
    """How a sentence names a seat: its player's name, "you" for the seat it is told
    to, and "seat N" only where no name is known. A sentence is written whole for
    each (`mine(seat)` says which): languages other than English conjugate and
    decline around "you"."""

    names: Mapping[int, str] = field(default_factory=dict)
    you: int | None = None

    @classmethod
    def of(cls, seats: Iterable[Any], you: int | None = None) -> Who:
        """From the game's seats (anything with `seat` and `name`)."""
        return cls({s.seat: s.name for s in seats if s.name}, you)

    def __call__(self, seat: int) -> str:
        """The seat's name as its player wrote it (never capitalised for them), or
        "seat N"; "you" (as the object of a sentence) for the seat it is told to."""
        if seat == self.you:
            return pgettext("object", "you")
        return self.name(seat)

    def name(self, seat: int) -> str:
        """The seat's player's name (a bot's in the reader's language), or "seat N"
        where none is known."""
        name = self.names.get(seat)
        return said_name(name) if name else _("seat %(seat)s", seat=seat)

    def mine(self, seat: int) -> bool:
        """Whether the sentence about `seat` is told to that seat ("you")."""
        return seat == self.you

    def after(self, event: Envelope) -> Who:
        """The names once `event` has happened: a game's creation names its seats, a
        seat handed to a person takes their name (a bot keeps the seat's name)."""
        typed = _typed(event)
        if isinstance(typed, GameCreated):
            return Who({p.seat: p.name for p in typed.players}, self.you)
        if isinstance(typed, SeatReplaced) and typed.holder is not None:
            return Who({**self.names, typed.seat: typed.holder.name}, self.you)
        return self

    def everyone(self, seats: Iterable[int]) -> str:
        """ "Ann, Ben and you"."""
        said = [self(s) for s in seats]
        if len(said) == 1:
            return said[0]
        return _("%(others)s and %(last)s", others=", ".join(said[:-1]), last=said[-1])


Sentence = Callable[[Game, dict[str, Any], Any, Any, Who], str]
# told only to the seat the event is about
PRIVATE: tuple[type[Event], ...] = (MailPreferenceChanged, LanguageChosen)
# the spectators' chat is never in the game's log: its own panel shows it
OFF_THE_LOG: tuple[type[Event], ...] = (SpectatorTalk,)
_PREFERENCES = {
    "every": N_("a mail every turn"),
    "digest": N_("one digest a day"),
    "none": N_("no turn mails"),
}
# Why an undo request lapsed, as stored (English, in the event): told in the
# reader's language where the reason is one the server gives.
MOVED_ON = N_("the game moved on")
_UNANSWERED = re.compile(r"it was not answered within (\d+(?:\.\d+)?) hours")


def lapse_reason(reason: str) -> str:
    """A stored reason for an undo request's lapse, in the language of the moment
    (a reason the server does not know is told as stored)."""
    if reason == MOVED_ON:
        return _(MOVED_ON)
    unanswered = _UNANSWERED.fullmatch(reason)
    if unanswered:
        return _("it was not answered within %(hours)s hours", hours=unanswered.group(1))
    return reason


def _created(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    named = Who({q["seat"]: q["name"] for q in p["players"]}, who.you)
    everyone = named.everyone(q["seat"] for q in p["players"])
    return _("the game was created for %(players)s", players=everyone)


def _action(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    move = rules.narrate(before, rules.parse(p["action"]), after, who.you)
    seat = p["seat"]
    if who.mine(seat):
        return _("You played %(move)s", move=move)
    return _("%(name)s played %(move)s", name=who.name(seat), move=move)


def _resolved(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    """The game's own action (every sealed move revealed, and resolved): in the
    game's words, the same for every viewer."""
    return _(
        "The game resolved: %(what)s",
        what=rules.narrate(before, rules.parse(p["action"]), after, who.you),
    )


def _timed_out(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    move = rules.narrate(before, rules.parse(p["action"]), after, who.you)
    seat = p["seat"]
    if who.mine(seat):
        return _("You ran out of time and a bot played for you: %(move)s", move=move)
    return _(
        "%(name)s ran out of time and a bot played for them: %(move)s",
        name=who.name(seat),
        move=move,
    )


def _replaced(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat = p["seat"]
    if p["controller"] != "human":
        if who.mine(seat):
            return _("Your seat is now played by a bot")
        return _("%(name)s's seat is now played by a bot", name=who.name(seat))
    new = said_name(p["name"]) if p.get("name") else pgettext("played by", "a new player")
    if who.mine(seat):
        return _("Your seat is now played by %(new)s", new=new)
    return _("%(name)s's seat is now played by %(new)s", name=who.name(seat), new=new)


def _undo_requested(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat, back_to, move = p["seat"], p["back_to"], p.get("move")
    if move is not None:  # the move in the game's words (see undo.taken_back)
        return _asked_back(seat, move, p.get("later", 0), who)
    if who.mine(seat):
        return _("You asked to take back every move after seq %(seq)s", seq=back_to)
    return _(
        "%(name)s asked to take back every move after seq %(seq)s",
        name=who.name(seat),
        seq=back_to,
    )


def _asked_back(seat: int, move: str, later: int, who: Who) -> str:
    """ "Ann asked to take back their move “Burger Bar (Y01) from L1 at 0,2”", and
    how many moves after it would go with it."""
    if who.mine(seat):
        if not later:
            return _("You asked to take back your move “%(move)s”", move=move)
        return ngettext(
            "You asked to take back your move “%(move)s” and the %(num)d move after it",
            "You asked to take back your move “%(move)s” and the %(num)d moves after it",
            later,
            move=move,
        )
    if not later:
        name = who.name(seat)
        return _("%(name)s asked to take back their move “%(move)s”", name=name, move=move)
    return ngettext(
        "%(name)s asked to take back their move “%(move)s” and the %(num)d move after it",
        "%(name)s asked to take back their move “%(move)s” and the %(num)d moves after it",
        later,
        name=who.name(seat),
        move=move,
    )


def _undo_answered(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat = p["seat"]
    if who.mine(seat):
        return _("You agreed to the undo") if p["agree"] else _("You refused the undo")
    if p["agree"]:
        return _("%(name)s agreed to the undo", name=who.name(seat))
    return _("%(name)s refused the undo", name=who.name(seat))


def _undo_done(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return _("every move after seq %(seq)s was taken back", seq=p["back_to"])


def _undo_lapsed(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat, reason = p["seat"], p.get("reason")
    if reason:
        why = lapse_reason(reason)
        if who.mine(seat):
            return _("Your undo request was closed: %(reason)s", reason=why)
        return _("%(name)s's undo request was closed: %(reason)s", name=who.name(seat), reason=why)
    if who.mine(seat):
        return _("Your undo request was closed")
    return _("%(name)s's undo request was closed", name=who.name(seat))


def _mail_preference(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    mail = p["mail"]
    chosen = _(_PREFERENCES[mail]) if mail in _PREFERENCES else mail
    if who.mine(p["seat"]):
        return _("You chose %(choice)s", choice=chosen)
    return _("%(name)s chose %(choice)s", name=who.name(p["seat"]), choice=chosen)


def _language(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    language = i18n.LANGUAGES.get(p["language"], p["language"])  # in its own words
    if who.mine(p["seat"]):
        return _("You chose to read your mails in %(language)s", language=language)
    return _(
        "%(name)s chose to read their mails in %(language)s",
        name=who.name(p["seat"]),
        language=language,
    )


def _vacation(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    until = str(p["until"])[:16].replace("T", " ")
    days, seat = p["days"], p["seat"]
    if who.mine(seat):
        return ngettext(
            "You are on vacation until %(until)s UTC (%(num)d day; your clock stops)",
            "You are on vacation until %(until)s UTC (%(num)d days; your clock stops)",
            days,
            until=until,
        )
    return ngettext(
        "%(name)s is on vacation until %(until)s UTC (%(num)d day; their clock stops)",
        "%(name)s is on vacation until %(until)s UTC (%(num)d days; their clock stops)",
        days,
        name=who.name(seat),
        until=until,
    )


def _table_talk(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    if p.get("to") is not None:  # a private line: told to its sayer and its addressees
        to = who.everyone(p["to"])
        if who.mine(p["seat"]):
            return _("You said privately to %(to)s: %(text)s", to=to, text=p["text"])
        name = who.name(p["seat"])
        return _("%(name)s said privately to %(to)s: %(text)s", name=name, to=to, text=p["text"])
    if who.mine(p["seat"]):
        return _("You said: %(text)s", text=p["text"])
    return _("%(name)s said: %(text)s", name=who.name(p["seat"]), text=p["text"])


def _spectator_talk(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return _("%(name)s (watching) said: %(text)s", name=p["name"], text=p["text"])


def _resigned(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat, ended = p["seat"], not p["replaced_by"]
    if who.mine(seat):
        if ended:
            return _("You resigned, and the game ended")
        return _("You resigned; a bot plays your seat from now on")
    if ended:
        return _("%(name)s resigned, and the game ended", name=who.name(seat))
    return _("%(name)s resigned; a bot plays their seat from now on", name=who.name(seat))


def _rematch_offered(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    if who.mine(p["seat"]):
        return _("You offered a rematch")
    return _("%(name)s offered a rematch", name=who.name(p["seat"]))


def _rematch_accepted(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    if who.mine(p["seat"]):
        return _("You accepted the rematch")
    return _("%(name)s accepted the rematch", name=who.name(p["seat"]))


def _rematch_closed(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    seat = p.get("seat")
    if seat is None:
        return _("The rematch offer lapsed")
    if who.mine(seat):
        return _("You declined the rematch")
    return _("%(name)s declined the rematch", name=who.name(seat))


def _rematch_started(rules: Game, p: dict[str, Any], before: Any, after: Any, who: Who) -> str:
    return _("Everyone accepted: the rematch is game %(game)s", game=p["new_game_id"])


# Every event type has its sentence (a test holds this to EVENT_TYPES).
SENTENCES: dict[type[Event], Sentence] = {
    GameCreated: _created,
    ActionTaken: _action,
    TurnTimedOut: _timed_out,
    Resolved: _resolved,
    SeatReplaced: _replaced,
    UndoRequested: _undo_requested,
    UndoAnswered: _undo_answered,
    UndoDone: _undo_done,
    UndoLapsed: _undo_lapsed,
    MailPreferenceChanged: _mail_preference,
    LanguageChosen: _language,
    VacationStarted: _vacation,
    TableTalk: _table_talk,
    SpectatorTalk: _spectator_talk,
    SeatResigned: _resigned,
    RematchOffered: _rematch_offered,
    RematchAccepted: _rematch_accepted,
    RematchClosed: _rematch_closed,
    RematchStarted: _rematch_started,
}


def describe(
    rules: Game,
    event: Envelope,
    before: Any,
    after: Any,
    who: Who | None = None,
    known: Mapping[str, Any] | None = None,
) -> str:
    """One sentence on `event`, given the rules states before and after it; `who`
    names the seats (without it, "seat N"); `known`, what the walk knows beyond the
    event (an undo request's move in words: `move` and `later`)."""
    typed = _typed(event)
    sentence = None if typed is None else SENTENCES.get(type(typed))
    if sentence is None:
        return _("something happened that this server cannot describe")
    payload = {**event.payload, **known} if known else event.payload
    return sentence(rules, payload, before, after, who or Who())


def visible(event: Envelope, viewer: int | None) -> bool:
    """Whether `viewer` (a seat, or None for a spectator) may be told of `event`."""
    typed = _typed(event)
    if isinstance(typed, OFF_THE_LOG):
        return False
    if isinstance(typed, TableTalk):
        return reads(typed, viewer)
    private = isinstance(typed, PRIVATE)
    return not private or (viewer is not None and seat_of(event) == viewer)


def reads(line: TableTalk, viewer: int | None) -> bool:
    """Whether `viewer` (a seat, None for a spectator) may read a line of table
    talk: a public line, or a private one they said or that was said to them."""
    return line.to is None or (viewer is not None and (viewer == line.seat or viewer in line.to))


def _typed(event: Envelope) -> Event | None:
    """The typed event, or None for one this server cannot read (told as such)."""
    try:
        return event.event
    except EventError:
        return None


def seat_of(event: Envelope) -> int | None:
    return event.payload.get("seat")
