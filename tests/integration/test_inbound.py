"""Playing by replying to the mail: real .eml replies as the common mail programs
write them (top and bottom posting, HTML only, signatures, quoted legal moves that
must not count, non-ASCII names, attachments), through the handler, `pbem inbound`,
the webhook, and an SMTP server; signed reply addresses; who may play; loops."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hidden import shows

from pbem.service import PlayerSpec
from pbem.service.inbox import PER_SENDER_PER_HOUR

from support import Table


@pytest.fixture
def table(web):
    return Table(web[1])


@pytest.mark.parametrize(
    ("fixture", "seat"),
    [
        ("gmail_top_post.eml", 1),
        ("outlook.eml", 1),
        ("apple_mail_iphone.eml", 1),
        ("html_only_webmail.eml", 1),
        ("several_lines_and_attachment.eml", 1),
        ("thunderbird_bottom_post.eml", 2),
    ],
)
def test_a_reply_from_each_mail_program_plays_its_first_line(table, fixture, seat):
    if seat == 2:
        table.parts.service.submit_action(table.game, table.tokens[1], "money R", 1)
    handled = table.inbound.handle(table.mail(fixture, "money L", seat))
    assert handled.status == "accepted", handled.detail
    history = table.parts.service.history(table.game)
    # SHORT deals Y01 to L1, under no other food: 1 note, none from the bank
    who = "Ann" if seat == 1 else "Ben"
    assert history[-1].text == f"{who} played Burger Bar (Y01) from L1 as money, gaining 1 note"
    (answer,) = table.answers()
    assert (
        answer.payload["lines"][0] == "Played: Burger Bar (Y01) from L1 as money, gaining 1 note."
    )
    assert answer.address == ("ann@example.com" if seat == 1 else "ben@example.com")


def test_quoted_moves_never_count(table):
    # the quoted turn mail lists "build L2 at 1,2"; the reply's own line is a status
    handled = table.inbound.handle(table.mail("outlook.eml", "status"))
    assert handled.status == "status"
    assert table.seq() == 1


def test_further_lines_are_named_as_ignored(table):
    handled = table.inbound.handle(table.mail("several_lines_and_attachment.eml", "money L"))
    assert handled.status == "accepted"
    assert handled.ignored == ["status", "legal"]
    assert table.answers()[0].payload["ignored"] == ["status", "legal"]


def test_a_non_ascii_name_and_subject_are_read(table):
    handled = table.inbound.handle(table.mail("apple_mail_iphone.eml", "build L1 at 0,2"))
    assert handled.status == "accepted"
    assert table.answers()[0].payload["subject"] == "Re: Your turn — Mall"


def test_an_illegal_move_is_answered_with_the_rule_and_the_legal_actions(table):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "build L4 at 7,7"))
    assert handled.status == "illegal"
    lines = table.answers()[0].payload["lines"]
    assert (
        lines[0] == '"build L4 at 7,7" is not legal: (7,7) would float: nothing below supports it.'
    )
    first = lines.index("Your legal actions now:") + 1
    assert lines[first : first + 2] == [  # SHORT deals Y01 to L1 and Y02 to R1
        "  money L  (Burger Bar (Y01) from L1 as money, gaining 1 note)",
        "  money R  (Burger Bar (Y02) from R1 as money, gaining 1 note)",
    ]
    assert table.seq() == 1


def test_an_unreadable_line_is_answered_with_the_grammar(table):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "please build something nice"))
    assert handled.status == "unreadable"
    lines = table.answers()[0].payload["lines"]
    assert lines[0] == '"please build something nice" is not a move this server can read.'
    assert "  build L2 at 1,3     build the tile in slot L2 on cell (1,3) of your mall" in lines


def test_a_reply_to_a_mail_the_game_has_moved_past_is_stale(table):
    old = table.address(1)  # Ann's turn mail, seq 1
    table.parts.service.submit_action(table.game, table.tokens[1], "money L", 1)
    table.parts.service.submit_action(table.game, table.tokens[2], "money R", 2)
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "money L", address=old))
    assert handled.status == "stale"
    lines = table.answers()[0].payload["lines"]
    assert lines[0] == "The game moved on since the mail you answered, so your move was not played:"
    assert lines[1] == "  seq 2: Ann played Burger Bar (Y01) from L1 as money, gaining 1 note"
    assert lines[2] == "  seq 3: Ben played Burger Bar (Y02) from R1 as money, gaining 1 note"
    assert "Your legal actions now:" in lines
    assert table.seq() == 3


def test_a_reply_after_events_that_are_not_moves_still_plays(table):
    address = table.address(1)
    table.parts.service.set_mail_preference(table.game, table.tokens[2], "digest")
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "money L", address=address))
    assert handled.status == "accepted"


@pytest.mark.parametrize(
    ("command", "status", "first_line"),
    [
        (
            "help",
            "help",
            "Write your move on the first line of your reply, in the game's notation:",
        ),
        ("STATUS", "status", None),
        ("legal", "legal", "Your legal actions now:"),
        ("undo", "undo", "No undo: you have no move to take back."),
    ],
)
def test_status_legal_undo_and_help_are_answered(table, command, status, first_line):
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", command))
    assert handled.status == status
    lines = table.answers()[0].payload["lines"]
    if first_line is not None:
        assert lines[0] == first_line
    else:
        assert lines[0].startswith(f"Game {table.game} at seq 1 of 1")
        assert "secret O3" in "\n".join(lines) and not shows("\n".join(lines), "O5")


def test_the_same_message_delivered_twice_acts_once(table):
    raw = table.mail("gmail_top_post.eml", "money L", message_id="<twice@mail.example>")
    assert table.inbound.handle(raw).status == "accepted"
    assert table.inbound.handle(raw).status == "duplicate"
    assert table.seq() == 2
    assert len(table.answers()) == 1


@pytest.mark.parametrize(
    "tamper",
    [
        lambda a: a.replace(a.split(".")[-1].split("@")[0], "a" * 24),  # another signature
        lambda a: a.replace(".1.", ".2.", 1),  # another seat, the same signature
        lambda a: a.replace("pbem.localhost", "elsewhere.example"),  # another domain
    ],
)
def test_a_forged_or_altered_reply_address_is_refused(table, tamper):
    handled = table.inbound.handle(
        table.mail("gmail_top_post.eml", "money L", address=tamper(table.address(1)))
    )
    assert handled.status == "refused" and handled.bounce
    assert table.seq() == 1 and table.answers() == []


def test_a_mail_from_another_address_is_refused_unless_the_game_allows_it(web):
    table = Table(web[1])
    handled = table.inbound.handle(
        table.mail("gmail_top_post.eml", "money L", sender="mallory@example.com")
    )
    assert handled.status == "refused" and not handled.bounce
    assert table.seq() == 1
    assert table.answers() == []  # a stranger is sent nothing, least of all the seat's link
    open_table = Table(web[1], any_sender=True)
    handled = open_table.inbound.handle(
        open_table.mail("gmail_top_post.eml", "money L", sender="ann@work.example")
    )
    assert handled.status == "accepted"
    assert [a.address for a in open_table.answers()] == ["ann@example.com"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Auto-Submitted: auto-replied", "an automatic mail (Auto-Submitted: auto-replied)"),
        ("Precedence: bulk", "a mail of precedence bulk"),
        ("X-Pbem-Kind: your_turn", "one of this server's own mails"),
    ],
)
def test_automatic_mails_are_never_answered(table, header, expected):
    raw = table.mail("gmail_top_post.eml", "money L").replace(
        b"MIME-Version", header.encode() + b"\r\nMIME-Version", 1
    )
    handled = table.inbound.handle(raw)
    assert (handled.status, handled.detail) == ("ignored", expected)
    assert table.seq() == 1 and table.answers() == []


def test_an_out_of_office_reply_is_ignored(table):
    handled = table.inbound.handle(table.mail("out_of_office.eml", "money L"))
    assert handled.status == "ignored" and table.answers() == []


def test_a_mail_too_large_is_bounced(table):
    raw = table.mail("gmail_top_post.eml", "money L" + " " * 1_000_001)
    handled = table.inbound.handle(raw)
    assert handled.status == "refused" and handled.bounce
    assert table.seq() == 1


def test_a_sender_is_limited_per_hour(table):
    for _ in range(PER_SENDER_PER_HOUR):
        assert table.inbound.handle(table.mail("gmail_top_post.eml", "help")).status == "help"
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "help"))
    assert handled.status == "ignored" and "more than 30 mails in an hour" in handled.detail


def test_pbem_inbound_reads_stdin_and_tells_the_mail_server_by_its_exit_status(web, tmp_path):
    table = Table(web[1])
    settings = web[1].settings
    env = {
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
        "PBEM_BASE_URL": "http://pbem.test",
        "PATH": "",
    }
    run = [sys.executable, "-m", "pbem.cli", "inbound"]
    played = subprocess.run(
        run, input=table.mail("outlook.eml", "money L"), env=env, capture_output=True, check=False
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.decode().startswith("accepted: Played: Burger Bar (Y01) from L1 as money")
    forged = table.mail(
        "outlook.eml",
        "money R",
        address="play+" + "a" * 16 + ".2.2." + "b" * 24 + "@pbem.localhost",
    )
    bounced = subprocess.run(run, input=forged, env=env, capture_output=True, check=False)
    assert bounced.returncode == 67
    assert table.seq() == 2


def test_the_webhook_takes_raw_mime_with_the_shared_secret(web):
    app, parts = web
    table = Table(parts)
    client = app.test_client()
    raw = table.mail("gmail_top_post.eml", "money L")
    assert client.post("/inbound/email", data=raw).status_code == 403
    assert (
        client.post(
            "/inbound/email", data=raw, headers={"Authorization": "Bearer wrong"}
        ).status_code
        == 403
    )
    answer = client.post(
        "/inbound/email", data=raw, headers={"Authorization": "Bearer hook-secret"}
    )
    assert answer.status_code == 200 and answer.json["status"] == "accepted"
    assert table.seq() == 2


@pytest.fixture
def nim_table(web):
    """Ann and Ben's replies, to a game of nim (a pile of 5)."""
    table = Table(web[1])
    created = table.parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"pile": 5},
        game="nim",
    )
    table.game, table.tokens = created.game_id, {s.seat: s.token for s in created.seats}
    return table


def test_a_nim_player_is_helped_in_nims_notation_and_plays_by_mail(nim_table):
    table = nim_table
    assert table.inbound.handle(table.mail("gmail_top_post.eml", "help")).status == "help"
    assert table.inbound.handle(table.mail("gmail_top_post.eml", "money L")).status == (
        "unreadable"
    )
    helped, unreadable = (a.payload["lines"] for a in table.answers())
    assert helped == [
        "Write your move on the first line of your reply, in the game's notation:",
        "  take 1              take one token from the pile (take 2, take 3: two or three)",
        "Whoever takes the last token wins.",
        # one sentence, one line: the mail's flowed text part wraps it
        "Or one of: status (the game now), legal (your legal actions), undo (take back your"
        " last move), agree or refuse (answer another player's undo request), help (this).",
    ]
    assert unreadable == ['"money L" is not a move this server can read.', "", *helped]

    handled = table.inbound.handle(table.mail("gmail_top_post.eml", "take 2"))

    assert handled.status == "accepted", handled.detail
    assert table.parts.service.state_at(table.game)["pile"] == 3
