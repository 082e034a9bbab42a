"""Every kind of notice has its e-mail: a writer, a text and an HTML template, and
in every game the partials those templates include; every kind is written for a
game of each game, and a nim game's mails speak of nim, never of the mall."""

from __future__ import annotations

import re
from email.policy import SMTP, default

import pytest

from pbem.events import timestamp
from pbem.games import GAMES
from pbem.mail.compose import GAME_PARTIALS, WRITERS, Composer, environment, mails_of
from pbem.service import PlayerSpec, naming, rows
from pbem.service.notices import Kind

from support import MailWriter

_INCLUDED = re.compile(r'game_name ~ "/mail/(?P<partial>[^".]+)\.(?:txt|html)"')


def test_every_kind_of_notice_has_a_writer_and_a_text_and_an_html_template():
    templates = environment("Mall by mail")
    for kind in Kind:
        assert kind in WRITERS, f"no mail is written for {kind}"
        for ending in ("txt", "html"):
            templates.get_template(f"mail/{kind}.{ending}")  # TemplateNotFound otherwise


def test_every_game_has_the_partials_of_every_kind_that_includes_one():
    templates = environment("Mall by mail")
    for kind in Kind:
        included = set()
        for ending in ("txt", "html"):
            source, _, _ = templates.loader.get_source(templates, f"mail/{kind}.{ending}")
            included |= {m["partial"] for m in _INCLUDED.finditer(source)}
        assert included == set(GAME_PARTIALS.get(kind, ())), kind
    for name, plugin in GAMES.items():
        mails = mails_of(plugin)
        assert mails.TAGLINE and mails.NOTATION and mails.HELP, name
        for partials in GAME_PARTIALS.values():
            for partial in partials:
                assert partial in mails.PARTIALS, (name, partial)
                for ending in ("txt", "html"):
                    templates.get_template(f"{name}/mail/{partial}.{ending}")


def test_a_misspelt_kind_is_refused_where_the_row_is_written():
    with pytest.raises(ValueError, match="'your-turn' is not a kind of notice"):
        rows.new_mail("g", 2, "your-turn", 1, "ann@example.com", {}, "now")
    with pytest.raises(ValueError, match="'reminder-24' is not a kind of notice"):
        rows.new_mail("g", 2, "reminder-24", 1, "ann@example.com", {"hours": 24}, "now")
    with pytest.raises(ValueError, match="a reminder's payload has its hours"):
        rows.new_mail("g", 2, "reminder", 1, "ann@example.com", {}, "now")
    row = rows.new_mail("g", 2, Kind.REMINDER, 1, "ann@example.com", {"hours": 2.5}, "now")
    assert (row["kind"], row["topic"], row["channel"]) == ("reminder", "2.5", "email")


# A site named without a game's words: a nim mail must then say no word of the mall.
NEUTRAL_SITE = "Board games by mail"


def _text(message) -> str:
    plain = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return f"{message['From']}\n{message['Subject']}\n{plain}\n{html}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_kind_is_written_for_every_game_in_the_words_of_that_game(make_parts, clock, game):
    parts = make_parts(clock, site_name=NEUTRAL_SITE)
    title = GAMES[game].title
    # the game's own example played to its end (its first two players Ann and Ben)
    example = next(e for e in GAMES[game].examples() if e.ends)
    assert example.players[:2] == ("Ann", "Ben")
    created = parts.service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in example.players],
        {"public": True, "hours_per_turn": 48},
        dict(example.setup),
        game=game,
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    service = parts.service
    (seat, first), *rest = example.moves
    service.submit_action(game_id, tokens[seat], first, 1)
    writer = MailWriter(parts, clock, game_id)
    answer = {"lines": ["ok"], "ignored": [], "in_reply_to": "", "subject": "", "status": "help"}
    written = {
        Kind.INVITATION: writer.compose(Kind.INVITATION, 2, "ben@example.com", {}),
        Kind.YOUR_TURN: writer.compose(Kind.YOUR_TURN, 2, "ben@example.com", {}),
        Kind.REMINDER: writer.compose(Kind.REMINDER, 2, "ben@example.com", {"hours": 24}),
        Kind.TIMED_OUT: writer.compose(Kind.TIMED_OUT, 1, "ann@example.com", {}, seq=2),
        Kind.UNDO_REQUEST: writer.compose(Kind.UNDO_REQUEST, 2, "ben@example.com", {"asked_by": 1}),
        Kind.UNDO_LAPSED: writer.compose(
            Kind.UNDO_LAPSED, 1, "ann@example.com", {"asked_by": 1, "reason": "no answer"}
        ),
        Kind.VACATION: writer.compose(
            Kind.VACATION, 2, "ben@example.com", {"who": 1, "until": timestamp(clock())}
        ),
        Kind.ANSWER: writer.compose(Kind.ANSWER, 1, "ann@example.com", answer),
        Kind.MY_GAMES: writer.compose(
            Kind.MY_GAMES, None, "ann@example.com", {"seats": [[game_id, 1]]}, game=False
        ),
        Kind.DIGEST: writer.compose(
            Kind.DIGEST, None, "ann@example.com", {"seats": [[game_id, 1]]}, game=False
        ),
        Kind.SIGN_IN: writer.compose(
            Kind.SIGN_IN,
            None,
            "ann@example.com",
            {"nonce": "0123456789abcdef", "seats": [[game_id, 1]]},
            game=False,
        ),
        Kind.SIGN_OUT: writer.compose(
            Kind.SIGN_OUT,
            None,
            "ann@example.com",
            {"nonce": "0123456789abcdef", "seats": [[game_id, 1]]},
            game=False,
        ),
    }
    assert f"a game of {title}, {mails_of(GAMES[game]).TAGLINE}, as seat 2" in _text(
        written[Kind.INVITATION]
    )
    for seat, move in rest:
        service.submit_action(game_id, tokens[seat], move)
    assert service.state_at(game_id)["status"] == "finished"
    written[Kind.ROUND_SCORED] = writer.compose(
        Kind.ROUND_SCORED, 1, "ann@example.com", {"round": 1}, seq=3
    )
    written[Kind.GAME_OVER] = writer.compose(Kind.GAME_OVER, 1, "ann@example.com", {})
    talk = service.say(game_id, tokens[1], "good game <b>")
    written[Kind.CHAT] = writer.compose(Kind.CHAT, 2, "ben@example.com", {}, seq=talk.seq)
    written[Kind.RESIGNED] = writer.compose(Kind.RESIGNED, 2, "ben@example.com", {"who": 1})
    offered = service.offer_rematch(game_id, tokens[1])
    written[Kind.REMATCH_OFFER] = writer.compose(
        Kind.REMATCH_OFFER, 2, "ben@example.com", {"by": 1}, seq=offered.seq
    )
    opened = service.open_table(
        [PlayerSpec("Cy", "cy@example.com")],
        GAMES[game].seats[0] - 1,
        {"hours_per_turn": 48},
        game=game,
    )
    written[Kind.JOIN_CONFIRM] = writer.compose(
        Kind.JOIN_CONFIRM,
        None,
        "dee@example.com",
        {"nonce": "0123456789abcdef", "table": opened.table_id, "name": "Dee"},
        game=False,
    )

    assert set(written) == set(Kind)
    called = naming.called(None, list(example.players))
    assert called.startswith("Ann")  # a name the walk below can fail to find
    for kind, message in written.items():
        assert message["X-Pbem-Kind"] == kind.value
        text = _text(message)
        if game == "nim":
            assert "mall" not in text.lower(), kind
        if kind not in (
            Kind.MY_GAMES,
            Kind.SIGN_IN,
            Kind.SIGN_OUT,
            Kind.JOIN_CONFIRM,
            Kind.DIGEST,
            Kind.INVITATION,
            Kind.ANSWER,
        ):
            # the game by its players' names first (no name was given), no id
            assert message["Subject"].startswith((f"{called}: ", f"{called} — ")), kind
            assert game_id not in message["Subject"], kind
    assert written[Kind.YOUR_TURN]["Subject"] == (
        f"{called}: your turn (round 1) — answer by Tue 3 Nov 12:00 UTC"
    )
    assert written[Kind.INVITATION]["Subject"] == (
        f"{called}: you are invited to a game of {title}"
    )
    assert written[Kind.MY_GAMES]["Subject"] == f"Your games of {title}"
    assert written[Kind.DIGEST]["Subject"] == f"Your daily {title} digest"
    assert written[Kind.SIGN_IN]["Subject"] == f"Sign in to your games of {title}"
    assert "/my-games/sign-in/0123456789abcdef." in _text(written[Kind.SIGN_IN])
    assert written[Kind.SIGN_OUT]["Subject"] == "Sign out of My games everywhere"
    signed_out = _text(written[Kind.SIGN_OUT])
    assert "/my-games/sign-out-everywhere/0123456789abcdef." in signed_out
    assert "/my-games/sign-in/" not in signed_out
    assert written[Kind.JOIN_CONFIRM]["Subject"] == f"Your seat at a table of {title}"
    joining = _text(written[Kind.JOIN_CONFIRM])
    assert "/open/join/0123456789abcdef." in joining and "with Cy" in joining
    assert "cy@example.com" not in joining
    names = dict(enumerate(example.players, start=1))
    winners = [names[seat] for seat in service.state_at(game_id)["winners"]]
    said = f"{' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}."
    assert said in _text(written[Kind.GAME_OVER])
    if game == "nim":
        turn = written[Kind.YOUR_TURN].get_body(("plain",)).get_content()
        pile = 6 - int(first.split()[1])
        assert f"The pile has {pile} tokens." in turn
        assert [line.split("(")[0].strip() for line in turn.splitlines() if "left)" in line] == [
            f"take {n}" for n in range(1, min(3, pile) + 1)
        ]
        assert f"{winners[0]} took the last token from the pile." in _text(written[Kind.GAME_OVER])


def test_a_mail_is_written_out_byte_for_byte_as_the_standard_mail_policy_writes_it(
    make_parts, clock
):
    parts = make_parts(clock)
    parts.service.create_game(
        [PlayerSpec("Zoë Ångström", "zoe@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"seed": "bytes"},
    )
    composer = Composer(parts.service, parts.settings)
    for row_id in parts.outbox.take_due():  # the invitations (one non-ASCII name) and a turn
        mail = composer.write(parts.outbox.claim(row_id, composer.message_id))
        parts.outbox.sent(row_id)  # as a sender does: the next mail to the address may go
        data, message = mail.data, mail.message()
        assert data == message.as_bytes(policy=SMTP)
        assert mail.sender == message["From"].addresses[0].addr_spec
        assert list(mail.recipients) == [a.addr_spec for a in message["To"].addresses]
        assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
        assert b"\r" not in message.as_bytes()  # its own policy writes plain newlines
        assert message.as_bytes(policy=default) == message.as_bytes()
