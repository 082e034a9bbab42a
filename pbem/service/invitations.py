"""The invitation limit: one address gets at most PER_DAY invitations in 24 hours,
counted from the outbox, so nobody can use new games to mail-bomb an address."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import Connection, func, select

from pbem.events import timestamp
from pbem.i18n import gettext as _

from .errors import TooMany
from .rows import OUTBOX

PER_DAY = 10  # invitations to one address
WINDOW = timedelta(hours=24)


def check(conn: Connection, addresses: Iterable[str], now: datetime) -> None:
    """Refuse (TooMany, naming the address) when inviting `addresses` (one entry per
    seat) now would give one of them more than PER_DAY invitations in WINDOW."""
    wanted = Counter(a.lower() for a in addresses)
    if not wanted:
        return
    address = func.lower(OUTBOX.c.address)
    sent: dict[str, int] = dict(
        conn.execute(
            select(address, func.count())
            .where(
                OUTBOX.c.kind == "invitation",
                address.in_(list(wanted)),
                OUTBOX.c.created_at >= timestamp(now - WINDOW),
            )
            .group_by(address)
        ).all()
    )
    for to, count in sorted(wanted.items()):
        if sent.get(to, 0) + count > PER_DAY:
            raise TooMany(
                _(
                    "%(address)s has had %(invitations)s invitations in the last 24 hours;"
                    " an address gets at most %(most)s a day: try again later, or invite"
                    " another address",
                    address=to,
                    invitations=sent.get(to, 0),
                    most=PER_DAY,
                ),
                {"address": to, "invitations": sent.get(to, 0), "limit": PER_DAY},
            )
