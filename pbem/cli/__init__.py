"""The `pbem` command: one group, its subcommands in the modules beside this one."""

from __future__ import annotations

import click

from . import db, engine, games, mailin, processes, web


@click.group()
@click.version_option(package_name="pbem")
def main() -> None:
    """pbem: a play-by-email server for the mall game."""


main.add_command(engine.replay_command)
main.add_command(engine.simulate)
main.add_command(engine.demo)
main.add_command(db.db)
main.add_command(games.game)
main.add_command(web.web)
main.add_command(processes.worker)
main.add_command(processes.scheduler)
main.add_command(processes.mail_catcher)
main.add_command(processes.dev)
main.add_command(processes.mail)
main.add_command(mailin.inbound)
main.add_command(mailin.imap_poll)

__all__ = ["main"]
