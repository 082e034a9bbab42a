"""The `pbem` command: one group whose subcommands live in the modules beside this one
and in each game's package (its `cli` part, `pbem <game> ...`). A module is imported
only when one of its commands runs, so `pbem --help` starts no server part."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from importlib.util import find_spec

import click

from pbem.games import GAMES, NAMES

# name -> (module beside this one, its command, the first sentence of its help, which
# `pbem --help` shows without importing the module)
SERVER_COMMANDS = {
    "db": ("db", "db", "The database: schema and derived tables."),
    "game": ("games", "game", "Games in the database."),
    "chain-check": (
        "chaincheck",
        "chain_check",
        "Check a game's hash chain as you may see it, from the API's answer.",
    ),
    "web": ("web", "web", "Serve the web app and the JSON API on the configured database."),
    "worker": ("processes", "worker", "Run a Celery worker: mail delivery, bot turns, timeouts."),
    "scheduler": (
        "processes",
        "scheduler",
        "Run the scheduler (exactly one per installation): sweeps deadlines, reminders,"
        " bot turns and the outbox, and hands the work to the workers.",
    ),
    "mail-catcher": (
        "processes",
        "mail_catcher",
        "Run a local SMTP server that keeps every mail in instance/mail (dev mode shows"
        " them on /dev/mail).",
    ),
    "dev": (
        "processes",
        "dev",
        "Start everything on the embedded defaults — the web app, a Celery worker on a"
        " broker that needs no server, the scheduler and a local mail catcher — and stop"
        " them all on Ctrl-C.",
    ),
    "mail": ("processes", "mail", "The outbox."),
    "doctor": (
        "doctor",
        "doctor",
        "Check the configuration and every part it names: the secret key, the database"
        " and its schema, the broker, the SMTP relay, the IMAP mailbox (when"
        " PBEM_IMAP_HOST is set), the scheduler's and the workers' heartbeats, the"
        " outbox's backlog and failures.",
    ),
    "inbound": ("mailin", "inbound", "Handle one RFC 822 mail read from stdin."),
    "lmtp": (
        "lmtp",
        "lmtp",
        "Run an LMTP listener that a mail server delivers replies to, instead of starting"
        " `pbem inbound` for each mail.",
    ),
    "imap-poll": (
        "mailin",
        "imap_poll",
        "Read replies from an IMAP mailbox and act on them (mark each seen once handled,"
        " or refused).",
    ),
}
# Commands of the first registered game that has them, at the top level too: the
# command line contract of docs/design.md (`pbem replay LOG.json`, `pbem simulate`).
GAME_COMMANDS_AT_TOP = ("replay", "simulate", "demo")


@cache
def game_commands(name: str) -> click.Group | None:
    """The click group of a registered game's `cli` part, or None when it has none."""
    package = GAMES[name].package
    if find_spec(f"{package}.cli") is None:
        return None
    group = GAMES[name].part("cli").commands
    if not isinstance(group, click.Group):
        raise TypeError(f"{package}.cli.commands is not a click group")
    return group


class Main(click.Group):
    """The server's commands, the games' groups, and the first game's own commands."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        games = [name for name in NAMES if game_commands(name) is not None]
        top = [name for name in GAME_COMMANDS_AT_TOP if self._game_command(name) is not None]
        return sorted({*SERVER_COMMANDS, *games, *top, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name in SERVER_COMMANDS:
            module, attribute, _ = SERVER_COMMANDS[cmd_name]
            command: click.Command = getattr(import_module(f"{__name__}.{module}"), attribute)
            return command
        if cmd_name in NAMES:
            return game_commands(cmd_name)
        if cmd_name in GAME_COMMANDS_AT_TOP:
            return self._game_command(cmd_name)
        return None

    @staticmethod
    def _game_command(cmd_name: str) -> click.Command | None:
        for name in NAMES:
            group = game_commands(name)
            if group is not None and cmd_name in group.commands:
                return group.commands[cmd_name]
        return None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands, with the server's lines as written above (so that
        listing them imports none of them)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        rows = []
        for cmd_name in names:
            if cmd_name in SERVER_COMMANDS and cmd_name not in self.commands:
                said = click.Command(cmd_name, help=SERVER_COMMANDS[cmd_name][2])
                rows.append((cmd_name, said.get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, cmd_name)
            if command is not None and not command.hidden:
                rows.append((cmd_name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=Main)
@click.version_option(package_name="pbem")
def main() -> None:
    """pbem: a play-by-email server for turn-based games."""


__all__ = ["main"]
