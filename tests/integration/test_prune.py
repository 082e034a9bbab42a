"""The scheduler's daily clean-up: seat sessions that can no longer open their seat
(idle a year, the seat handed to someone else or to a bot, the sign-in that opened
them over), sign-ins that are over (a link unused in time, a browser's signed-in time
ended), sign-out links unused in time, link requests left unanswered that long and
the feeds left with no seat session are deleted; everything still usable stays and
still works."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import func, insert, select, text

from pbem.events import timestamp
from pbem.service import PlayerSpec
from pbem.service.sessions import IDLE, SESSIONS, SIGNED_IN, SeatSessions
from pbem.service.signing import LINK_LIFE, REQUESTS, SIGN_INS, SIGN_OUTS
from worker import scheduler

PEOPLE = [PlayerSpec(n, f"{n.lower()}@example.com") for n in ("Ann", "Ben", "Cy", "Di")]


def _count(service, table) -> int:
    with service.db.reading() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def _sign_in(service, nonce: str, created, used=None) -> None:
    row = {"id_sha256": nonce, "address": "ann@example.com", "created_at": timestamp(created)}
    row |= {"used_at": timestamp(used) if used else None, "session_sha256": None}
    with service.db.writing() as conn:
        conn.execute(insert(SIGN_INS), row)


def test_only_what_can_no_longer_be_used_is_forgotten(service, clock):
    created = service.create_game(PEOPLE, None, {"seed": "prune"})
    game = created.game_id
    token = {s.seat: s.token for s in created.seats}
    sessions = SeatSessions(service.db, service.settings.signing_key(), clock)
    idle = sessions.open(game, 1, token[1])
    clock.advance(days=200)
    kept = sessions.open(game, 2, token[2])  # seen 200 days later than the idle one
    handed = sessions.open(game, 3, token[3])
    to_bot = sessions.open(game, 4, token[4])
    service.replace_seat(game, 3, "human", name="Eve", email="eve@example.com")
    service.replace_seat(game, 4, "bot")
    clock.advance(days=IDLE.days - 200, seconds=1)  # the first is idle a year and a second
    now = clock()
    dead_feed = service.feed_for(None, [idle, handed])
    kept_feed = service.feed_for(None, [to_bot, kept])  # one of its sessions lives on
    _sign_in(service, "fresh-link", now - LINK_LIFE / 2)
    _sign_in(service, "stale-link", now - LINK_LIFE - timedelta(seconds=1))
    _sign_in(service, "signed-in", now - SIGNED_IN, used=now - SIGNED_IN + timedelta(hours=1))
    _sign_in(service, "over", now - SIGNED_IN * 2, used=now - SIGNED_IN - timedelta(seconds=1))
    second = service.create_game(PEOPLE, None, {"seed": "prune 2"})
    ann = [(second.game_id, 1, second.seats[0].token)]
    (signed_in,) = sessions.open_signed_in("signed-in", "its cookie", ann).values()
    sessions.open_signed_in("over", "another cookie", ann)
    with service.db.writing() as conn:
        for name, created in (("fresh", now - LINK_LIFE / 2), ("stale", now - LINK_LIFE * 2)):
            stamp = timestamp(created)
            conn.execute(
                insert(SIGN_OUTS), {"id_sha256": name, "address": "a", "created_at": stamp}
            )
            row = {"kind": "sign_in", "address": name, "language": "en", "created_at": stamp}
            conn.execute(insert(REQUESTS), row)
    gone = {
        "seat_sessions": 4,
        "sign_ins": 2,
        "sign_out_links": 1,
        "link_requests": 1,
        "open_joins": 0,
        "feeds": 1,
    }
    assert service.prune() == gone
    with service.db.reading() as conn:
        left = conn.execute(select(SESSIONS.c.seat, SESSIONS.c.sign_in_sha256)).all()
        links = conn.execute(select(SIGN_INS.c.id_sha256).order_by(SIGN_INS.c.id_sha256))
        assert sorted(left) == [(1, "signed-in"), (2, None)]
        assert links.scalars().all() == ["fresh-link", "signed-in"]
        assert conn.execute(select(SIGN_OUTS.c.id_sha256)).scalars().all() == ["fresh"]
        assert conn.execute(select(REQUESTS.c.address)).scalars().all() == ["fresh"]
    assert sessions.token(game, kept) == token[2]  # still opens its seat
    assert sessions.token(second.game_id, signed_in) == second.seats[0].token
    for gone_id in (idle, handed, to_bot):
        assert sessions.token(game, gone_id) is None
    assert service.feed_seats(kept_feed) == [(game, 2)] and service.feed_seats(dead_feed) is None
    nothing = dict.fromkeys(gone, 0)
    assert service.prune() == nothing  # nothing more to do


def test_a_prune_that_fails_is_logged_and_the_next_one_works(service, clock, caplog):
    created = service.create_game(PEOPLE, None, {"seed": "prune"})
    sessions = SeatSessions(service.db, service.settings.signing_key(), clock)
    sessions.open(created.game_id, 1, created.seats[0].token)
    service.replace_seat(created.game_id, 1, "bot")
    with service.db.writing() as conn:
        conn.execute(text("ALTER TABLE sign_ins RENAME TO sign_ins_away"))
    with caplog.at_level(logging.ERROR, logger="worker.scheduler"):
        assert scheduler.prune_once(service) is None  # logged, not raised
    assert any("pruning" in r.getMessage() for r in caplog.records)
    assert _count(service, SESSIONS) == 1  # one transaction: nothing half done
    with service.db.writing() as conn:
        conn.execute(text("ALTER TABLE sign_ins_away RENAME TO sign_ins"))
    assert scheduler.prune_once(service) == {
        "seat_sessions": 1,
        "sign_ins": 0,
        "sign_out_links": 0,
        "link_requests": 0,
        "open_joins": 0,
        "feeds": 0,
    }
