"""The LMTP listener (RFC 2033) a mail server delivers replies to, instead of starting
`pbem inbound` once per mail: one long-running process, on a TCP port or a unix
socket. After DATA each recipient gets its own reply, in the order of its RCPT, with
the meanings of `pbem inbound`'s exit status: handled, refused, ignored or seen
before is 250; a mail to bounce is 550 (552 when too large) with a short reason;
a passing failure (the database or the broker away, the mail in hand elsewhere) is
451, for the mail server to try that recipient again. Each recipient's mail is
handled as `pbem inbound --recipient ADDR` would, by the handler it is given, in a
bounded pool of threads so that one slow database call holds up no other
connection. SIGTERM stops it once the mails in hand are answered."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import stat
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import Envelope, Session

from .handled import FORGED, MALFORMED, NO_ADDRESS, TOO_LARGE, UNREADABLE, Handled
from .inbound import MAX_BYTES, TEMPORARY

log = logging.getLogger(__name__)

MAX_RECIPIENTS = 50  # in one transaction; more are refused (452), for a later one
TRY_LATER = "451 4.3.0 Not handled now, try again later"
IN_HAND = "451 4.3.0 This mail is being handled now, try again later"
TOO_BIG = f"552 5.3.4 Message too big: at most {MAX_BYTES} bytes"
# What a mail that bounces is told, by the reason it bounces: short, and never the
# address (nor its signature).
BOUNCES = {
    NO_ADDRESS: "550 5.1.1 No such reply address here",
    FORGED: "550 5.1.1 Unknown or outdated reply address: reply to the latest mail of your game",
    TOO_LARGE: TOO_BIG,
    MALFORMED: "550 5.6.0 A mail needs one readable From address and a Message-ID",
    UNREADABLE: "550 5.6.0 The mail could not be read",
}
REFUSED = "550 5.7.1 Refused"
# aiosmtpd's one reply when the data ran over its limit (or a line over the stream's):
# LMTP owes one reply for each recipient.
_OVER_LIMIT = ("552 Error: Too much mail data", "500 Line too long")


class Handler(Protocol):
    """What the listener hands each recipient's mail to (pbem.mail.inbound.Inbound)."""

    def handle(self, raw: bytes, recipient: str | None = None) -> Handled: ...


def reply(handled: Handled) -> str:
    """The LMTP reply of one recipient, from what became of its mail."""
    if handled.retry:
        return IN_HAND
    if handled.bounce:
        return BOUNCES.get(handled.reason, REFUSED)
    return f"250 2.0.0 {handled.status.replace(' ', '-')}"


class Replies:
    """The aiosmtpd handler: at most MAX_RECIPIENTS recipients a transaction; after
    DATA each one's mail handled in turn (in the thread pool) and answered."""

    def __init__(self, handler: Handler, pool: ThreadPoolExecutor) -> None:
        self.handler = handler
        self.pool = pool
        self.busy = 0  # transactions whose mail is being handled now
        self.idle = asyncio.Event()
        self.idle.set()

    async def handle_RCPT(
        self, server: Any, session: Session, envelope: Envelope, address: str, options: list
    ) -> str:
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        loop = asyncio.get_running_loop()
        self.busy += 1
        self.idle.clear()
        said: list[str] = []
        told: list[str] = []
        try:
            for recipient in envelope.rcpt_tos:
                line, handled = await loop.run_in_executor(self.pool, self._one, raw, recipient)
                said.append(line)
                told.append(_told(line, handled))
        finally:
            self.busy -= 1
            if not self.busy:
                self.idle.set()
        log.info("mail of %d bytes to %d recipients: %s", len(raw), len(said), "; ".join(told))
        return "\r\n".join(said)

    def _one(self, raw: bytes, recipient: str) -> tuple[str, Handled | None]:
        """One recipient's mail handled (in a thread of the pool), and its reply."""
        try:
            handled = self.handler.handle(raw, recipient)
        except TEMPORARY as error:  # the database or the broker away: the mail server retries
            log.warning("mail not handled now: %s", _first_line(error))
            return TRY_LATER, None
        except Exception as error:  # a fault of this server: the mail waits, not bounced
            log.error("mail not handled: %s", _first_line(error))
            return TRY_LATER, None
        return reply(handled), handled


def _told(line: str, handled: Handled | None) -> str:
    """One recipient's outcome for the log: the reply's code, the status, the game
    (never the recipient's address)."""
    if handled is None:
        return line[:9]
    why = f" ({handled.reason})" if handled.reason else ""
    return f"{line[:9]} {handled.status}{why} game {handled.game or '-'}"


def _first_line(error: BaseException) -> str:
    """An error for the log: its type and the first line of what it says (the
    further lines of a database error hold its statement and parameters)."""
    first = (str(error).splitlines() or [""])[0][:200]
    return f"{type(error).__name__}: {first}"


class Connection(LMTP):
    """One LMTP connection, known to the listener until it closes; data over the
    limit is refused for each recipient, as LMTP wants, where aiosmtpd replies once."""

    line_length_limit = MAX_BYTES  # a long line is no reason to refuse a mail

    def __init__(self, *args: Any, connections: set[Connection], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connections = connections

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.connections.add(self)
        super().connection_made(transport)

    def connection_lost(self, error: Exception | None) -> None:
        self.connections.discard(self)
        super().connection_lost(error)

    async def push(self, status: Any) -> None:
        if isinstance(status, str) and status.startswith(_OVER_LIMIT):
            count = len(self.envelope.rcpt_tos) if self.envelope is not None else 0
            status = "\r\n".join([TOO_BIG] * max(count, 1))
        await super().push(status)


def serve(
    handler: Handler,
    *,
    host: str = "127.0.0.1",
    port: int = 2424,
    socket_path: Path | None = None,
    socket_mode: int = 0o660,
    threads: int = 4,
    hostname: str | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Listen on `host`:`port` (or the unix socket `socket_path`) until SIGTERM or
    SIGINT; `ready(where)` is told once connections are taken. aiosmtpd's own log
    says no more than warnings: at info it names every recipient."""
    aiosmtpd = logging.getLogger("mail.log")
    aiosmtpd.setLevel(max(aiosmtpd.getEffectiveLevel(), logging.WARNING))
    asyncio.run(_serve(handler, host, port, socket_path, socket_mode, threads, hostname, ready))


async def _serve(
    handler: Handler,
    host: str,
    port: int,
    socket_path: Path | None,
    socket_mode: int,
    threads: int,
    hostname: str | None,
    ready: Callable[[str], None] | None,
) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="lmtp")
    replies = Replies(handler, pool)
    connections: set[Connection] = set()

    def session() -> Connection:
        return Connection(
            replies,
            connections=connections,
            data_size_limit=MAX_BYTES,
            enable_SMTPUTF8=True,
            hostname=hostname or "localhost",
            ident="pbem LMTP",
            loop=loop,
        )

    if socket_path is not None:
        _clear(socket_path)
        server = await loop.create_unix_server(session, str(socket_path))
        os.chmod(socket_path, socket_mode)
        where = f"unix:{socket_path}"
    else:
        server = await loop.create_server(session, host, port)
        bound = server.sockets[0].getsockname()
        where = f"inet:{bound[0]}:{bound[1]}"
    log.info("pbem lmtp listening on %s with %d threads", where, threads)
    if ready is not None:
        ready(where)
    await stop.wait()

    server.close()
    log.info("pbem lmtp stopping: no new connections; answering the mails in hand")
    while not replies.idle.is_set():  # a mail whose data came in meanwhile is answered too
        await replies.idle.wait()
        await asyncio.sleep(0)
    for connection in list(connections):  # between mails: the mail server sends it again
        if connection.transport is not None:
            connection.transport.close()
    await _closed(connections)
    pool.shutdown(wait=True)  # a mail whose client left is still handled to its end
    if socket_path is not None:
        socket_path.unlink(missing_ok=True)
    log.info("pbem lmtp stopped")


async def _closed(connections: set[Connection], seconds: float = 10.0) -> None:
    """Until every connection has closed (its last reply written out), or `seconds`."""
    for _ in range(int(seconds * 100)):
        if not connections:
            return
        await asyncio.sleep(0.01)


def _clear(path: Path) -> None:
    """Take away a socket left by a listener that did not stop (anything else there
    is not ours to remove: binding then fails, saying so)."""
    try:
        if stat.S_ISSOCK(path.stat().st_mode):
            path.unlink()
    except FileNotFoundError:
        pass
