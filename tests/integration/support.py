"""Small helpers the store and service tests share."""

from __future__ import annotations

import itertools
import re
import socket
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from alembic import command
from sqlalchemy import select as core_select
from sqlalchemy import update
from sqlmodel import select

from pbem.events import timestamp
from pbem.mail import replyto
from pbem.mail.compose import Composer
from pbem.mail.inbound import Inbound
from pbem.service import Created, PlayerSpec, Service, rows
from pbem.store import migrate
from pbem.store.tables import Outbox

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def free_port() -> int:
    """A local TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Kept:
    """The mailboxes behind an aiosmtpd server (its handler): every mail it accepts,
    parsed, and each one's envelope recipients."""

    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []
        self.recipients: list[list[str]] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.mails.append(BytesParser(policy=policy.default).parsebytes(envelope.original_content))
        self.recipients.append(list(envelope.rcpt_tos))
        return "250 OK"


def sweep_and_deliver(parts) -> None:
    """What the scheduler and a worker do: one sweep (which answers the requests for
    My games links among the rest) and the delivery, in this process, of the mails
    it hands out."""
    from pbem.service.delivery import Deliveries
    from pbem.service.sweep import Sweeper

    work = Sweeper(parts.service, parts.outbox, parts.service.clock).sweep()
    deliveries = Deliveries(parts.outbox, parts.channels)
    try:
        for row_id in work.mails:
            deliveries.deliver(row_id)
    finally:
        deliveries.finish()


def csrf(client, url: str, **headers: str) -> str:
    """The CSRF token of the form on the page at `url` (a Flask test client)."""
    return CSRF.search(client.get(url, headers=headers).get_data(as_text=True))[1]


FEED = re.compile(r'href="/feeds/([^"]+)\.atom"')


def feed_of(client, **headers: str) -> str | None:
    """The id of this browser's deadline feed as My games links it, asked for first
    (the page's "Make feed addresses" button) when the browser has none; None when
    the browser holds no seat."""
    page = client.get("/my-games", headers=headers).get_data(as_text=True)
    found = FEED.search(page)
    if found is None and "/feeds/new" in page:
        client.post("/feeds/new", data={"csrf_token": CSRF.search(page)[1]}, headers=headers)
        found = FEED.search(client.get("/my-games", headers=headers).get_data(as_text=True))
    return found[1] if found else None


def migrate_to(database, revision: str, how: str = "upgrade") -> None:
    """Alembic's upgrade or downgrade of `database` to `revision`, on its engine."""
    config = migrate.alembic_config(database)
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, how)(config, revision)


# A short explicit deal: the Dispenser and a supply of 4, nothing drawn from a seed.
SHORT = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5"},
}


def two_players(service: Service, setup: dict | None = None, **options) -> Created:
    return service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        options or None,
        setup if setup is not None else {"seed": "integration"},
    )


def token(created: Created, seat: int) -> str:
    return created.seats[seat - 1].token


def outbox(service: Service, game_id: str) -> list[tuple[int, str, int | None, str]]:
    """(seq, kind, seat, address) of every outbox row of the game, in order."""
    with service.db.read() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)).all()
        return [(r.seq, r.kind, r.seat, r.address) for r in rows]


def play_out(service: Service, created: Created) -> None:
    """Play the game to its end, each seat taking its first legal action."""
    while True:
        state = service.state_at(created.game_id)
        if state["turn"] is None:
            return
        seat = state["turn"]
        action = service.legal(created.game_id, seat)[0]
        service.submit_action(created.game_id, token(created, seat), action, state["seq"])


MAILS = Path(__file__).parent / "mails"
_ids = itertools.count(1)


class Table:
    """A game of Ann and Ben (or of `players`) and the handler their replies reach."""

    def __init__(self, parts, players: list[PlayerSpec] | None = None, **options) -> None:
        self.parts = parts
        created = parts.service.create_game(
            players or [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
            options or None,
            SHORT,
        )
        self.game = created.game_id
        self.tokens = {s.seat: s.token for s in created.seats}
        self.inbound = Inbound(parts.service, parts.outbox, parts.settings, parts.service.clock)

    def address(self, seat: int, seq: int | None = None) -> str:
        seq = self.parts.service.state_at(self.game)["seq"] if seq is None else seq
        settings = self.parts.settings
        holder = next(s.token for s in self.parts.service.seat_links(self.game) if s.seat == seat)
        return replyto.reply_address(
            settings.signing_key(), settings.mail_domain, self.game, seat, seq, holder or ""
        )

    def mail(
        self,
        fixture: str,
        move: str,
        seat: int = 1,
        *,
        sender: str | None = None,
        address: str | None = None,
        message_id: str | None = None,
    ) -> bytes:
        text = (MAILS / fixture).read_text(encoding="utf-8")
        return text.format(
            sender=sender or ("ann@example.com" if seat == 1 else "ben@example.com"),
            reply_to=address or self.address(seat),
            message_id=message_id or f"<reply-{next(_ids)}@mail.example>",
            game=self.game,
            move=move,
        ).encode("utf-8")

    def answers(self) -> list:
        with self.parts.database.read() as s:
            query = select(Outbox).where(Outbox.kind == "answer").order_by(Outbox.id)
            return list(s.exec(query).all())

    def seq(self) -> int:
        return self.parts.service.state_at(self.game)["seq"]


def claim_alone(outbox, row_id: int, message_id):
    """The row claimed as a worker claims it, but whatever notices to its address
    wait before it (they stay as they are): for tests of what a mail says, which
    write and compose notices in an order of their own."""
    with outbox.db.writing() as conn:
        waiting = conn.execute(
            core_select(rows.OUTBOX.c.id, rows.OUTBOX.c.status).where(
                rows.OUTBOX.c.id < row_id, rows.OUTBOX.c.status.in_(("pending", "sending"))
            )
        ).all()
        for ahead in waiting:  # out of the way for the claim, as they were after it
            conn.execute(
                update(rows.OUTBOX).where(rows.OUTBOX.c.id == ahead.id).values(status="paused")
            )
    try:
        return outbox.claim(row_id, message_id)
    finally:
        with outbox.db.writing() as conn:
            for ahead in waiting:
                conn.execute(
                    update(rows.OUTBOX)
                    .where(rows.OUTBOX.c.id == ahead.id)
                    .values(status=ahead.status)
                )


class MailWriter:
    """Outbox rows of any kind for one game (the service's own row when it wrote
    one), claimed as a worker claims them, and the mails they compose into."""

    def __init__(self, parts, clock, game_id: str) -> None:
        self.parts, self.clock, self.game_id = parts, clock, game_id
        self.composer = Composer(parts.service, parts.settings)

    def row(self, kind, seat, to, payload, *, seq=None, game=True, language=None, again=False):
        """The claimed row of a notice, written in `language` (None: as queued). A
        row of no game (a digest, say) is always a new one: its address tells it
        from another's, as the service's own rows of no game are told apart.
        `again`: a row claimed before is claimed anew (to write its mail again at a
        later moment)."""
        seq = self.parts.service.state_at(self.game_id)["seq"] if seq is None and game else seq
        game_id = self.game_id if game else None
        mail = rows.new_mail(game_id, seq, kind, seat, to, payload, timestamp(self.clock()))
        with self.parts.database.writing() as conn:
            if game and rows.mail_exists(conn, mail):  # the service wrote it already
                row_id = conn.execute(
                    core_select(rows.OUTBOX.c.id).where(
                        rows.OUTBOX.c.game_id == game_id,
                        rows.OUTBOX.c.seq == seq,
                        rows.OUTBOX.c.kind == mail["kind"],
                        rows.OUTBOX.c.seat == seat,
                    )
                ).scalar_one()
            else:
                (row_id,) = rows.add_mails(conn, [mail])
            if language is not None:
                conn.execute(
                    update(rows.OUTBOX).where(rows.OUTBOX.c.id == row_id).values(language=language)
                )
            if again:
                conn.execute(
                    update(rows.OUTBOX).where(rows.OUTBOX.c.id == row_id).values(status="pending")
                )
        row = claim_alone(self.parts.outbox, row_id, self.composer.message_id)
        assert row is not None
        return row

    def compose(self, kind, seat, to, payload, **how):
        """The mail of `row(kind, seat, to, payload, **how)`."""
        return self.composer.compose(self.row(kind, seat, to, payload, **how))


def signed_reply(parts, game_id: str, seat: int, token: str, sender: str, body: str):
    """A reply to the seat's signed address at the game's head, from `sender`, with
    `body` as its text: what a player's mail program sends back."""
    settings = parts.settings
    seq = parts.service.state_at(game_id)["seq"]
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = replyto.reply_address(
        settings.signing_key(), settings.mail_domain, game_id, seat, seq, token
    )
    mail["Subject"] = "Re: your turn"
    mail["Message-ID"] = f"<reply-{seat}-{seq}-{next(_ids)}@mail.example>"
    mail.set_content(body)
    return mail
