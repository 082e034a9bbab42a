"""The IMAP poller: reads unseen mail from a mailbox, hands each (its raw bytes, never
parsed here) to the inbound handler, and marks it seen once it is handled — refused
or not, so that one mail that cannot be read never holds up the ones behind it. Two
pollers at once act once per mail: the handler knows each Message-ID it has handled.
A mail another poller has in hand, or one whose handling failed for a passing reason
(the database away), stays unseen for the next poll."""

from __future__ import annotations

import logging
import re

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted, MailMessageFlags

from .inbound import TEMPORARY, Inbound

log = logging.getLogger(__name__)
_BODY = re.compile(rb"\bUID (\d+)\b.*\bBODY\[\]", re.S)


def poll(
    inbound: Inbound,
    host: str,
    port: int,
    user: str,
    password: str,
    folder: str = "INBOX",
    ssl: bool = True,
) -> int:
    """Handle every unseen mail once; returns how many were handled (refused ones
    included). Raises one of TEMPORARY when the handler cannot go on for now."""
    box_type = MailBox if ssl else MailBoxUnencrypted
    handled = 0
    with box_type(host, port).login(user, password, initial_folder=folder) as box:
        # One UID at a time, the raw mail picked out by the UID asked for: a second
        # poller's flag changes reach this session as untagged FETCH responses.
        for uid in box.uids(AND(seen=False)):
            raw = _fetch(box, uid)
            if raw is None:  # gone meanwhile (another poller expunged it)
                continue
            try:
                outcome = inbound.handle(raw)
            except TEMPORARY:
                log.warning("mail %s left unseen: the handler cannot go on for now", uid)
                raise
            log.info("mail %s: %s %s", uid, outcome.status, outcome.detail)
            if outcome.retry:
                continue
            box.flag(uid, MailMessageFlags.SEEN, True)
            handled += 1
    return handled


def _fetch(box: BaseMailBox, uid: str) -> bytes | None:
    """The mail's raw bytes, without setting its \\Seen flag."""
    status, data = box.client.uid("FETCH", uid, "(UID BODY.PEEK[])")
    if status != "OK":
        return None
    for item in data:
        if isinstance(item, tuple) and len(item) == 2:
            match = _BODY.search(item[0])
            if match is not None and match.group(1).decode() == str(uid):
                return item[1]
    return None
