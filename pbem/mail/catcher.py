"""A local SMTP server that keeps every mail it receives in a Maildir folder, for
development (the dev mail page reads it) and tests."""

from __future__ import annotations

import mailbox
from pathlib import Path

from aiosmtpd.controller import Controller


class MaildirHandler:
    """aiosmtpd handler: each message, as received, into the Maildir."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        _open(folder)

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        _open(self.folder).add(envelope.original_content)
        return "250 OK: kept"


def start(folder: Path, host: str = "127.0.0.1", port: int = 8025) -> Controller:
    """A running catcher (stop it with .stop())."""
    controller = Controller(MaildirHandler(folder), hostname=host, port=port)
    controller.start()
    return controller


def received(folder: Path) -> list[mailbox.MaildirMessage]:
    """Every mail the catcher kept, oldest first."""
    return sorted(_open(folder), key=lambda m: m.get_date())


def _open(folder: Path) -> mailbox.Maildir:
    folder.parent.mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(folder, create=True)
