"""The e-mail channel: an adapter of the notification port (pbem.service.notices)
that writes a claimed outbox row as a mail (pbem.mail.compose) and sends it by
SMTP. A 5xx answer, or a mail this server cannot write (whatever the reason), fails
it for good; other failures are tried again later; a mail that no longer matters is
skipped. Each thread keeps its own SMTP connection between mails."""

from __future__ import annotations

import functools
import smtplib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pbem.service.delivery import deliver_due as deliver_due_on
from pbem.service.notices import Channel, DeliveryFailed, Moot
from pbem.service.outbox import Outbox

from .compose import Composer
from .writing import Mail


@dataclass(frozen=True)
class Smtp:
    host: str
    port: int

    @classmethod
    def from_url(cls, url: str) -> Smtp:
        parts = urlsplit(url)
        if parts.scheme != "smtp" or not parts.hostname:
            raise ValueError(f"an SMTP URL is smtp://host:port, not {url!r}")
        return cls(parts.hostname, parts.port or 25)


class _Smtp(smtplib.SMTP):
    """smtplib's client, with a mail's lines that begin with a period doubled by a
    replace of bytes rather than its regular expression (a turn mail with its
    picture is tens of kilobytes, and the expression looks at every one of them),
    and each envelope address quoted once per process (smtplib parses the sender
    and every recipient again for each mail)."""

    def mail(self, sender: str, options: Any = ()) -> tuple[int, bytes]:
        if any(option.lower() == "smtputf8" for option in options):
            return super().mail(sender, options)  # it changes how commands are written
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("mail", f"FROM:{_quoted(sender)}{extra}")
        return self.getreply()

    def rcpt(self, recip: str, options: Any = ()) -> tuple[int, bytes]:
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("rcpt", f"TO:{_quoted(recip)}{extra}")
        return self.getreply()

    def data(self, msg: Any) -> tuple[int, bytes]:
        if not isinstance(msg, bytes):
            return super().data(msg)  # text: its line ends made CRLF first, as smtplib does
        self.putcmd("data")
        code, reply = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        quoted = stuffed(msg)
        if quoted[-2:] != b"\r\n":
            quoted += b"\r\n"
        self.send(quoted + b".\r\n")
        return self.getreply()


@functools.lru_cache(maxsize=4096)
def _quoted(address: str) -> str:
    return smtplib.quoteaddr(address)


def stuffed(data: bytes) -> bytes:
    """`data` with a period added before each line's first period (RFC 5321's
    transparency), as smtplib's `(?m)^\\.` does: at the start and after every LF."""
    return (b"." + data if data[:1] == b"." else data).replace(b"\n.", b"\n..")


class Sender:
    """An SMTP connection opened on the first mail and kept for the next ones (one
    task's mails), opened again after a failure."""

    def __init__(self, smtp: Smtp) -> None:
        self.smtp = smtp
        self.connection: smtplib.SMTP | None = None

    def send(self, mail: Mail) -> None:
        """Send a mail written out for SMTP, to its envelope's recipients."""
        if self.connection is None:
            self.connection = _Smtp(self.smtp.host, self.smtp.port, timeout=30)
        try:
            self.connection.sendmail(mail.sender, list(mail.recipients), mail.data)
        except (OSError, smtplib.SMTPException):
            self.close()
            raise

    def close(self) -> None:
        if self.connection is not None:
            try:
                self.connection.quit()
            except (OSError, smtplib.SMTPException):
                self.connection.close()
            self.connection = None

    def __enter__(self) -> Sender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _permanent(error: Exception) -> bool:
    """Whether the server refused for good (a 5xx answer), not for now (4xx)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    code = getattr(error, "smtp_code", None)
    return isinstance(code, int) and code >= 500


class EmailChannel:
    """The e-mail adapter: `name` "email", Message-IDs as delivery ids, a mail
    composed from templates and sent by SMTP (its server parsed from the settings'
    URL on the first mail, so that a process that sends none never needs it)."""

    name = "email"

    def __init__(self, composer: Composer, smtp: Smtp | None = None) -> None:
        self.composer = composer
        self._smtp = smtp
        self._local = threading.local()

    @property
    def smtp(self) -> Smtp:
        if self._smtp is None:
            self._smtp = Smtp.from_url(self.composer.settings.smtp_url)
        return self._smtp

    def delivery_id(self) -> str:
        return self.composer.message_id()

    def _sender(self) -> Sender:
        sender: Sender | None = getattr(self._local, "sender", None)
        if sender is None:
            sender = self._local.sender = Sender(self.smtp)
        return sender

    def deliver(self, row: Any) -> None:
        try:
            mail = self.composer.write(row)
        except Moot:
            raise
        except Exception as error:  # trying again cannot help: it fails now
            text = f"this mail cannot be written: {type(error).__name__}: {error}"
            raise DeliveryFailed(text, permanent=True) from error
        sender = self._sender()
        try:
            sender.send(mail)
        except (OSError, smtplib.SMTPException) as error:
            text = f"{type(error).__name__}: {error}"
            raise DeliveryFailed(text, permanent=_permanent(error)) from error
        except Exception as error:  # the mail itself, not the server
            sender.close()
            text = f"this mail cannot be sent: {type(error).__name__}: {error}"
            raise DeliveryFailed(text, permanent=True) from error

    def warm(self) -> None:
        self.composer.warm()

    def close(self) -> None:
        sender: Sender | None = getattr(self._local, "sender", None)
        if sender is not None:
            sender.close()


def deliver_due(outbox: Outbox, composer: Composer, smtp: Smtp) -> int:
    """Send every mail that is due, in this process, to `smtp` (for development and
    tests without a broker). Returns how many were sent."""
    channels: Mapping[str, Channel] = {"email": EmailChannel(composer, smtp)}
    return deliver_due_on(outbox, channels)
