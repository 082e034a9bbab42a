"""The mails of a game at one moment share what the game is then (its state, each
viewer's view, position, actions and history, worked out once per viewer), and a
mail to one seat never gets another seat's view; a claim goes in one statement
when nothing stands in its way and waits as before behind a retried mail to the
same address, however its case is written."""

from __future__ import annotations

import itertools
import json
import re
from datetime import timedelta

from sqlalchemy import select

from pbem.events import timestamp
from pbem.games import get
from pbem.mail.compose import Composer
from pbem.service import rows
from pbem.service.cache import StateCache
from pbem.service.delivery import deliver
from pbem.service.moment import moment
from pbem.service.notices import DeliveryFailed
from pbem.service.outbox import Outbox
from pbem.service.unit import Context

from support import SHORT, claim_alone, token, two_players


def _reading(service, settings) -> Context:
    return Context(service.db, settings, service.clock, StateCache(0))


def _hidden(service, game_id: str, seat: int | None) -> set[str]:
    """The words `seat` may not see in the game now."""
    ctx = _reading(service, service.settings)
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        rules = get(row.game)
        return {h for h in rules.secrets(ctx.state(conn, rules, row), seat) if h}


def _named(text: str, words: set[str]) -> set[str]:
    """The words of `words` that `text` names as whole words (a random token in a
    link may hold a tile id's letters; the hidden walk reads words the same way)."""
    return {w for w in words if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)}


def _everything(now, seat) -> dict:
    return {
        "view": now.view(seat),
        "describe": now.describe(seat),
        "turn_options": now.turn_options(seat),
        "history": [(e.seq, e.text) for e in now.history(seat)],
    }


def test_one_moment_answers_each_viewer_as_a_moment_of_their_own_would(service, settings):
    created = two_players(service, SHORT)
    game_id = created.game_id
    doc = service.state_at(game_id, seat=1)
    service.submit_action(game_id, token(created, 1), service.legal(game_id, 1)[0], doc["seq"])
    ctx = _reading(service, settings)
    shared = moment(ctx, game_id)
    assert moment(ctx, game_id, shared) is shared  # the same head: kept
    for seat in (1, 2, None, 2, 1, None):  # each answer made once, then kept
        alone = moment(ctx, game_id)
        assert alone is not shared
        answers = _everything(shared, seat)
        assert answers == _everything(alone, seat), seat
        shown = json.dumps([answers["view"], answers["describe"], answers["turn_options"]])
        shown += json.dumps(answers["history"])
        assert not {h for h in _hidden(service, game_id, seat) if h in shown}, seat
    # each seat sees its own secret objective, and only its own
    assert shared.view(1)["players"][0]["secret"] == "O3"
    assert shared.view(1)["players"][1]["secret"] is None
    assert shared.view(2)["players"][1]["secret"] == "O5"
    assert shared.view(2)["players"][0]["secret"] is None
    assert all(p["secret"] is None for p in shared.view(None)["players"])
    # a new head is a new moment
    doc = service.state_at(game_id, seat=2)
    service.submit_action(game_id, token(created, 2), service.legal(game_id, 2)[0], doc["seq"])
    later = moment(ctx, game_id, shared)
    assert later is not shared and later.head[0] == shared.head[0] + 1


def _mail_text(message) -> str:
    plain = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return f"{message['Subject']}\n{plain}\n{html}"


def _row(service, clock, outbox, composer, game_id, kind, seat, to):
    """The claimed row of a notice to `seat` at the game's head (the service's own,
    when it wrote one)."""
    seq = service.state_at(game_id)["seq"]
    with service.db.writing() as conn:
        row_id = conn.execute(
            select(rows.OUTBOX.c.id).where(
                rows.OUTBOX.c.game_id == game_id,
                rows.OUTBOX.c.seq == seq,
                rows.OUTBOX.c.kind == kind,
                rows.OUTBOX.c.seat == seat,
            )
        ).scalar()
        if row_id is None:
            mail = rows.new_mail(game_id, seq, kind, seat, to, {}, timestamp(clock()))
            (row_id,) = rows.add_mails(conn, [mail])
    return claim_alone(outbox, row_id, composer.message_id)


def test_a_seats_mail_never_shows_what_another_seats_mail_at_the_same_moment_was_shown(
    service, settings, clock
):
    created = two_players(service, SHORT)
    game_id = created.game_id
    outbox = Outbox(service.db, clock)
    composer = Composer(service, settings)
    for mover, other in ((1, 2), (2, 1)):
        if mover == 2:
            doc = service.state_at(game_id, seat=1)
            legal = service.legal(game_id, 1)[0]
            service.submit_action(game_id, token(created, 1), legal, doc["seq"])
        # the other seat's mail first, at the moment when `mover` is to move ...
        to = {1: "ann@example.com", 2: "ben@example.com"}
        first = _row(service, clock, outbox, composer, game_id, "invitation", other, to[other])
        assert SHORT["secrets"][str(other)] in json.dumps(composer._game(first)["doc"])
        composer.compose(first)
        # ... then the mover's turn mail at the same moment, through the same composer
        turn = _row(service, clock, outbox, composer, game_id, "your_turn", mover, to[mover])
        shared = _mail_text(composer.compose(turn))
        fresh = Composer(service, settings)
        alone = _mail_text(fresh.compose(turn))
        assert shared == alone
        # what the mail was written from too: the mover's view, a spectator's (its picture)
        assert composer._game(turn) == fresh._game(turn)
        for seat in (mover, None):
            assert composer._game_at(turn)[1].view(seat) == fresh._game_at(turn)[1].view(seat)
        assert not _named(shared, _hidden(service, game_id, mover))
        assert SHORT["secrets"][str(mover)] in shared  # its own secret objective
        assert not _named(shared, {SHORT["secrets"][str(other)]})


def test_a_claim_waits_behind_a_retried_mail_to_the_same_address_in_any_case(service, clock):
    class Refusing:
        name = "email"

        def __init__(self) -> None:
            self.trouble: Exception | None = DeliveryFailed("away")
            self.delivered: list[int] = []
            self.ids = itertools.count(1)

        def delivery_id(self) -> str:
            return f"<{next(self.ids)}@pbem.test>"

        def deliver(self, row) -> None:
            if self.trouble is not None:
                raise self.trouble
            self.delivered.append(row.id)

        def close(self) -> None:
            pass

        def warm(self) -> None:
            pass

    outbox = Outbox(service.db, clock)
    channel = Refusing()
    channels = {"email": channel}
    now = timestamp(clock())
    mails = [
        rows.new_mail(None, None, "my_games", None, to, {"seats": []}, now)
        for to in ("Ann@Example.com", "ann@example.COM", "ben@example.com")
    ]
    with service.db.writing() as conn:
        first, second, other = rows.add_mails(conn, mails)
    assert deliver(outbox, channels, first) == "pending"
    first_id = outbox.get(first).delivery_id
    channel.trouble = None
    assert deliver(outbox, channels, second) == "pending"  # behind the first
    waiting = outbox.get(second)
    assert (waiting.attempts, waiting.delivery_id) == (0, None)
    assert waiting.next_attempt_at == timestamp(clock() + timedelta(minutes=1))
    assert deliver(outbox, channels, other) == "sent"  # another address: at once
    row = outbox.get(other)
    assert (row.status, row.attempts) == ("sent", 1)
    assert row.delivery_id not in (None, first_id)
    clock.advance(minutes=1)
    assert deliver(outbox, channels, first) == "sent"
    again = outbox.get(first)
    assert (again.attempts, again.delivery_id) == (2, first_id)  # its first attempt's id
    assert deliver(outbox, channels, second) == "sent"
    assert channel.delivered == [other, first, second]
