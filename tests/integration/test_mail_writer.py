"""The mail writer: every kind of mail, in English and in German, for a game of each
game, is written out byte for byte as the standard mail policy of `email` writes
the same message built as an EmailMessage (only the random boundaries differ), and
reads back as the mail it was."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest

from pbem.events import timestamp
from pbem.games import GAMES
from pbem.mail.writing import MAIL_POLICY, SMTP_POLICY, Draft, written, written_out
from pbem.service import PlayerSpec
from pbem.service.notices import Kind

from support import MailWriter

_BOUNDARY = re.compile(rb"={15}\d{19}==")


def _standard(draft: Draft) -> bytes:
    """The draft as an EmailMessage, written out by the standard policy (the way
    every mail was written before the writer of pbem.mail.writing)."""
    message = EmailMessage(policy=MAIL_POLICY)
    for name, value in draft.headers:
        message[name] = value
    message.set_content(draft.text)
    flowed = 'text/plain; charset="utf-8"; format="flowed"; delsp="no"'
    message.replace_header("Content-Type", flowed)  # the text part is format=flowed
    message.add_alternative(draft.html, subtype="html")
    if draft.picture is not None:
        html_part = message.get_body(("html",))
        assert html_part is not None
        html_part.make_related()
        html_part.attach(draft.picture["part"])
    message["Content-Language"] = written("Content-Language", draft.language)
    return message.as_bytes(policy=SMTP_POLICY)


def _same_boundaries(data: bytes) -> bytes:
    """The mail with its boundaries named in the order they first appear."""
    names: dict[bytes, bytes] = {}
    return _BOUNDARY.sub(lambda m: names.setdefault(m[0], b"boundary-%d" % len(names)), data)


def _drafts(parts, clock, game: str, language: str) -> dict[Kind, Draft]:
    """A draft of every kind of mail for a game of `game`, in `language`: the game's
    example that ends, its first two players named to try the headers."""
    example = next(e for e in GAMES[game].examples() if e.ends)
    created = parts.service.create_game(
        [
            PlayerSpec("Zoë Ångström", "zoe@example.com"),
            PlayerSpec('=?utf-8?q?Mallory?= "Ben, <x@y>"', "ben@example.com"),
            *(PlayerSpec(n, f"{n.lower()}@example.com") for n in example.players[2:]),
        ],
        {"public": True, "hours_per_turn": 48},
        dict(example.setup),
        game=game,
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    service = parts.service
    (first, move), *moves = example.moves
    assert first == 1
    service.submit_action(game_id, tokens[1], move, 1)
    writer = MailWriter(parts, clock, game_id)

    def draft(kind, seat, to, payload, **how):
        return writer.composer.draft(writer.row(kind, seat, to, payload, language=language, **how))

    long_subject = "Re: =?utf-8?q?Bcc=3A_x=40y?= Zoë " + "long " * 30
    answer = {"lines": ["ok"], "ignored": [], "in_reply_to": "<a@b>", "subject": long_subject}
    drafts = {
        Kind.INVITATION: draft(Kind.INVITATION, 2, "ben@example.com", {}),
        Kind.YOUR_TURN: draft(Kind.YOUR_TURN, 2, "ben@example.com", {}),
        Kind.REMINDER: draft(Kind.REMINDER, 2, "ben@example.com", {"hours": 24}),
        Kind.TIMED_OUT: draft(Kind.TIMED_OUT, 1, "zoe@example.com", {}, seq=2),
        Kind.UNDO_REQUEST: draft(Kind.UNDO_REQUEST, 2, "ben@example.com", {"asked_by": 1}),
        Kind.UNDO_LAPSED: draft(
            Kind.UNDO_LAPSED, 1, "zoe@example.com", {"asked_by": 1, "reason": "no answer"}
        ),
        Kind.VACATION: draft(
            Kind.VACATION, 2, "ben@example.com", {"who": 1, "until": timestamp(clock())}
        ),
        Kind.ANSWER: draft(Kind.ANSWER, 1, "zoe@example.com", {**answer, "status": "help"}),
        Kind.MY_GAMES: draft(
            Kind.MY_GAMES, None, "zoe@example.com", {"seats": [[game_id, 1]]}, game=False
        ),
        Kind.DIGEST: draft(
            Kind.DIGEST, None, "zoe@example.com", {"seats": [[game_id, 1]]}, game=False
        ),
        Kind.SIGN_IN: draft(
            Kind.SIGN_IN,
            None,
            "zoe@example.com",
            {"nonce": "0123456789abcdef", "seats": [[game_id, 1]]},
            game=False,
        ),
        Kind.SIGN_OUT: draft(
            Kind.SIGN_OUT,
            None,
            "zoe@example.com",
            {"nonce": "0123456789abcdef", "seats": [[game_id, 1]]},
            game=False,
        ),
    }
    # what a player says goes into a mail as it is: here a line that looks like a boundary
    said = "--===============0000000000000000000==\nGrüße"
    talk = service.say(game_id, tokens[1], said)
    drafts[Kind.CHAT] = draft(Kind.CHAT, 2, "ben@example.com", {}, seq=talk.seq)
    for seat, move in moves:  # to the end
        service.submit_action(game_id, tokens[seat], move)
    assert service.state_at(game_id)["status"] == "finished"
    drafts[Kind.ROUND_SCORED] = draft(Kind.ROUND_SCORED, 1, "zoe@example.com", {"round": 1}, seq=3)
    drafts[Kind.GAME_OVER] = draft(Kind.GAME_OVER, 1, "zoe@example.com", {})
    drafts[Kind.RESIGNED] = draft(Kind.RESIGNED, 2, "ben@example.com", {"who": 1})
    offered = service.offer_rematch(game_id, tokens[1])
    drafts[Kind.REMATCH_OFFER] = draft(
        Kind.REMATCH_OFFER, 2, "ben@example.com", {"by": 1}, seq=offered.seq
    )
    seats = GAMES[game].seats[0] - 1  # open: as many as the game needs beside Zoë
    table = service.open_table([PlayerSpec("Zoë", "zoe@example.com")], seats, game=game).table_id
    joining = {"nonce": "0123456789abcdef", "table": table, "name": "Ben"}
    drafts[Kind.JOIN_CONFIRM] = draft(
        Kind.JOIN_CONFIRM, None, "ben@example.com", joining, game=False
    )
    return drafts


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_mail_is_written_out_as_the_standard_policy_writes_it(
    make_parts, clock, game, language
):
    drafts = _drafts(make_parts(clock), clock, game, language)
    assert set(drafts) == set(Kind)
    encodings = set()
    for kind, draft in drafts.items():
        assert draft.language == language
        data = written_out(draft)
        assert _same_boundaries(data) == _same_boundaries(_standard(draft)), kind
        assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
        encodings |= set(re.findall(rb"Content-Transfer-Encoding: (\S+)", data))
    assert {b"8bit", b"quoted-printable"} <= encodings  # ways a part goes
    assert MAIL_POLICY.max_line_length == 78  # the line the writer keeps to
    if game == "mall":
        assert drafts[Kind.YOUR_TURN].picture is not None  # and a picture in a related part


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ASCII\n\nin short lines\n",
        "Grüße\r\nund\rso\n",
        "x" * 79 + "\n",  # one line too long: quoted-printable
        "\n".join(["x" * 100] * 12),  # more than ten lines
        "\n".join(["ü" * 60] * 12),  # shorter in base64
        "\n".join(["ü" * 60] * 3),
        "\x0b\x0c\x1c\u2028 tab\tend \n.\nFrom me\n",
    ],
)
def test_each_transfer_encoding_is_chosen_and_written_as_the_standard_policy_does(
    make_parts, clock, text
):
    from dataclasses import replace

    draft = _drafts(make_parts(clock), clock, "mall", "en")[Kind.YOUR_TURN]
    for changed in (replace(draft, text=text), replace(draft, html=text, picture=None)):
        assert _same_boundaries(written_out(changed)) == _same_boundaries(_standard(changed))


def test_a_header_is_written_as_email_header_writes_it():
    """A short line of plain ASCII goes as it is, as email.header would write it;
    everything else is written by email.header."""
    import random
    import string
    from email.header import Header

    pick = random.Random(11)
    letters = string.printable.replace("\r", "").replace("\n", "") + "    =?é\x0b"
    names = ["Subject", "To", "Date", "Message-ID", "In-Reply-To", "References", "X"]
    for _n in range(20000):
        name = pick.choice(names)
        text = "".join(pick.choice(letters) for _i in range(pick.randint(0, 80)))
        plain = text.isascii() and "=?" not in text
        try:
            expected = Header(text, "us-ascii" if plain else "utf-8", header_name=name)
            wanted = expected.encode(linesep="\n")
        except Exception as error:  # then the writer refuses it too
            with pytest.raises(type(error)):
                written(name, text)
            continue
        assert written(name, text) == wanted, (name, text)


def test_a_boundary_is_never_a_line_of_the_mail(make_parts, clock, monkeypatch):
    """The writer draws another boundary when a part holds the one it drew (what a
    player says can hold anything)."""
    import pbem.mail.writing as writing

    drafts = _drafts(make_parts(clock), clock, "nim", "en")
    chat = drafts[Kind.CHAT]
    drawn = iter([0, 0, 7, 8])  # the first one is in the chat line
    monkeypatch.setattr(writing.random, "randrange", lambda _top: next(drawn))
    data = written_out(chat)
    assert b'boundary="===============0000000000000000007=="' in data
    assert b'boundary="===============0000000000000000000=="' not in data
    back = EmailMessage  # the mail reads back with its two parts
    message = writing.Mail(chat.sender, chat.recipients, data).message()
    assert isinstance(message, back)
    assert "--===============0000000000000000000==" in message.get_body(("plain",)).get_content()
    assert message.get_body(("html",)) is not None


def test_a_worker_s_composer_made_ready_has_every_mail_template_compiled(make_parts, clock):
    """As a worker starts, its e-mail adapter compiles every mail template (each kind's
    and each game's parts) and loads the picture's rasteriser (Channel.warm)."""
    parts = make_parts(clock)
    channel = parts.channels["email"]
    templates = channel.composer.templates

    def cached() -> set[str]:
        return {name for _loader, name in templates.cache}

    wanted = {
        name
        for name in templates.list_templates(extensions=("txt", "html"))
        if name.startswith("mail/") or "/mail/" in name
    }
    assert {f"mail/{kind}.{part}" for kind in Kind for part in ("txt", "html")} <= wanted
    assert {"mall/mail/_turn.txt", "nim/mail/_turn.html"} <= wanted
    assert not wanted & cached()
    channel.warm()
    assert wanted <= cached()
    import sys

    from pbem.games import GAMES

    assert all(f"{plugin.package}.mails" in sys.modules for plugin in GAMES.values())
    assert all("mail/" in name for name in cached())  # no web page's
