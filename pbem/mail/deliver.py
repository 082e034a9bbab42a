"""Delivering outbox rows by SMTP: claim (the Message-ID is stored first), send,
mark. A crash between sending and marking can send a row twice, with the same
Message-ID; nothing else can."""

from __future__ import annotations

import smtplib
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from pbem.service.outbox import Outbox

from .compose import Composer, UnknownMail


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


def deliver(outbox: Outbox, composer: Composer, smtp: Smtp, row_id: int) -> str:
    """Send one row; returns "sent", or "skipped" when it was not pending. SMTP and
    connection errors propagate (the caller decides when to retry)."""
    row = outbox.claim(row_id, composer.message_id)
    if row is None:
        return "skipped"
    message = composer.compose(row)
    with smtplib.SMTP(smtp.host, smtp.port, timeout=30) as connection:
        connection.send_message(message)
    outbox.sent(row_id)
    return "sent"


def deliver_due(outbox: Outbox, composer: Composer, smtp: Smtp) -> int:
    """Send every due row once; a failure waits a minute. Returns how many went."""
    sent = 0
    for row_id in outbox.due():
        try:
            sent += deliver(outbox, composer, smtp, row_id) == "sent"
        except (OSError, smtplib.SMTPException) as error:
            outbox.failed(row_id, f"{type(error).__name__}: {error}", timedelta(minutes=1))
        except UnknownMail as error:
            outbox.failed(row_id, str(error), None)  # trying again will not help
    return sent
