"""A local SMTP server that keeps every mail it receives in a Maildir folder, for
development (the dev mail page reads it) and tests."""

from __future__ import annotations

import mailbox
import re
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session


class MaildirHandler:
    """aiosmtpd handler: each message, as received, into the Maildir."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        _open(folder)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        _open(self.folder).add(envelope.original_content or b"")
        return "250 OK: kept"


def start(folder: Path, host: str = "127.0.0.1", port: int = 8025) -> Controller:
    """A running catcher (stop it with .stop())."""
    controller = Controller(MaildirHandler(folder), hostname=host, port=port)
    controller.start()
    return controller


def received(folder: Path) -> list[mailbox.MaildirMessage]:
    """Every mail the catcher kept, in the order it came."""
    box = _open(folder)
    return [box[key] for key in sorted(box.keys(), key=_arrival)]


def _arrival(key: str) -> tuple[int, int, int]:
    """When a Maildir message came: its key is seconds.M<microseconds>P<pid>Q<n>.host."""
    match = re.match(r"(\d+)\.M(\d+)P\d+Q(\d+)", key)
    return (int(match[1]), int(match[2]), int(match[3])) if match else (0, 0, 0)


def _open(folder: Path) -> mailbox.Maildir:
    folder.parent.mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(folder, create=True)
