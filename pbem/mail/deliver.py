"""Delivering one outbox row by SMTP: claim it (its Message-ID stored first), send,
mark. A failure puts it back, backing off; a 5xx answer or a mail this server cannot
write (whatever the reason) fails it for good; a mail that no longer matters is
skipped. Whatever becomes of one row, it never raises into the next one's way."""

from __future__ import annotations

import smtplib
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import urlsplit

from pbem.service.outbox import Outbox

from .compose import Composer, Moot


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


class Sender:
    """An SMTP connection opened on the first mail and kept for the next ones (one
    task's mails), opened again after a failure."""

    def __init__(self, smtp: Smtp) -> None:
        self.smtp = smtp
        self.connection: smtplib.SMTP | None = None

    def send(self, message: EmailMessage) -> None:
        if self.connection is None:
            self.connection = smtplib.SMTP(self.smtp.host, self.smtp.port, timeout=30)
        try:
            self.connection.send_message(message)
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


def deliver(outbox: Outbox, composer: Composer, sender: Sender, row_id: int) -> str:
    """Send one row. Returns what became of it: sent, skipped (not pending, or moot),
    pending (to be tried again later, or waiting behind an earlier mail to the same
    address) or failed (given up)."""
    row = outbox.claim(row_id, composer.message_id)
    if row is None:
        status = outbox.status(row_id)
        return status if status in ("pending", "failed") else "skipped"
    try:
        message = composer.compose(row)
    except Moot as why:
        outbox.skipped(row_id, str(why))
        return "skipped"
    except Exception as error:  # trying again cannot help: it fails now
        text = f"this mail cannot be written: {type(error).__name__}: {error}"
        return outbox.failed(row_id, text, permanent=True)
    try:
        sender.send(message)
    except (OSError, smtplib.SMTPException) as error:
        text = f"{type(error).__name__}: {error}"
        return outbox.failed(row_id, text, permanent=_permanent(error))
    except Exception as error:  # the mail itself, not the server
        sender.close()
        text = f"this mail cannot be sent: {type(error).__name__}: {error}"
        return outbox.failed(row_id, text, permanent=True)
    outbox.sent(row_id)
    return "sent"


def deliver_due(outbox: Outbox, composer: Composer, smtp: Smtp) -> int:
    """Send every row that is due, in this process (what the workers do, for
    development and tests without a broker). Returns how many were sent."""
    with Sender(smtp) as sender:
        return sum(
            deliver(outbox, composer, sender, row_id) == "sent" for row_id in outbox.take_due()
        )
