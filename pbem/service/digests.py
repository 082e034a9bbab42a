"""The daily digest: for each address with held turn notices, on each channel, one
digest row naming their games; the held rows become digested. A held notice that
tells nothing new by now (its game is over, or the seat's page has shown what it
tells: see pbem.service.seen) is skipped, and names no game in a digest."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from . import rows, seen

OUTBOX = rows.OUTBOX


def make(conn: Connection, now: str) -> list[int]:
    """The digest rows made at `now` from the held notices, in the transaction of
    `conn`; their ids."""
    every = conn.execute(
        select(OUTBOX).where(OUTBOX.c.status == "held").order_by(OUTBOX.c.id).with_for_update()
    ).all()
    moot = {row.id: why for row in every if (why := seen.moot(conn, row)) is not None}
    for row_id, why in moot.items():
        conn.execute(
            update(OUTBOX).where(OUTBOX.c.id == row_id).values(status="skipped", last_error=why)
        )
    held = [row for row in every if row.id not in moot]
    games: dict[tuple[str, str], list[list[Any]]] = {}
    languages: dict[tuple[str, str], str] = {}  # the newest held notice's
    for row in held:
        pair = [row.game_id, row.seat]
        listed = games.setdefault((row.channel, row.address), [])
        languages[row.channel, row.address] = row.language
        if pair not in listed:
            listed.append(pair)
    digests = [
        rows.new_mail(
            None,
            None,
            "digest",
            None,
            address,
            {"seats": pairs},
            now,
            channel=channel,
            language=languages[channel, address],
        )
        for (channel, address), pairs in games.items()
    ]
    if held:
        ids = [row.id for row in held]
        conn.execute(update(OUTBOX).where(OUTBOX.c.id.in_(ids)).values(status="digested"))
    return rows.add_mails(conn, digests)
