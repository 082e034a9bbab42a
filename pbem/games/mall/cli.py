"""The mall game's own commands, `pbem mall replay|simulate|demo` (and, the mall being
the first registered game, `pbem replay|simulate|demo`): the rules engine on the
command line, with no database."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any, TextIO

import click

from ..base import SetupError
from . import format_action, legal_actions, perform, view
from .bots import BOTS, make_bot
from .game import GAME
from .logfile import LogError, read, replay
from .render import describe, draw_mall, narrate
from .simulation import play, summarize
from .state import setup


@click.group(name="mall")
def commands() -> None:
    """The mall game: replay a log, simulate bot games, watch a demo."""


def _load_log(source: TextIO) -> Any:
    try:
        return read(json.load(source))
    except json.JSONDecodeError as error:
        raise click.ClickException(f"the log is not JSON: {error}") from None
    except LogError as error:
        raise click.ClickException(str(error)) from None


@commands.command(name="replay")
@click.argument("log_file", type=click.File("r", encoding="utf-8"))
@click.option("--at", "at", type=click.IntRange(min=0), help="Stop after N actions.")
@click.option("--json", "as_json", is_flag=True, help="Print the state document.")
@click.option("--legal", is_flag=True, help="Add the legal actions of the seat to move.")
@click.option(
    "--as",
    "viewer",
    type=click.IntRange(min=1),
    help="See the game as this seat (its secret card); default: as a spectator.",
)
def replay_command(
    log_file: TextIO, at: int | None, as_json: bool, legal: bool, viewer: int | None
) -> None:
    """Fold LOG_FILE (a pbem.mall/1 game log, - for stdin) through the rules and print
    the state. An illegal action, or a resignation the game refuses where the log puts
    it, stops the replay with exit status 2; a log that cannot be read exits with 1."""
    log = _load_log(log_file)
    if at is not None and at > len(log.entries):
        raise click.ClickException(f"--at {at}: the log has {len(log.entries)} actions")
    try:
        result = replay(log, at, GAME)
    except SetupError as error:
        raise click.ClickException(f"setup: {error}") from None
    if result.refusal is not None:
        click.echo(str(result.refusal), err=True)
        sys.exit(2)
    state = result.state
    if as_json:
        doc = {"seq": result.seq, **view(state, viewer)}
        if legal:
            doc["legal"] = [format_action(a) for a in legal_actions(state)]
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    click.echo(f"After {result.applied} actions (seq {result.seq}).")
    click.echo(describe(state, viewer))
    if legal and state.turn is not None:
        click.echo(f"\nLegal actions for seat {state.turn}:")
        for action in legal_actions(state):
            click.echo(f"  {format_action(action)}")


def _bots(value: str, players: int) -> list[str]:
    names = [b.strip().lower() for b in value.split(",") if b.strip()]
    unknown = [b for b in names if b not in BOTS]
    if not names or unknown:
        raise click.BadParameter(f"bots are {', '.join(BOTS)} (one, or one per seat)")
    return [names[i % len(names)] for i in range(players)]


@commands.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option(
    "--bot",
    default="greedy",
    show_default=True,
    help="random or greedy; a comma-separated list gives one per seat (cycled).",
)
@click.option("--seed", help="Seed of the first game; the others follow from it.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write every game here as a log file.",
)
def simulate(players: int, games: int, bot: str, seed: str | None, out: Path | None) -> None:
    """Play bot games and print a summary."""
    bots = _bots(bot, players)
    seed = seed or secrets.token_hex(16)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    played = []
    with click.progressbar(range(games), label="Playing", file=sys.stderr) as bar:
        for number in bar:
            game = play(f"{seed}/{number + 1}", bots)
            played.append(game)
            if out is not None:
                path = out / f"game-{number + 1:04d}.json"
                path.write_text(json.dumps(game.log(), indent=1) + "\n", encoding="utf-8")
    s = summarize(played)
    click.echo(f"{s.games} games of {s.players} players ({', '.join(bots)}), seed {seed}")
    click.echo(f"  turns per player      {s.turns_per_player:.1f}")
    click.echo(f"  satisfied customers   {s.satisfied_per_player:.1f} per player")
    click.echo(
        f"  scores                mean {s.score_mean:.1f}, min {s.score_min}, max {s.score_max}"
    )
    click.echo(f"  attractions built     {s.attractions_per_game:.2f} per game")
    seats = ", ".join(f"seat {k} {v:.0%}" for k, v in s.wins_by_seat.items())
    click.echo(f"  wins by seat          {seats}")
    if len(s.wins_by_bot) > 1:
        by_bot = ", ".join(f"{k} {v:.0%}" for k, v in s.wins_by_bot.items())
        click.echo(f"  wins by bot           {by_bot} (of the seats each held)")
    click.echo(f"  seconds per game      {s.seconds_per_game:.3f}")
    if out is not None:
        click.echo(f"  logs written to       {out}")


@commands.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option(
    "--bot", default="greedy", show_default=True, help="random or greedy, or one per seat."
)
@click.option("--seed", help="Seed of the game (default: a fresh random one).")
def demo(players: int, bot: str, seed: str | None) -> None:
    """Play one bot game, printed turn by turn."""
    bots = _bots(bot, players)
    seed = seed or secrets.token_hex(16)
    names = [f"{b.title()} {seat}" for seat, b in enumerate(bots, start=1)]
    state = setup(names, seed=seed)
    choosers = [make_bot(b, f"{seed}/{seat}") for seat, b in enumerate(bots, start=1)]
    click.echo(f"A {players}-player game, seed SHA-256 {state.seed_sha256}")
    while state.turn is not None:
        seat = state.turn
        action = choosers[seat - 1](state)
        after = perform(state, action)
        who = f"Round {state.round}, seat {seat} ({names[seat - 1]})"
        click.echo(f"\n{who}: {narrate(state, action, after)}")
        click.echo(draw_mall(after.player(seat).mall))
        state = after
    click.echo("\n" + describe(state, None))
    click.echo(f"\nThe seed was {seed!r}.")
