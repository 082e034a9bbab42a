"""The IMAP poller: reads unseen mail from a mailbox, hands each to the inbound
handler, and marks it seen only once it is handled. Two pollers at once act once per
mail: the handler knows each Message-ID it has handled."""

from __future__ import annotations

import logging

from imap_tools import AND, MailBox, MailBoxUnencrypted, MailMessageFlags

from .inbound import Inbound

log = logging.getLogger(__name__)


def poll(
    inbound: Inbound,
    host: str,
    port: int,
    user: str,
    password: str,
    folder: str = "INBOX",
    ssl: bool = True,
) -> int:
    """Handle every unseen mail once; returns how many were handled."""
    box_type = MailBox if ssl else MailBoxUnencrypted
    handled = 0
    with box_type(host, port).login(user, password, initial_folder=folder) as box:
        # One UID at a time, flagged by the UID asked for: a second poller's flag
        # changes reach this session as untagged FETCH responses, which a bulk fetch
        # would take for messages.
        for uid in box.uids(AND(seen=False)):
            for message in box.fetch(uid_list=[uid], mark_seen=False, bulk=False):
                outcome = inbound.handle(message.obj.as_bytes())
                log.info("mail %s from %s: %s", uid, message.from_, outcome.status)
                box.flag(uid, MailMessageFlags.SEEN, True)
                handled += 1
    return handled
