"""`pbem game`: create, show, play, export, import and verify games in the database
PBEM_DATABASE_URL names."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, TextIO

import click

from pbem.bootstrap import Parts
from pbem.games import GAMES, NAMES, bot_name
from pbem.service import Illegal, PlayerSpec, ServiceError, Stale, admin
from pbem.service.tokens import seat_url

from .parts import checked_parts

EXIT_ILLEGAL, EXIT_STALE = 2, 3
_PERSON = re.compile(r"\s*(?P<name>[^<]+?)\s*(?:<(?P<email>[^>]+)>)?\s*")
DEFAULT_GAME = NAMES[0]
# "bot:<name>" for every bot of the games, each game's default first
_BOT_SEATS = list(dict.fromkeys(f'"bot:{bot}"' for name in NAMES for bot in GAMES[name].bots))


@contextmanager
def _answers() -> Iterator[None]:
    """Service refusals as one line on stderr and a telling exit status."""
    try:
        yield
    except ServiceError as error:
        click.echo(f"refused: {error.message}", err=True)
        sys.exit(
            EXIT_ILLEGAL
            if isinstance(error, Illegal)
            else EXIT_STALE
            if isinstance(error, Stale)
            else 1
        )


def _seat_spec(text: str) -> PlayerSpec:
    if text.lower().startswith("bot:"):
        bot = text[4:].strip().lower()
        return PlayerSpec(bot_name(bot), bot=bot)
    match = _PERSON.fullmatch(text)
    if not match:
        raise click.BadParameter(f'{text!r}: write "Name <email>", "Name", or {_BOT_SEATS[0]}')
    return PlayerSpec(match["name"], match["email"])


def _note_chosen(parts: Parts, game_id: str) -> None:
    """Say so when the game's deal was given rather than drawn by the server."""
    if parts.service.setup_chosen(game_id):
        click.echo(
            "  the setup was chosen, not drawn at random by the server (or its seed is too"
            " short to hide the deal): the game's page and its log say so"
        )


def _print_links(parts: Parts, game_id: str) -> None:
    for link in parts.service.seat_links(game_id):
        where = f" <{link.email}>" if link.email else ""
        if link.token:
            url = seat_url(parts.settings.base_url, game_id, link.token)
            click.echo(f"  seat {link.seat}: {link.name}{where}  token {link.token}  {url}")
        else:
            click.echo(f"  seat {link.seat}: {link.name} (bot)")


@click.group()
def game() -> None:
    """Games in the database."""


@game.command()
@click.option(
    "--seat",
    "seats",
    multiple=True,
    required=True,
    help=f'"Name <email>", "Name", or {" / ".join(_BOT_SEATS)}; once per seat.',
)
@click.option(
    "--game",
    "game_name",
    default=DEFAULT_GAME,
    show_default=True,
    help=f"One of {', '.join(NAMES)}.",
)
@click.option("--seed", help="The seed (default: 192 fresh random bits).")
@click.option(
    "--setup",
    "setup_file",
    type=click.File("r"),
    help="A JSON setup as in the game's log file (its seed, or the deal itself).",
)
@click.option(
    "--option",
    "option_values",
    multiple=True,
    metavar="KEY=JSON",
    help="A game option, e.g. hours_per_turn=48 or public=true.",
)
@click.option("--name", "called", help="What the game is called (default: its players' names).")
def create(
    seats: tuple[str, ...],
    game_name: str,
    seed: str | None,
    setup_file: TextIO | None,
    option_values: tuple[str, ...],
    called: str | None,
) -> None:
    """Create a game and print each seat's link."""
    setup: dict[str, Any] = json.load(setup_file) if setup_file else {}
    if seed is not None:
        setup["seed"] = seed
    options = {}
    for item in option_values:
        key, _, value = item.partition("=")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    parts = checked_parts()
    with _answers():
        created = parts.service.create_game(
            [_seat_spec(s) for s in seats], options, setup, game=game_name, name=called
        )
    click.echo(f"created game {created.game_id}")
    _note_chosen(parts, created.game_id)
    _print_links(parts, created.game_id)


@game.command(name="list")
def list_games() -> None:
    """Every game: id, status, round, seat to move."""
    for row in checked_parts().service.games():
        turn = (
            "finished"
            if row.status != "playing"
            else f"seat {row.turn} to move"
            if row.turn
            else "seats move at once"
        )
        click.echo(
            f"{row.id}  {row.game}  {row.status:8}  round {row.round}  {turn}  seq {row.head_seq}"
        )


@game.command()
@click.argument("game_id")
@click.option("--token", help="See the game as this seat (its secret card).")
@click.option("--at", "seq", type=int, help="The state at this seq (default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print the state document.")
@click.option("--history", is_flag=True, help="Also list every event.")
def show(game_id: str, token: str | None, seq: int | None, as_json: bool, history: bool) -> None:
    """The game's state, as a seat or a spectator sees it."""
    parts = checked_parts()
    with _answers():
        seat = parts.service.seat_of(game_id, token)
        if as_json:
            doc = parts.service.state_at(game_id, seq, seat)
            click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
            return
        click.echo(parts.service.describe(game_id, seq, seat))
        if history:
            click.echo("")
            for happened in parts.service.history(game_id, seat):
                click.echo(f"  {happened.seq:>4}  {happened.text}")


@game.command()
@click.argument("game_id")
@click.argument("action")
@click.option("--token", required=True, help="The seat's token (from its link).")
@click.option("--expected-seq", type=int, help="Refuse if the game is no longer at this seq.")
@click.option("--key", "idempotency_key", help="An idempotency key.")
def play(
    game_id: str, action: str, token: str, expected_seq: int | None, idempotency_key: str | None
) -> None:
    """Play ACTION (notation or JSON) for the seat of --token."""
    parts = checked_parts()
    with _answers():
        accepted = parts.service.submit_action(
            game_id, token, action, expected_seq, idempotency_key
        )
    click.echo(f"seq {accepted.seq}: {accepted.narration}")


@game.command()
@click.argument("game_id")
def bots(game_id: str) -> None:
    """Play the bot seats' turns until a person is to move or the game ends."""
    parts = checked_parts()
    with _answers():
        for accepted in parts.service.play_bots(game_id):
            click.echo(f"seq {accepted.seq}: seat {accepted.seat} {accepted.narration}")


@game.command()
@click.argument("game_id")
@click.option("--token", required=True)
def undo(game_id: str, token: str) -> None:
    """Take back your last move (or ask the others to agree)."""
    parts = checked_parts()
    with _answers():
        event = parts.service.undo(game_id, token)
    click.echo(f"seq {event.seq}: {event.type}")


@game.command(name="answer-undo")
@click.argument("game_id")
@click.option("--token", required=True)
@click.option("--agree/--refuse", required=True)
def answer_undo(game_id: str, token: str, agree: bool) -> None:
    """Agree to or refuse the waiting undo request."""
    parts = checked_parts()
    with _answers():
        event = parts.service.answer_undo(game_id, token, agree)
    click.echo(f"seq {event.seq}: {event.type}")


@game.command()
@click.argument("game_id")
@click.option("--token", help="Export as this seat sees the game (default: a spectator).")
def export(game_id: str, token: str | None) -> None:
    """Write the game as a log file to stdout (redacted until the game ends)."""
    parts = checked_parts()
    with _answers():
        doc = parts.service.export_log(game_id, parts.service.seat_of(game_id, token))
    click.echo(json.dumps(doc, indent=1, ensure_ascii=False))


@game.command(name="import")
@click.argument("log_file", type=click.File("r", encoding="utf-8"))
def import_(log_file: TextIO) -> None:
    """Create a game from a log file; the new game's id is the last line."""
    try:
        doc = json.load(log_file)
    except json.JSONDecodeError as error:
        raise click.ClickException(f"the log is not JSON: {error}") from None
    parts = checked_parts()
    with _answers():
        created = parts.service.import_log(doc)
    click.echo(f"imported {created.seq - 1} events as game {created.game_id}")
    _note_chosen(parts, created.game_id)
    _print_links(parts, created.game_id)
    click.echo(created.game_id)


@game.command()
@click.argument("game_id", required=False)
@click.option("--all", "every", is_flag=True, help="Verify every game, a chunk at a time.")
def verify(game_id: str | None, every: bool) -> None:
    """Exit 0 only when the hash chain holds and every event folds (of GAME_ID, or
    of every game with --all)."""
    if every == (game_id is not None):
        raise click.UsageError("name one GAME_ID, or give --all")
    parts = checked_parts()
    if every:
        _verify_every(parts)
        return
    assert game_id is not None
    with _answers():
        problems = parts.service.verify(game_id)
    for problem in problems:
        click.echo(f"  {problem}", err=True)
    if problems:
        click.echo(f"game {game_id}: {len(problems)} problems", err=True)
        sys.exit(1)
    click.echo(f"game {game_id}: the hash chain holds and every event folds")


def _verify_every(parts: Parts) -> None:
    """Every game verified, with a progress bar on a terminal; exit 1 naming each
    game that fails, with its problems."""
    total = admin.game_count(parts.database)
    failing: list[str] = []
    checked = 0
    bar = None
    if sys.stderr.isatty():  # silent in a pipe, a log or cron
        bar = click.progressbar(length=total, label="verifying", file=sys.stderr)

    def done(count: int) -> None:
        nonlocal checked
        checked += count
        if bar is not None:
            bar.update(count)

    with bar if bar is not None else nullcontext():
        for game_id, problems in admin.verify_every(parts.service, done=done):
            failing.append(game_id)
            if bar is not None:
                click.echo("", err=True)
            for problem in problems:
                click.echo(f"game {game_id}: {problem}", err=True)
    if failing:
        click.echo(f"{len(failing)} of {checked} games fail: {', '.join(failing)}", err=True)
        sys.exit(1)
    click.echo(f"{checked} games: every hash chain holds and every event folds")
