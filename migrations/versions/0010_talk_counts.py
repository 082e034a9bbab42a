"""talk: a game's events indexed by (game_id, type, seq), and the lines of talk counted

A chat's last lines are then read by the index, a page at a time, and the events
that are not talk without the talk around them; `talk_counts` holds how many lines
each game's two chats hold, in all and by each writer, counted here from the
events already stored (the totals a game allows are checked against it).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_events_game_id_type_seq"
TALK = ("TableTalk", "SpectatorTalk")


def _writer(kind: str, payload: dict[str, Any]) -> str:
    """Who said a line, as talk_counts keys it (as pbem.store.talk.writer_of)."""
    if kind == "TableTalk":
        return f"seat:{payload['seat']}"
    return "name:" + " ".join(str(payload["name"]).split()).casefold()


def upgrade() -> None:
    op.create_index(INDEX, "events", ["game_id", "type", "seq"], unique=False)
    counts = op.create_table(
        "talk_counts",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("type", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("writer", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("lines", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "type", "writer", name=op.f("pk_talk_counts")),
    )
    assert counts is not None
    events = sa.table("events", sa.column("game_id"), sa.column("type"), sa.column("payload"))
    found = op.get_bind().execute(
        sa.select(events.c.game_id, events.c.type, events.c.payload).where(events.c.type.in_(TALK))
    )
    lines: Counter[tuple[str, str, str]] = Counter()
    for game_id, kind, payload in found:
        said = json.loads(payload) if isinstance(payload, str | bytes) else payload
        lines[(game_id, kind, "")] += 1
        lines[(game_id, kind, _writer(kind, said))] += 1
    if lines:
        op.bulk_insert(
            counts,
            [
                {"game_id": g, "type": t, "writer": w, "lines": n}
                for (g, t, w), n in sorted(lines.items())
            ],
        )


def downgrade() -> None:
    op.drop_table("talk_counts")
    op.drop_index(INDEX, table_name="events")
