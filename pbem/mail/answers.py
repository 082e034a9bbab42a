"""What an answer to a player's mail says besides what was done: how to write a move
and the commands, the seat's choice now, the further lines named back, the word
on too many mails. In the language of the moment (the seat's, while its mail is
handled); the commands and moves stay as the player types them."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.games import GAMES
from pbem.i18n import N_, ngettext
from pbem.i18n import gettext as _
from pbem.service import Service
from pbem.service.inbox import PER_SENDER_PER_HOUR

MAX_IGNORED = 5  # further lines named back in an answer, at most
MAX_LINE = 200  # characters of a line read or named back
MOVE_LINE = N_("Write your move on the first line of your reply, in the game's notation:")
MOVE_LINES = N_(
    "Write your move from the first line of your reply up to the first empty line, in the "
    "game's notation:"
)
COMMANDS = N_(
    "Or one of: status (the game now), legal (your legal actions), undo (take back "
    "your last move), agree or refuse (answer another player's undo request), "
    "help (this)."
)


def grammar(service: Service, game_id: str) -> list[str]:
    """How to write a move in the game, and the commands."""
    from .templating import mails_of  # Jinja, loaded only when a grammar is written

    game = GAMES[service.game_of(game_id)]
    mails = mails_of(game)
    helps = [_(line) for line in mails.HELP]  # the game's catalog has them
    said = MOVE_LINES if getattr(mails, "MULTILINE", False) else MOVE_LINE
    return [_(said), *helps, *_(COMMANDS).splitlines()]


def read(service: Service, game_id: str, lines: list[str], commands: Sequence[str]) -> list[str]:
    """The command or move of a reply's lines ("" where blank lines parted what the
    player wrote), first, then its further lines: the first line, or (a game whose
    mails say `MULTILINE`, and a first line none of `commands`) every line up to
    the first blank one, joined with newlines. No blank line is left."""
    written = [line[:MAX_LINE] for line in lines]
    while written and not written[0]:
        written.pop(0)
    if not written:
        return []
    first = written[0].rstrip(".!?,;: ")
    game = GAMES[service.game_of(game_id)]
    # the game's mails part itself: the templating (Jinja) is loaded only to write
    if first.lower() in commands or not getattr(game.part("mails"), "MULTILINE", False):
        return [first, *(line for line in written[1:] if line)]
    end = written.index("") if "" in written else len(written)
    move = "\n".join(line.rstrip(".!?,;: ") for line in written[:end])
    return [move, *(line for line in written[end:] if line)]


def choice(service: Service, game_id: str, seat: int) -> list[str]:
    """The seat's choice now: its legal actions, or whose turn it is."""
    doc = service.state_at(game_id, seat=seat)
    if doc["status"] != "playing":
        return [_("The game is over.")]
    if not doc["acting"] and doc["turn"] is None:
        return [_("The game waits on the others' moves now; you will get a mail at yours.")]
    if not doc["acting"]:
        name = doc["players"][doc["turn"] - 1]["name"]
        return [
            _(
                "It is %(name)s's turn (seat %(seat)s); you will get a mail at yours.",
                name=name,
                seat=doc["turn"],
            )
        ]
    options = service.turn_options(game_id, seat)
    return [_("Your legal actions now:"), *(f"  {o['text']}  ({o['preview']})" for o in options)]


def unreadable(move: str, why: str) -> list[str]:
    """What a reply says of a move the game cannot read: the move (on one line), and
    of a move of several lines which one, in the rules' words."""
    said = _('"%(command)s" is not a move this server can read.', command=move.replace("\n", "; "))
    return [said, f"{why[:1].upper()}{why[1:]}."] if "\n" in move else [said]


def ignored(lines: list[str]) -> list[str]:
    """The further lines named back in an answer: a few, never a quoted mail."""
    shown = [line[:MAX_LINE] for line in lines[:MAX_IGNORED]]
    if len(lines) <= MAX_IGNORED:
        return shown
    more = len(lines) - MAX_IGNORED
    return [*shown, ngettext("... and %(num)d more line", "... and %(num)d more lines", more)]


def too_many() -> list[str]:
    """The one answer an hour to a seat that sends more mails than are read."""
    return [
        _(
            "You sent too many mails to this game: at most %(most)s an hour are acted on, "
            "and this and your next mails within the hour are not read.",
            most=PER_SENDER_PER_HOUR,
        ),
        _("Send your move again in an hour, or play on the game's page."),
    ]
