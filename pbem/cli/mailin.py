"""`pbem inbound` (one mail on stdin, for a mail server's pipe) and `pbem imap-poll`:
playing by replying to the turn mails."""

from __future__ import annotations

import sys
import time

import click

from pbem.mail.inbound import Inbound

from .parts import checked_parts

EX_NOUSER, EX_TEMPFAIL = 67, 75  # sysexits.h: the mail server bounces, or tries again


def _handler() -> Inbound:
    from pbem.web.app import create_app

    parts = checked_parts()
    create_app(parts)  # wires the broker, so answers go out at once
    return Inbound(parts.service, parts.outbox, parts.settings, parts.service.clock)


@click.command()
@click.option(
    "--recipient",
    envvar="RECIPIENT",
    help="The envelope recipient (Postfix's pipe passes it as ${recipient}).",
)
def inbound(recipient: str | None) -> None:
    """Handle one RFC 822 mail read from stdin. Exit 0 when it was handled (an
    answer is mailed), 67 when the mail server should bounce it, 75 when it should
    try again later."""
    raw = sys.stdin.buffer.read()
    try:
        handled = _handler().handle(raw, recipient)
    except Exception as error:  # the database away: let the mail server retry
        click.echo(f"not handled now: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    click.echo(f"{handled.status}: {handled.detail}")
    if handled.bounce:
        sys.exit(EX_NOUSER)


@click.command(name="imap-poll")
@click.option("--host", required=True)
@click.option("--port", type=int, default=993, show_default=True)
@click.option("--user", required=True)
@click.option(
    "--password", envvar="PBEM_IMAP_PASSWORD", required=True, help="Or PBEM_IMAP_PASSWORD."
)
@click.option("--folder", default="INBOX", show_default=True)
@click.option("--ssl/--no-ssl", default=True, show_default=True)
@click.option("--every", type=int, default=30, show_default=True, help="Seconds between polls.")
@click.option("--once", is_flag=True, help="Poll once and exit.")
def imap_poll(
    host: str, port: int, user: str, password: str, folder: str, ssl: bool, every: int, once: bool
) -> None:
    """Read replies from an IMAP mailbox and act on them (mark each seen once handled)."""
    from pbem.mail.imap import poll

    handler = _handler()
    while True:
        count = poll(handler, host, port, user, password, folder, ssl)
        click.echo(f"handled {count} mails")
        if once:
            return
        time.sleep(every)
