"""The daily digest: for each address with held turn notices, on each channel, one
digest row naming their games; the held rows become digested."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from . import rows

OUTBOX = rows.OUTBOX


def make(conn: Connection, now: str) -> list[int]:
    """The digest rows made at `now` from the held notices, in the transaction of
    `conn`; their ids."""
    held = conn.execute(
        select(
            OUTBOX.c.id,
            OUTBOX.c.channel,
            OUTBOX.c.address,
            OUTBOX.c.game_id,
            OUTBOX.c.seat,
            OUTBOX.c.language,
        )
        .where(OUTBOX.c.status == "held")
        .order_by(OUTBOX.c.id)
        .with_for_update()
    ).all()
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
