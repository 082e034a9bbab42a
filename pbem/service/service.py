"""The game service: the only writer, as one facade over its parts. Each command is
one transaction (a unit of work, `unit.py`) that loads the state, validates through
the rules, appends the event(s), updates the read models and writes the notices
the notification policy (`policy.py`) calls for; nothing is sent here. The commands
live by job (`create`, `moves`, `seats`, `undo`), the reads in `queries`, the log
file in `logfile`, the state cache in `cache`; My games' part of the facade is
`mygames`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.config import Settings
from pbem.events import CHAIN, Envelope
from pbem.store.database import Database

from . import chain, chat, create, logfile, moves, queries, seats, seen, served, undo
from .cache import StateCache
from .chat import ChatPage
from .create import PlayerSpec
from .errors import Accepted, Created, Happened, SeatLink
from .moment import Moments
from .mygames import MyGames
from .opencalls import OpenTables
from .rows import Record
from .table import Table
from .undo import UndoPlan
from .unit import Context, Notice, now

__all__ = ["Notice", "PlayerSpec", "Service"]


class Service(MyGames, Table, OpenTables):
    """The commands and queries every entry point (web, mail, worker, command line)
    calls. `notify` is told each committed command's Notice (none: the sweeps find
    the work alone)."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        clock: Callable[[], datetime] = now,
        cached_states: int = 256,
        notify: Callable[[Notice], None] | None = None,
    ) -> None:
        self._ctx = Context(database, settings, clock, StateCache(cached_states), notify)

    @property
    def db(self) -> Database:
        return self._ctx.db

    @property
    def settings(self) -> Settings:
        return self._ctx.settings

    @property
    def clock(self) -> Callable[[], datetime]:
        return self._ctx.clock

    @property
    def notify(self) -> Callable[[Notice], None] | None:
        return self._ctx.notify

    @notify.setter
    def notify(self, notify: Callable[[Notice], None] | None) -> None:
        self._ctx.notify = notify

    # -- creating games -------------------------------------------------------------

    def create_game(
        self,
        players: Sequence[PlayerSpec],
        options: Mapping[str, Any] | None = None,
        setup: Mapping[str, Any] | None = None,
        *,
        game: str | None = None,
        actor: str = "admin",
        key: str | None = None,
        chain: int = CHAIN,
        name: str | None = None,
        creator_seat: int | None = None,
    ) -> Created:
        """A new game of `game` (default: the registry's first game): GameCreated
        with each seat's token hash and the seed's SHA-256, and an invitation in the
        outbox for each person with an email. A `setup` given (rather than drawn
        from 192 random bits) is marked in the event (`setup_chosen`). With a `key`
        (a form's one-time key) creating is idempotent: the same key again answers
        with the game it made (`replayed`). `chain` is its hash chain's rule: the
        current version 2, or 1 (as games made before it) for tools and tests. `name`
        is what the game is called (None: its players' names); `creator_seat` the
        seat its creator plays, who is sent no invitation."""
        return create.create_game(
            self._ctx,
            players,
            options,
            setup,
            game=game,
            actor=actor,
            key=key,
            chain=chain,
            name=name,
            creator_seat=creator_seat,
        )

    def created_by_key(self, key: str) -> Created | None:
        """The game a creation `key` made, with its seats, or None."""
        return create.created_by_key(self._ctx, key)

    def import_log(self, doc: Mapping[str, Any], actor: str = "import") -> Created:
        """A new game from a log file: every action is checked before anything is
        stored; an illegal one refuses the whole file, naming the action. A game
        whose deal its log could have chosen is marked `setup_chosen`."""
        return logfile.import_log(self._ctx, doc, actor)

    # -- moves ----------------------------------------------------------------------

    def submit_action(
        self,
        game_id: str,
        token: str,
        action: str | Mapping[str, Any],
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
    ) -> Accepted:
        """Store the seat's move. Refuses with Forbidden when the token opens no
        seat, Stale when `expected_seq` is not the head and Illegal when the rules
        forbid it; the same idempotency key twice from the same seat gives the first
        answer again and stores nothing (keys are the seat's own: another seat's
        key is another key)."""
        return moves.submit_action(self._ctx, game_id, token, action, expected_seq, idempotency_key)

    def earlier_answer(self, game_id: str, key: str, token: str | None = None) -> Accepted | None:
        """The answer the seat of `token` got for a move it submitted with this
        idempotency key, if any (a token that opens no seat is refused). Without a
        token, for callers that have already checked who is asking (the mail handler
        checks the sender), the answer any seat of the game got for the key."""
        return moves.earlier_answer(self._ctx, game_id, key, token)

    def time_out(
        self, game_id: str, seat: int, expected_seq: int, actor: str = "system"
    ) -> Accepted:
        """The seat to move ran out of time at `expected_seq`: the game's timeout bot
        plays the turn (TurnTimedOut), and under the `replace` policy that bot takes
        the seat for good after enough timeouts. Refused (Stale) if the game has
        moved on."""
        return served.time_out(self._ctx, game_id, seat, expected_seq, actor)

    def play_bot(self, game_id: str, seat: int, expected_seq: int) -> Accepted:
        """A bot seat's turn, as its bot chooses (the same choice for the same seq)."""
        return served.play_bot(self._ctx, game_id, seat, expected_seq)

    def play_bots(self, game_id: str) -> list[Accepted]:
        """Play bot seats' turns until a person is to move or the game has ended."""
        return served.play_bots(self._ctx, game_id)

    # -- seats ----------------------------------------------------------------------

    def replace_seat(
        self,
        game_id: str,
        seat: int,
        by: str,
        *,
        name: str | None = None,
        email: str | None = None,
        bot: str | None = None,
        language: str | None = None,
        actor: str = "admin",
    ) -> SeatLink:
        """Hand a seat to a bot (`by` = "bot": `bot`, or the game's first bot) or to
        a person (`by` = "human", with a new link; the old one stops working) who
        reads mails in `language` (English unless given)."""
        return seats.replace_seat(
            self._ctx,
            game_id,
            seat,
            by,
            name=name,
            email=email,
            bot=bot,
            language=language,
            actor=actor,
        )

    def set_mail_preference(self, game_id: str, token: str, mail: str) -> Envelope:
        """How the seat's person wants turn mails: every one, a daily digest, or none
        (the page, the invitation and the game-over mail always work)."""
        return seats.set_mail_preference(self._ctx, game_id, token, mail)

    def set_language(self, game_id: str, token: str, language: str) -> Envelope:
        """The language ("en", "de") the seat's person reads their mails in."""
        return seats.set_language(self._ctx, game_id, token, language)

    def first_visit(self, game_id: str, token: str, language: str) -> bool:
        """At the first visit of a seat whose language nobody chose, its mails
        follow the visitor's browser (`language`) from now on; whether they did."""
        return seats.first_visit(self._ctx, game_id, token, language)

    def take_vacation(self, game_id: str, token: str, days: int) -> Envelope:
        """Stop the seat's clock for `days` days from now (within the game's
        allowance); the other players are told."""
        return seats.take_vacation(self._ctx, game_id, token, days)

    def remind(self, game_id: str, seq: int, hours: float, seat: int | None = None) -> bool:
        """A reminder to the seat to move at `seq` (or to `seat`, one of several
        the game waits on), `hours` before its deadline: at
        most one per turn and hours, however often it is asked for and whatever
        leaves the turn as it was meanwhile (a chat line, a mail preference): the
        unique outbox row, keyed on the event the turn began with, decides, so two
        schedulers cannot send two. Says whether one was queued."""
        return seats.remind(self._ctx, game_id, seq, hours, seat)

    # -- undo -----------------------------------------------------------------------

    def undo(self, game_id: str, token: str) -> Envelope:
        """Take back the seat's last move and every move after it. At once when it
        is the last move and nothing hidden was shown since; otherwise this asks
        every other person (UndoRequested) and happens once they all agree. Never
        once the game has ended, and never past hidden information (something drawn,
        a card shown) with bots alone to agree: a bot never agrees to that."""
        return undo.undo(self._ctx, game_id, token)

    def undo_plan(self, game_id: str, seat: int) -> UndoPlan:
        """What an undo by `seat` would take back now, and who would have to agree;
        BadRequest with the reason when it cannot be done (for the confirm step)."""
        return undo.undo_plan(self._ctx, game_id, seat)

    def answer_undo(self, game_id: str, token: str, agree: bool) -> Envelope:
        """Agree to or refuse the waiting undo request; the last agreement does it,
        a refusal closes it. A request the game has moved past, or that waited
        longer than UNDO_WAIT, has lapsed and can no longer be answered."""
        return undo.answer(self._ctx, game_id, token, agree)

    def lapse_overdue_undo(self, game_id: str) -> bool:
        """Close the game's undo request if it has waited longer than UNDO_WAIT
        (UndoLapsed, and both sides are told). Says whether it did; for the sweep,
        and before anything answers or asks."""
        return undo.lapse_overdue(self._ctx, game_id)

    def undo_requests_waiting(self) -> list[str]:
        """The games with an undo request waiting: the sweep calls
        `lapse_overdue_undo` on each (one game at a time, so one cannot stop others)."""
        return undo.requests_waiting(self._ctx)

    def pending_undo(self, game_id: str, seat: int | None) -> dict[str, Any] | None:
        """The undo request waiting for `seat`'s answer: who asked, back to which
        seq, and the move it takes back in the game's words (`move`, `later`). None
        when there is none, or it has waited too long (it lapses)."""
        return queries.pending_undo(self._ctx, game_id, seat)

    # -- what a seat has seen -------------------------------------------------------

    def saw(self, game_id: str, token: str | None, seq: object) -> int:
        """The seat of `token` was shown the game up to `seq` on its page (its
        session's page or poll): recorded, cut to the game's head, never going
        back; the notices of what it has seen are then not sent."""
        return seen.saw(self._ctx, game_id, token, seq)

    def seen_by(self, game_id: str, seat: int, holder: str | None) -> int:
        """How far the seat's holder `holder` (a token's hash) has seen the game on
        its page (0: not at all)."""
        with self._ctx.reading() as conn:
            return seen.seen_by(conn, game_id, seat, holder)

    # -- table talk -----------------------------------------------------------------

    def say(self, game_id: str, token: str | None, text: object, to: object = None) -> Envelope:
        """The seat of `token` says a line in the players' chat (TableTalk): one line
        of 1 to 500 printable characters, a few a minute, and no more than a game's
        table talk and one seat may hold in all (TooMany beyond); to everyone, or
        (`to`, a list of seats) privately, as the game's press rules allow (press.py).
        It moves nothing, and a move that expected the seq before it still stands;
        the people it went to are mailed the lines, gathered a few minutes."""
        return chat.say(self._ctx, game_id, token, text, to)

    def spectator_says(self, game_id: str, name: object, text: object) -> Envelope:
        """A spectator of a public game says a line in the spectators' chat, under the
        name they give (the players read it once the game is over); refused
        (Forbidden) when the game's creator switched the spectators' chat off, and
        limited as table talk is."""
        return chat.spectator_says(self._ctx, game_id, name, text)

    def table_talk(
        self, game_id: str, viewer: int | None = None, before: object = None
    ) -> ChatPage:
        """The players' chat as `viewer` (a seat, None for a spectator) reads it: the
        last lines before seq `before` (None: the latest; a whole number from 1,
        else BadRequest), and the seq to ask for earlier ones."""
        return chat.table_talk(self._ctx, game_id, viewer, before)

    def spectator_talk(
        self, game_id: str, viewer: int | None = None, before: object = None
    ) -> ChatPage:
        """The spectators' chat: for spectators, and for the players once the game
        is over; a page at a time, as `table_talk`."""
        return chat.spectator_talk(self._ctx, game_id, viewer, before)

    # -- reading --------------------------------------------------------------------

    def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a token plays in this game; None (a spectator) without a token.
        A token that is not valid here is refused (Forbidden)."""
        return queries.seat_of(self._ctx, game_id, token)

    def state_at(
        self, game_id: str, seq: int | None = None, seat: int | None = None
    ) -> dict[str, Any]:
        """The state document at `seq` (default: the head) as `seat` may see it.
        History shows nothing the head hides: at a seq inside moves an undo took
        back after they had shown something, the position the undo went back to
        stands in for it (see veiled)."""
        return queries.state_at(self._ctx, game_id, seq, seat)

    def describe(self, game_id: str, seq: int | None = None, seat: int | None = None) -> str:
        """The position at `seq` (default: the head) as text, as `seat` may see it
        (redacted as `state_at` is)."""
        return queries.describe(self._ctx, game_id, seq, seat)

    def legal(self, game_id: str, seat: int | None) -> list[str]:
        """The seat's legal actions now, in canonical notation (none for others)."""
        return queries.legal(self._ctx, game_id, seat)

    def turn_options(self, game_id: str, seat: int | None) -> list[dict[str, Any]]:
        """The seat's legal actions now, each with its JSON form and a preview of
        what it would do (what it costs, who moves where)."""
        return queries.turn_options(self._ctx, game_id, seat)

    def history(
        self, game_id: str, seat: int | None = None, *, after: int = 0, talk: bool = True
    ) -> list[Happened]:
        """Every event of the game after seq `after` that `seat` may be told of
        (None: a spectator), as a sentence, in order; without `talk`, no line of
        table talk (a page shows those in its chat panel). Another seat's private
        events (its mail preference) are left out, so look an event up by its seq,
        not by its place in the list."""
        return queries.history_of(self._ctx, game_id, seat, after=after, talk=talk)

    def moments(self, size: int) -> Moments:
        """A game read once for all the mails written at one moment of it (its
        head), each reader's view made once for that reader; the last `size` games'
        moments are kept while their heads stay (see `moment.Moments`)."""
        return Moments(self._ctx, size)

    def seat_links(self, game_id: str) -> list[SeatLink]:
        """Every seat with its current token (derived again from the secret key)."""
        return queries.seat_links(self._ctx, game_id)

    def seat_settings(self, game_id: str, seat: int) -> dict[str, Any]:
        """A seat's mail preference and vacation: days left, and until when."""
        return queries.seat_settings(self._ctx, game_id, seat)

    def options(self, game_id: str) -> dict[str, Any]:
        """The game's options as chosen at creation."""
        return queries.options(self._ctx, game_id)

    def games(self) -> list[Record]:
        """Every game's row (id, game, status, turn, round, head_seq, ...)."""
        return queries.games(self._ctx)

    def game_of(self, game_id: str) -> str:
        """The name of the game a table plays: NotFound for no such table.
        Reads the table's row alone (no state, no view)."""
        return queries.game_of(self._ctx, game_id)

    def game_name(self, game_id: str) -> str | None:
        """The name the game's creator gave it; None: it is called by its players."""
        return queries.game_name(self._ctx, game_id)

    def setup_chosen(self, game_id: str) -> bool:
        """Whether the game's setup was given by someone rather than drawn by the
        server (so they may know its hidden information)."""
        return queries.setup_chosen(self._ctx, game_id)

    # -- the log file: export, verify, rebuild --------------------------------------

    def export_log(self, game_id: str, seat: int | None = None) -> dict[str, Any]:
        """The game as a log file (docs/design.md contract), redacted for `seat` while
        the game runs; once it has ended it carries the seed, so anyone can check
        the seed's SHA-256 and replay it."""
        return logfile.export_log(self._ctx, game_id, seat)

    def chain(self, game_id: str, viewer: int | None = None) -> dict[str, Any]:
        """The game's hash chain as `viewer` (a seat, None: a spectator) may check
        it: every seq with its commitment, and the fields and salt of each event
        the viewer may see whole (pbem.store.chain.check verifies it)."""
        return chain.chain_of(self._ctx, game_id, viewer)

    def verify(self, game_id: str) -> list[str]:
        """Everything wrong with the stored game, one line each: a broken hash
        chain, an event that does not fold (an illegal or non-canonical move), a
        games row, seat row or snapshot that disagrees with the events. Empty when
        the game is sound."""
        return logfile.verify(self._ctx, game_id)

    def rebuild(self) -> int:
        """Recreate every read model and snapshot from the events alone."""
        return logfile.rebuild(self._ctx)
