"""`pbem lmtp`: the LMTP listener a mail server (Postfix, Exim) delivers replies to,
one long-running process in place of a `pbem inbound` per mail."""

from __future__ import annotations

import logging
from pathlib import Path
from threading import Lock

import click

from pbem.bootstrap import InboundParts, build_inbound
from pbem.config import ConfigError
from pbem.mail.handled import Handled
from pbem.mail.inbound import TEMPORARY
from pbem.store import migrate

from .parts import logged

log = logging.getLogger(__name__)


class Checked:
    """The inbound handler, on a database found at the schema this code needs. The
    database may be away when the listener starts: it is checked again at each mail
    until it is found current (till then each mail is told to try again later)."""

    def __init__(self, parts: InboundParts) -> None:
        self.parts = parts
        self.current = False
        self.lock = Lock()

    def check(self) -> None:
        with self.lock:
            if not self.current:
                migrate.require_current(self.parts.database)
                self.current = True

    def handle(self, raw: bytes, recipient: str | None = None) -> Handled:
        self.check()
        return self.parts.inbound.handle(raw, recipient)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=2424, show_default=True)
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Listen on this unix socket instead of --host and --port.",
)
@click.option(
    "--socket-mode",
    default="660",
    show_default=True,
    help="The unix socket's permissions, in octal (the mail server's user must write to it).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Mails handled at once (each in a thread, on its own database connection).",
)
def lmtp(host: str, port: int, socket_path: Path | None, socket_mode: str, threads: int) -> None:
    """Run an LMTP listener that a mail server delivers replies to, instead of
    starting `pbem inbound` for each mail. Each recipient is answered after DATA
    as `pbem inbound --recipient ADDR` exits: 250 handled, refused, ignored or seen
    before; 550 (552 when over 1 MB) to bounce; 451 to try again later. Stops on
    SIGTERM once the mails in hand are answered."""
    from pbem.mail import lmtp as listener

    try:
        mode = int(socket_mode, 8)
    except ValueError:
        raise click.BadParameter(
            "an octal number such as 660", param_hint="--socket-mode"
        ) from None
    if not 0 <= mode <= 0o777:
        raise click.BadParameter("an octal number such as 660", param_hint="--socket-mode")
    try:
        parts = build_inbound()
        parts.settings.signing_key()  # no secret key: nothing could be read
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    logged("lmtp", parts)
    handler = Checked(parts)
    try:
        handler.check()
    except migrate.OutOfDate as error:
        raise click.ClickException(str(error)) from None
    except TEMPORARY as error:  # each mail is told to try again until it is back
        log.warning(
            "the database %s cannot be reached now: %s",
            parts.settings.shown_database_url(),
            type(error).__name__,
        )

    def ready(where: str) -> None:
        click.echo(f"pbem lmtp listening on {where}")

    try:
        listener.serve(
            handler,
            host=host,
            port=port,
            socket_path=socket_path,
            socket_mode=mode,
            threads=threads,
            hostname=parts.settings.mail_domain,
            ready=ready,
        )
    except OSError as error:  # the address taken, the socket's folder missing
        where = socket_path or f"{host}:{port}"
        raise click.ClickException(f"cannot listen on {where}: {error.strerror or error}") from None
