"""`pbem inbound` (one mail on stdin, for a mail server's pipe) and `pbem imap-poll`:
playing by replying to the turn mails. A mail server starts `pbem inbound` once per
mail, so it imports only what handling a mail takes (not the Celery app until an
answer is handed on, nor the mail composer or the web app)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from pbem.mail.inbound import Inbound

EX_NOUSER, EX_TEMPFAIL = 67, 75  # sysexits.h: the mail server bounces, or tries again


def _handler(kind: str) -> Inbound:
    """The inbound handler of this process (its answers go to the broker as they
    are written when one is configured), its logs set up."""
    from .parts import checked_inbound, logged

    parts = checked_inbound()
    logged(kind, parts)
    return parts.inbound


@click.command()
@click.option(
    "--recipient",
    envvar="RECIPIENT",
    help="The envelope recipient (Postfix's pipe passes it as ${recipient}).",
)
def inbound(recipient: str | None) -> None:
    """Handle one RFC 822 mail read from stdin. Exit 0 when it was handled (acted
    on, refused without an answer, or ignored), 67 when the mail server should
    bounce it (not a signed reply address, too large, cannot be read), 75 when it
    should try again later (the database or the broker away, or the mail in hand
    elsewhere)."""
    from pbem.mail.inbound import TEMPORARY

    raw = sys.stdin.buffer.read()
    try:
        handler = _handler("inbound")
    except Exception as error:  # the database or the settings away: retry later
        click.echo(f"not handled now: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    try:
        handled = handler.handle(raw, recipient)
    except TEMPORARY as error:  # the database or the broker away: retry later
        click.echo(f"not handled now: {type(error).__name__}: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    click.echo(f"{handled.status}: {handled.detail}")
    if handled.retry:
        sys.exit(EX_TEMPFAIL)
    if handled.bounce:
        sys.exit(EX_NOUSER)


@click.command(name="imap-poll")
@click.option("--host", envvar="PBEM_IMAP_HOST", required=True, help="Or PBEM_IMAP_HOST.")
@click.option("--port", envvar="PBEM_IMAP_PORT", type=int, default=993, show_default=True)
@click.option("--user", envvar="PBEM_IMAP_USER", required=True, help="Or PBEM_IMAP_USER.")
@click.option(
    "--password", envvar="PBEM_IMAP_PASSWORD", required=True, help="Or PBEM_IMAP_PASSWORD."
)
@click.option("--folder", envvar="PBEM_IMAP_FOLDER", default="INBOX", show_default=True)
@click.option("--ssl/--no-ssl", envvar="PBEM_IMAP_SSL", default=True, show_default=True)
@click.option("--every", type=int, default=30, show_default=True, help="Seconds between polls.")
@click.option("--once", is_flag=True, help="Poll once and exit.")
def imap_poll(
    host: str, port: int, user: str, password: str, folder: str, ssl: bool, every: int, once: bool
) -> None:
    """Read replies from an IMAP mailbox and act on them (mark each seen once
    handled, or refused). With --once, exit 75 when the mailbox or the database
    cannot be reached."""
    from imaplib import IMAP4

    from pbem.mail.imap import poll
    from pbem.mail.inbound import TEMPORARY

    handler = _handler("imap-poll")
    passing: tuple[type[BaseException], ...] = (*TEMPORARY, OSError, IMAP4.error)
    while True:
        try:
            count = poll(handler, host, port, user, password, folder, ssl)
        except passing as error:  # retried at the next poll
            click.echo(f"not polled now: {type(error).__name__}: {error}", err=True)
            if once:
                sys.exit(EX_TEMPFAIL)
        else:
            click.echo(f"handled {count} mails")
            if once:
                return
        time.sleep(every)
