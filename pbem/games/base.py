"""What the rest of the server knows of a game: the `Game` protocol and the errors a
game raises. Service, store and web use only this, so another game plugs in by
implementing it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Protocol, TypeVar


class IllegalAction(ValueError):
    """An action the rules forbid; the message says which rule, in a player's words."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule  # the rules section, e.g. "6"


class NotationError(IllegalAction):
    """Text or JSON that does not spell an action at all."""


class SetupError(ValueError):
    """A game that cannot be set up as asked; the message says which part is wrong."""


S = TypeVar("S")  # a game's state
A = TypeVar("A")  # a game's action


class Game(Protocol[S, A]):
    """A game's rules as pure functions over immutable states (`S`) and actions (`A`).

    Who acts: `active` is the set of seats the game waits on now. A sequential game
    (the mall, nim) waits on one seat at a time, and `to_move` is that seat. A game of
    simultaneous moves (Diplomacy) waits on several: each gets its own turn notice,
    reminders, timeout action and bot, and leaves the set once it has acted. Such a
    move may be `sealed`: the other seats learn that it was made, never what, until
    the game's moment comes (every seat it waited on has acted); then `resolution`
    is the action the game takes itself, which reveals the sealed moves and resolves
    them, stored as its own event (actor: the game, seat None)."""

    name: str  # e.g. "mall"; stored in GameCreated
    version: str  # engine version, stored in GameCreated
    content: str  # content set, stored in GameCreated
    log_format: str  # e.g. "pbem.mall/1"

    def setup(self, players: Sequence[str], options: Mapping[str, Any]) -> S:
        """A new game; `options` as the log file's `setup` (seed, supply, ...)."""

    def parse(self, value: str | Mapping[str, Any]) -> A:
        """An action from its notation or JSON form; raises NotationError."""

    def check(self, state: S, action: A, seat: int | None = None) -> A:
        """The canonical action if legal for `seat` (None: whoever may act, or the
        game itself for its `resolution`); raises IllegalAction. A seat that has made
        a sealed move may replace it until the game's moment comes."""

    def perform(self, state: S, action: A) -> S:
        """The state after a checked, canonical action."""

    def legal_actions(self, state: S, seat: int | None = None) -> list[A]:
        """The legal actions of `seat` (None: of the seat to move of a sequential
        game), canonical and in order; none for a seat that may not act."""

    def format(self, action: A) -> str:
        """The canonical notation of a canonical action."""

    def to_json(self, action: A) -> dict[str, Any]:
        """The canonical JSON form of a canonical action."""

    def active(self, state: S) -> frozenset[int]:
        """The seats the game waits on now; empty once the game is over."""

    def to_move(self, state: S) -> int | None:
        """The one seat to move of a sequential game; None once the game is over, or
        while several seats may act (use `active`)."""

    def over(self, state: S) -> bool:
        """Whether the game has ended."""

    def sealed(self, state: S, action: A) -> bool:
        """Whether `action`, checked in `state`, stays hidden from the other seats
        (they learn it was made, not what) until the game reveals it."""

    def resolution(self, state: S) -> A | None:
        """The action the game takes itself now that its moment has come (for
        Diplomacy: every power it waited on has given orders): it reveals the sealed
        moves and resolves them. None when nothing is due (always, for a game
        without sealed moves)."""

    def round(self, state: S) -> int:
        """The current round (the last one once the game is over)."""

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """The state document for a seat, or for a spectator (None)."""

    def describe(self, state: S, seat: int | None) -> str:
        """The position as text, for terminals and mails."""

    def secrets(self, state: S, seat: int | None) -> set[str]:
        """What the viewer may not know in `state` (hidden ids, the seed), as a set
        the server compares between states (did a move show someone something?);
        never words to blank out of a text: every view and narration is written for
        its viewer and holds none of them."""

    def bot(self, name: str, seed: str | int | None = None) -> Callable[[S, int], A]:
        """A bot by name: a function from a state and the seat it plays to a legal
        action of that seat."""

    def narrate(self, before: S, action: A, after: S, viewer: int | None) -> str:
        """One line on what a canonical action did, told to `viewer` (a seat, None
        for a spectator), for logs, mails and pages: a sealed move of another seat
        says only that it was made."""

    def public_setup(self, setup: Mapping[str, Any], state: S, seat: int | None) -> dict[str, Any]:
        """The log file's `setup` part as the viewer may see it in `state`."""

    def reveals(self, before: S, after: S) -> bool:
        """Whether going from `before` to `after` showed players something hidden
        (for the mall: a tile drawn from the supply). Such a move is only undone
        when every other player agrees."""

    def on_resign(self, state: S, seat: int, people: int) -> str:
        """What happens when the person at `seat` leaves the running game, `people`
        the number of other seats people hold: "bot" (a bot plays the seat on) or
        "end" (the game ends now, see `resign`). Most games answer as
        `default_on_resign` does."""

    def resign(self, state: S, seat: int) -> S:
        """The state once the game ended by `seat` leaving it (`on_resign` said
        "end"): over, with its winners."""

    def rematch_setup(self, setup: Mapping[str, Any]) -> dict[str, Any]:
        """The parts of a game's setup a rematch keeps (never the deal or its seed:
        a rematch draws a new one)."""

    def dump_state(self, state: S) -> dict[str, Any]:
        """The whole state (hidden parts included) as JSON data, for snapshots."""

    def load_state(self, doc: Mapping[str, Any]) -> S:
        """A state from `dump_state`'s data."""


class Sequential:
    """What a game of one seat at a time answers for the parts of `Game` made for
    simultaneous moves: the one seat to move is the set it waits on, and nothing is
    ever sealed or resolved by the game itself. The mall and nim inherit it."""

    def to_move(self, state: Any) -> int | None:
        raise NotImplementedError

    def active(self, state: Any) -> frozenset[int]:
        seat = self.to_move(state)
        return frozenset() if seat is None else frozenset({seat})

    def over(self, state: Any) -> bool:
        return self.to_move(state) is None

    def sealed(self, state: Any, action: Any) -> bool:
        return False

    def resolution(self, state: Any) -> None:
        return None


RESIGN_CHOICES = ("bot", "end")


def default_on_resign(people: int) -> str:
    """The usual answer to a resignation: a bot plays the seat on while another
    person is at the table; with only bots left, the game ends."""
    return "bot" if people > 0 else "end"


@dataclass(frozen=True)
class Plugin:
    """Everything the server needs of one game, from its rules to its pixels: the
    registry (`pbem.games.GAMES`) maps a game's name to its plugin. A game lives in
    one package, `pbem.games.<name>`, whose `PLUGIN` this is; its templates (page and
    mail partials) are in the package's `templates/` folder."""

    name: str  # the registry's key, stored in GameCreated
    title: str  # how players call it: "Mall", "Nim"
    blurb: str  # one sentence for the New game page
    rules: Game[Any, Any]
    bots: tuple[str, ...]  # the names `rules.bot` accepts, the first the default
    timeout_bot: str  # the bot that plays a turn whose time ran out
    package: str  # e.g. "pbem.games.mall"
    # The seats of a state document (`rules.view`) from first to last: the one order
    # of the standings that pages, mails and exports show.
    standings: Callable[[Mapping[str, Any]], list[int]]
    # What a move may show that was hidden, in players' words (for the mall: "a
    # tile drawn from the supply"); empty for a game that hides nothing.
    revealing: str = ""
    # The fewest and the most players a game of it takes (the server's bounds for
    # creating one and for an open table; the rules' `setup` may refuse more).
    seats: tuple[int, int] = (2, 4)

    @property
    def templates(self) -> Traversable:
        """The folder of the game's own templates (inside the installed package)."""
        return files(self.package).joinpath("templates")

    def part(self, name: str) -> Any:
        """A module of the game's package by name (e.g. "pages", "mails"), imported
        on first use, so that the rules never load what only pages need."""
        return import_module(f"{self.package}.{name}")

    def examples(self) -> tuple[Example, ...]:
        """The game's examples (its module `examples`, `EXAMPLES`): games to show and
        test it with, so that every test of every page, mail and answer runs over
        every registered game without knowing any of them."""
        found: tuple[Example, ...] = tuple(self.part("examples").EXAMPLES)
        return found


@dataclass(frozen=True)
class Example:
    """A game a plugin gives to show and test itself with: its players' names, its
    setup (the log file's `setup` part, without the players) and moves from the start,
    each (seat, action in the game's notation), all legal in order; the game's own
    resolutions are not listed (the server takes them itself). `ends`: whether the
    moves end the game. `about`: what the example shows, for a test's name. `twin`:
    for a game with hidden information, the same game as most viewers see it, made
    from what they may not see told otherwise (see Twin)."""

    about: str
    players: tuple[str, ...]
    setup: Mapping[str, Any]
    moves: tuple[tuple[int, str], ...]
    ends: bool = False
    twin: Twin | None = None


@dataclass(frozen=True)
class Twin:
    """Another setup of an example, the same moves played from it, that differs
    only in what a viewer outside `knows` (seats) may not see: for the mall, the
    supply's order past the tiles drawn and a seat's secret card. Every surface the
    server has must answer every other viewer (each other seat, a spectator) the
    same for both, at every seq; the seats of `knows` see the difference. (A game's
    sealed moves need no twin: a test varies them itself, see Game.sealed.)"""

    setup: Mapping[str, Any]
    knows: frozenset[int]


# -- what a game gives the mails ----------------------------------------------------


class Mails(Protocol):
    """A game's part of the mails: the module `pbem.games.<name>.mails`, reached with
    `plugin.part("mails")`. The mail templates say what is game-neutral (greetings,
    links, deadlines, undo) and include the game's partials for the rest, from the
    game's `templates/mail/` folder as `"<name>/mail/<partial>.txt"` and `.html`:
    each partial in `PARTIALS`. Optional parts, read with getattr: `MULTILINE`, and
    the pictures (`turn_picture`, `picture`, their words `PICTURE_ALT` and the like:
    see pbem/mail/pictures.py)."""

    # The partials every game has (text and HTML): "_turn" (the position and the
    # legal actions in a turn mail), "_standings" (the scores, best first, of
    # `table`), "_game_over" (what the end shows beyond the winner).
    PARTIALS: tuple[str, ...]
    # Words for the invitation: "a game of <title>, <TAGLINE>, as seat 1".
    TAGLINE: str
    # A line of example moves in the game's notation ("take 1, take 3").
    NOTATION: str
    # The lines explaining the notation, for the answer to `help` or to a mail the
    # server cannot read (after "Write your move on the first line ...").
    HELP: Sequence[str]
    # Optional (False where absent): whether a reply's move is every line from the
    # first up to the first empty line, joined with "\n" (Diplomacy's orders, one a
    # line), rather than its first line alone. A first line that is a command (help,
    # status, legal, resign, ...) is read as one either way; lines after the move
    # are not read, as after a one-line move.
    MULTILINE: bool


# -- what a game gives the web pages ------------------------------------------------


class Pages(Protocol):
    """A game's web presentation: the module `pbem.games.<name>.pages`, reached with
    `plugin.part("pages")`. The web app gathers what is game-neutral (names, the log,
    undo, the seat tools) and asks this for the rest; the templates it names live in
    the game's `templates/` folder and are included as `"<name>/<template>"`."""

    # The markup every page of the game carries, which no other game's does: the
    # class of its drawing's root (`class="pbem-mall"`). Every board partial also
    # carries the standings as a table in an element of class "standings", a row
    # per seat in the plugin's standings order, each row's header (<th
    # scope="row">) starting with the player's name, and "winner" in the winners'.
    marker: str
    # Partial templates by role, relative to the game's templates folder:
    # "board" (the position: drawings and standings), "turn" (the choices inside the
    # turn form), "setup" (the game's fields on the New game form), "rules" (the
    # game's rules page, from `rules()`); optionally "beside" (drawn next to the
    # turn panel, e.g. a shared market).
    partials: Mapping[str, str]
    # The turn panel's script in the game's `static/` folder, or None: the plain
    # form then does everything.
    script: str | None
    # The stylesheet of the game's partials in its `static/` folder, or None.
    stylesheet: str | None
    # The text of every `<style>` element the game's drawings carry on a page (an
    # SVG keeps its own style, for mails and downloads too): the pages' Content
    # Security Policy allows exactly these, by their hash, and no style attribute.
    inline_styles: Sequence[str]
    # The JSON API's OpenAPI document: the schema of the game's state document beyond
    # the parts every game has (id, seq, head_hash, game, status, round, turn,
    # players' seat and name, winners), as {"required": [...], "properties": {...}};
    # and the properties of the setup an admin may give when creating a game.
    state_schema: Mapping[str, Any]
    setup_schema: Mapping[str, Any]

    def board(
        self,
        doc: Mapping[str, Any],
        seat: int | None,
        *,
        your_turn: bool = False,
        changed: Any = None,
    ) -> dict[str, Any]:
        """The board partial's context (the page's `board`) for a viewer (`seat`,
        None for a spectator) from the state document the viewer may see; `changed`
        is what `changed` returned, to mark on the history page. The page also
        gives the partial `standings`, the seats in the plugin's standings order."""

    def turn(
        self, doc: Mapping[str, Any], seat: int, options: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        """The turn partial's context: `groups` (each a `title` and its `options`,
        every option a legal action's `text`, `action` and `preview`) for the plain
        list, and `script`, the JSON data the page script reads (or None)."""

    def changed(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> Any:
        """What one event changed between two state documents, for `board`."""

    def outlined(
        self, before: Mapping[str, Any], after: Mapping[str, Any], seat: int | None
    ) -> list[str]:
        """What the others changed between two state documents as `seat` (None: a
        spectator) sees them: CSS selectors of the drawing's elements the page's
        script outlines as new since the viewer's last visit ([] for none)."""

    def setup(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The game's setup from the New game form's fields (the "setup" partial's),
        {} for the defaults; raises SetupError with what to correct."""

    def rules(self) -> dict[str, Any]:
        """The "rules" partial's context: the game's rules, drawn from its rules'
        own data (never a copy that could drift from what the engine plays)."""
