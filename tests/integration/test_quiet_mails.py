"""Mails that tell nothing new are not sent: the invitation of the person who moves
first is their first turn mail; a notice of what the seat's page has shown its
person already (a chat line read live, a round's scores, an undo request) is
skipped when it is due, except a turn mail to whom chose every turn; and once a
game is over nothing but its game-over mail goes. Every mail goes through the real
outbox and composer to a real SMTP server (aiosmtpd). And the page's word is only
its own seat's, never beyond the game's head."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from pbem.mail.compose import Composer
from pbem.mail.deliver import Smtp, deliver_due
from pbem.service import BadRequest, Forbidden, PlayerSpec
from pbem.store.tables import Outbox

from support import Kept, free_port, two_players


class Post:
    """The game's mails as they arrive at a real SMTP server."""

    def __init__(self, parts) -> None:
        self.parts = parts
        self.kept = Kept()
        self.server = Controller(self.kept, hostname="127.0.0.1", port=free_port())
        self.composer = Composer(parts.service, parts.settings)

    def deliver(self) -> None:
        deliver_due(self.parts.outbox, self.composer, Smtp("127.0.0.1", self.server.port))

    def to(self, address: str) -> list[tuple[str, str]]:
        """(kind, subject) of each mail `address` got."""
        return [
            (str(mail["X-Pbem-Kind"]), str(mail["Subject"]))
            for mail, rcpt in zip(self.kept.mails, self.kept.recipients, strict=True)
            if address in rcpt
        ]

    def text(self, address: str, kind: str) -> str:
        mails = [
            mail
            for mail, rcpt in zip(self.kept.mails, self.kept.recipients, strict=True)
            if address in rcpt and mail["X-Pbem-Kind"] == kind
        ]
        return mails[-1].get_body(("plain",)).get_content()

    def clear(self) -> None:
        self.kept.mails.clear()
        self.kept.recipients.clear()


@pytest.fixture
def post(web):
    made = Post(web[1])
    made.server.start()
    yield made
    made.server.stop()


def rows_of(service, game_id: str) -> list[Outbox]:
    with service.db.read() as session:
        query = select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)
        return list(session.execute(query).scalars().all())


def browser(app, game_id: str, token: str):
    """A browser that opened the seat's link: it holds the seat's session."""
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{token}").status_code == 302
    return client


def nim(service, pile: int = 3, *, public: bool = False):
    return service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": public} if public else None,
        {"pile": pile},
        game="nim",
    )


# -- the invitation is the first turn mail ------------------------------------------


def test_the_first_to_move_gets_one_mail_that_invites_and_says_it_is_their_turn(web, post):
    service = web[1].service
    created = two_players(service)
    post.deliver()
    assert [kind for kind, _ in post.to("ann@example.com")] == ["invitation"]
    ((_, subject),) = post.to("ann@example.com")
    assert "it is your turn" in subject
    text = post.text("ann@example.com", "invitation")
    assert "It is your turn now, in round 1." in text
    assert "Your legal actions:" in text and created.seats[0].token in text
    # the other person is invited to wait for their turn mail
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation"]
    assert "to play when it is your turn" in post.text("ben@example.com", "invitation")
    assert "Your legal actions" not in post.text("ben@example.com", "invitation")
    kinds = [(r.kind, r.seat) for r in rows_of(service, created.game_id)]
    assert ("your_turn", 1) not in kinds


def test_an_invitation_whose_turn_was_played_before_it_went_only_invites(web, post):
    service = web[1].service
    created = two_players(service)
    service.submit_action(
        created.game_id, created.seats[0].token, service.legal(created.game_id, 1)[0], 1
    )
    post.deliver()
    ((_, subject), *_rest) = post.to("ann@example.com")
    assert "your turn" not in subject
    assert "Your legal actions" not in post.text("ann@example.com", "invitation")


def test_a_seat_handed_over_on_its_turn_is_invited_and_told_in_one_mail(web, post):
    service = web[1].service
    created = two_players(service)
    game = created.game_id
    service.submit_action(game, created.seats[0].token, service.legal(game, 1)[0], 1)
    post.deliver()
    post.clear()
    service.replace_seat(game, 2, "human", name="Cy", email="cy@example.com")
    post.deliver()
    assert [kind for kind, _ in post.to("cy@example.com")] == ["invitation"]
    assert "It is your turn now" in post.text("cy@example.com", "invitation")


# -- what the page has shown is not mailed ------------------------------------------


def test_a_chat_line_read_live_on_the_page_is_not_mailed(web, post, clock):
    app, parts = web
    service = parts.service
    created = two_players(service)
    game = created.game_id
    post.deliver()
    ben = browser(app, game, created.seats[1].token)
    service.say(game, created.seats[0].token, "Hi there")
    clock.advance(minutes=1)
    assert b"Hi there" in ben.get(f"/g/{game}").data  # the page shows it
    clock.advance(minutes=3)
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation"]
    (chat,) = [r for r in rows_of(service, game) if r.kind == "chat"]
    assert chat.status == "skipped"
    # a line he has not seen is mailed, without the one he read
    service.say(game, created.seats[0].token, "Are you there?")
    clock.advance(minutes=4)
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation", "chat"]
    text = post.text("ben@example.com", "chat")
    assert "Are you there?" in text and "Hi there" not in text


def test_the_live_poll_of_the_seats_page_says_what_it_showed(web, post, clock):
    app, parts = web
    service = parts.service
    created = two_players(service)
    game = created.game_id
    ben = browser(app, game, created.seats[1].token)
    said = service.say(game, created.seats[0].token, "Hi there")
    # the page was reloaded by the poll's news; its first poll tells the seq it shows
    assert ben.get(f"/g/{game}/live", headers={"X-Pbem-Seen": str(said.seq)}).status_code == 200
    clock.advance(minutes=4)
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation"]


def test_a_round_looked_at_on_the_page_is_not_mailed(web, post):
    app, parts = web
    service = parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")],
        None,
        {"seed": "h"},
    )
    game, token = created.game_id, created.seats[0].token
    service.set_mail_preference(game, token, "turn=none,round=every,other=every")
    ann = browser(app, game, token)
    service.submit_action(game, token, service.legal(game, 1)[0], service.state_at(game)["seq"])
    service.play_bots(game)  # the bot's move closes round 1
    assert ann.get(f"/g/{game}").status_code == 200
    post.deliver()
    assert "round_scored" not in [kind for kind, _ in post.to("ann@example.com")]
    (scored,) = [r for r in rows_of(service, game) if r.kind == "round_scored"]
    assert scored.status == "skipped"


def test_an_undo_request_seen_on_the_page_is_not_mailed(web, post):
    app, parts = web
    service = parts.service
    created = two_players(service)
    game = created.game_id
    post.deliver()
    service.submit_action(game, created.seats[0].token, service.legal(game, 1)[0], 1)
    service.undo(game, created.seats[0].token)  # Ben's agreement is asked
    ben = browser(app, game, created.seats[1].token)
    assert ben.get(f"/g/{game}").status_code == 200
    post.deliver()
    assert "undo_request" not in [kind for kind, _ in post.to("ben@example.com")]
    (asked,) = [r for r in rows_of(service, game) if r.kind == "undo_request"]
    assert asked.status == "skipped"


def test_a_turn_mail_goes_to_whom_chose_every_turn_even_when_seen(web, post):
    app, parts = web
    service = parts.service
    created = two_players(service)
    game = created.game_id
    ben = browser(app, game, created.seats[1].token)
    service.submit_action(game, created.seats[0].token, service.legal(game, 1)[0], 1)
    assert ben.get(f"/g/{game}").status_code == 200  # his turn, on the page
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation", "your_turn"]


def test_a_turn_mail_seen_goes_not_once_the_choice_is_no_longer_every_turn(web, post):
    app, parts = web
    service = parts.service
    created = two_players(service)
    game = created.game_id
    post.deliver()
    ben = browser(app, game, created.seats[1].token)
    service.submit_action(game, created.seats[0].token, service.legal(game, 1)[0], 1)
    service.set_mail_preference(game, created.seats[1].token, "turn=digest,round=every,other=every")
    assert ben.get(f"/g/{game}").status_code == 200
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["invitation"]


def test_a_turn_held_for_the_digest_and_seen_on_the_page_is_left_out_of_it(web, post):
    app, parts = web
    service = parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Robo", bot="greedy")],
        None,
        {"seed": "h"},
    )
    game, token = created.game_id, created.seats[0].token
    service.set_mail_preference(game, token, "turn=digest,round=none,other=every")
    post.deliver()
    post.clear()
    service.submit_action(game, token, service.legal(game, 1)[0], service.state_at(game)["seq"])
    service.play_bots(game)  # Ann's turn again: held for her digest
    assert [(r.kind, r.status) for r in rows_of(service, game)][-1] == ("your_turn", "held")
    assert browser(app, game, token).get(f"/g/{game}").status_code == 200
    assert parts.outbox.make_digests() == []
    post.deliver()
    assert post.to("ann@example.com") == []
    assert rows_of(service, game)[-1].status == "skipped"


# -- nothing but the game-over mail after the end -----------------------------------


def test_chat_waiting_when_the_game_ends_is_not_mailed_nor_chat_after_it(web, post, clock):
    service = web[1].service
    created = nim(service, pile=2)
    game = created.game_id
    ann, ben = created.seats[0].token, created.seats[1].token
    post.deliver()
    post.clear()
    service.say(game, ann, "Good luck")  # gathered for three minutes
    service.submit_action(game, ann, "take 1", service.state_at(game)["seq"])
    service.submit_action(game, ben, "take 1", service.state_at(game)["seq"])
    assert service.state_at(game)["turn"] is None
    service.say(game, ann, "Good game")
    clock.advance(minutes=4)
    post.deliver()
    # his turn mail went not either: he played before it could go
    assert [kind for kind, _ in post.to("ben@example.com")] == ["game_over"]
    assert [kind for kind, _ in post.to("ann@example.com")] == ["game_over"]
    chats = [r for r in rows_of(service, game) if r.kind == "chat"]
    assert [(r.seq, r.status) for r in chats] == [(chats[0].seq, "skipped")]


def test_a_turn_that_timed_out_and_ended_the_game_brings_only_the_game_over(web, post):
    service = web[1].service
    created = nim(service, pile=2)
    game = created.game_id
    ann = created.seats[0].token
    post.deliver()
    post.clear()
    service.submit_action(game, ann, "take 1", service.state_at(game)["seq"])
    service.time_out(game, 2, service.state_at(game)["seq"])  # a bot ends the game for Ben
    post.deliver()
    assert [kind for kind, _ in post.to("ben@example.com")] == ["game_over"]
    assert "timed_out" not in [r.kind for r in rows_of(service, game)]


# -- only the seat's own page, never beyond the head --------------------------------


def _seen(service, game: str, seat: int, token: str) -> int:
    from pbem.service.tokens import token_hash

    return service.seen_by(game, seat, token_hash(token))


def test_a_seats_page_records_its_own_seat_only_and_never_beyond_the_head(make_web):
    app, parts = make_web()
    service = parts.service
    created = two_players(service)
    game = created.game_id
    ann_token, ben_token = created.seats[0].token, created.seats[1].token
    ann = browser(app, game, ann_token)
    head = service.state_at(game)["seq"]
    assert ann.get(f"/g/{game}/live", headers={"X-Pbem-Seen": "999999"}).status_code == 200
    assert _seen(service, game, 1, ann_token) == head  # cut to the head
    assert _seen(service, game, 2, ben_token) == 0  # Ben's seat is not Ann's to mark
    # never going back
    assert ann.get(f"/g/{game}/live", headers={"X-Pbem-Seen": "0"}).status_code == 200
    assert _seen(service, game, 1, ann_token) == head
    # not a number: refused, nothing recorded
    for bad in ("-1", "abc", "1e3", "99999999999", "%00", " 5"):
        assert ann.get(f"/g/{game}/live", headers={"X-Pbem-Seen": bad}).status_code == 400
    # a link or a form of another site cannot say it for Ben's browser: only a header,
    # which only the page's own script sends, is read
    ben = browser(app, game, ben_token)
    assert ben.get(f"/g/{game}/live?seen=999999&X-Pbem-Seen=9").status_code == 200
    assert _seen(service, game, 2, ben_token) == 0


def test_a_browser_without_the_seat_cannot_mark_it_seen(make_web):
    app, parts = make_web()
    service = parts.service
    created = nim(service, public=True)
    game = created.game_id
    stranger = app.test_client()
    seen = {"X-Pbem-Seen": "5"}
    assert stranger.get(f"/g/{game}/live?watch=1", headers=seen).status_code == 200
    assert stranger.get(f"/g/{game}/live", headers=seen).status_code == 200  # a spectator
    assert stranger.get(f"/g/{game}").status_code == 200
    assert _seen(service, game, 1, created.seats[0].token) == 0
    assert _seen(service, game, 2, created.seats[1].token) == 0
    with pytest.raises(Forbidden):
        service.saw(game, "not-a-token", 1)
    with pytest.raises(Forbidden):
        service.saw(game, None, 1)
    for bad in (-1, "3", True, 2.0, None, 2**40):
        with pytest.raises(BadRequest):
            service.saw(game, created.seats[0].token, bad)


def test_a_seat_handed_on_starts_unseen(make_web):
    _app, parts = make_web()
    service = parts.service
    created = two_players(service)
    game = created.game_id
    assert service.saw(game, created.seats[1].token, 1) == 1
    link = service.replace_seat(game, 2, "human", name="Cy", email="cy@example.com")
    assert _seen(service, game, 2, created.seats[1].token) == 1  # the old holder's
    from pbem.service.tokens import token_hash

    assert service.seen_by(game, 2, token_hash(link.token)) == 0
    assert service.saw(game, link.token, 99) == service.state_at(game)["seq"]
    with pytest.raises(Forbidden):  # the old link is dead
        service.saw(game, created.seats[1].token, 1)
