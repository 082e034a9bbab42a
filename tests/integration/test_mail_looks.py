"""How the mails look: a plain-text part that reads at 72 columns, HTML that fits a
375 px phone (measured in Chromium), the turn mail's picture of the malls as an
inline PNG drawn from what everyone may see, the deadline in the subject, and
players' names, not seat numbers."""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import cairosvg
import pytest
from PIL import Image
from sqlalchemy import select

from pbem.events import timestamp
from pbem.games.mall import mails as mall_mails
from pbem.mail.compose import Composer
from pbem.service import PlayerSpec, rows
from pbem.service.notices import Kind

from support import claim_alone

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
URL = re.compile(r"https?://\S+")


@pytest.fixture
def table(make_parts, clock):
    """Ann and Ben, a few rounds into a mall game with a deadline, and a writer of
    any kind of mail for it."""
    parts = make_parts(clock)
    service = parts.service
    created = service.create_game(
        [PlayerSpec("Ann Longname-Wordsworth", "ann@example.com"), PlayerSpec("Ben", "ben@e.org")],
        {"hours_per_turn": 52},
        {"seed": "h"},
    )
    game = created.game_id
    tokens = {s.seat: s.token for s in created.seats}
    for _ in range(6):
        state = service.state_at(game)
        seat = state["turn"]
        service.submit_action(game, tokens[seat], service.legal(game, seat)[-1], state["seq"])
    composer = Composer(service, parts.settings)

    def write(kind, seat, payload, seq=None):
        seq = service.state_at(game)["seq"] if seq is None else seq
        to = {1: "ann@example.com", 2: "ben@e.org"}[seat]
        mail = rows.new_mail(game, seq, kind, seat, to, payload, timestamp(clock()))
        with parts.database.writing() as conn:
            found = conn.execute(
                select(rows.OUTBOX.c.id).where(
                    rows.OUTBOX.c.game_id == game,
                    rows.OUTBOX.c.seq == seq,
                    rows.OUTBOX.c.kind == str(kind),
                    rows.OUTBOX.c.seat == seat,
                )
            ).scalar()
            row_id = found if found is not None else rows.add_mails(conn, [mail])[0]
        return composer.compose(claim_alone(parts.outbox, row_id, composer.message_id))

    return parts, game, write


def turn_mail(table):
    parts, game, write = table
    return write(Kind.YOUR_TURN, parts.service.state_at(game)["turn"], {})


def every_mail(table) -> dict[str, object]:
    parts, game, write = table
    to_move = parts.service.state_at(game)["turn"]
    return {
        "your_turn": write(Kind.YOUR_TURN, to_move, {}),
        "reminder": write(Kind.REMINDER, to_move, {"hours": 24}),
        "round_scored": write(Kind.ROUND_SCORED, 1, {"round": 1}, seq=3),
        "invitation": write(Kind.INVITATION, 1, {}, seq=1),
        "undo_request": write(Kind.UNDO_REQUEST, 2, {"asked_by": 1}),
    }


def test_the_plain_text_part_of_every_mail_reads_at_72_columns(table):
    for kind, mail in every_mail(table).items():
        text = mail.get_body(("plain",)).get_content()
        long = [line for line in text.splitlines() if len(line) > 72 and not URL.search(line)]
        assert long == [], kind


def test_the_turn_mail_says_the_deadline_in_its_subject_and_how_long_is_left(table, clock):
    mail = turn_mail(table)
    # the last move was at the test clock's now: 52 hours from Sun 1 Nov 12:00 UTC
    assert mail["Subject"].endswith("— answer by Tue 3 Nov 16:00 UTC")
    assert (
        "Answer by Tue 3 Nov 16:00 UTC: 2 days 4 hours left."
        in mail.get_body(("plain",)).get_content()
    )
    parts, game, write = table
    reminder = write(Kind.REMINDER, parts.service.state_at(game)["turn"], {"hours": 24})
    assert " — reminder: 2 days 4 hours left for your turn" in reminder["Subject"]


def test_the_turn_mail_names_players_and_you_never_seat_numbers(table):
    text = turn_mail(table).get_body(("plain",)).get_content()
    told = text[: text.index("Since your last turn")] + text[text.index("Since") :].split("\n\n")[0]
    assert "  - Ben played " in told
    assert not re.search(r"\bseat \d", told, re.I)
    details = text.index("Details:")
    assert text.index("the log's head is") > details > text.index("Your legal actions")


def test_the_turn_mail_shows_the_malls_as_an_inline_png_of_public_parts_only(table):
    parts, game, _ = table
    mail = turn_mail(table)
    related = next(p for p in mail.walk() if p.get_content_type() == "multipart/related")
    html = related.get_body(("html",)).get_content()
    (image,) = [p for p in related.iter_parts() if p.get_content_type() == "image/png"]
    cid = image["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html
    png = image.get_content()
    drawn = Image.open(io.BytesIO(png))
    assert drawn.format == "PNG" and drawn.width >= 200
    assert f'width="{drawn.width // 2}"' in html  # drawn at twice its size
    # drawn from the spectator's view: the same as for anyone, no secret card in it;
    # what the reader chooses from, the Dispenser and their own mall
    seq = parts.service.state_at(game)["seq"]
    reader = parts.service.state_at(game)["turn"]
    public = mall_mails.turn_picture(parts.service.state_at(game, seq), reader)
    assert public is not None
    for seat in (1, 2):
        seat_view = parts.service.state_at(game, seq, seat)
        secret = seat_view["players"][seat - 1]["secret"]
        assert secret not in public
    assert png == cairosvg.svg2png(bytestring=public.encode(), scale=2)
    text = mail.get_body(("plain",)).get_content()
    assert "Your legal actions" in text  # the text position stays for text-only clients


def test_the_html_of_every_mail_fits_a_375_px_phone(table):
    if not Path(CHROMIUM).exists() or not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: no Chromium at {CHROMIUM}")
        pytest.skip(f"this test needs Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 375, "height": 812})
        try:
            for kind, mail in every_mail(table).items():
                html = mail.get_body(("html",)).get_content()
                assert "<link" not in html and "<style" not in html, kind
                page.set_content(html)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 375, (kind, width)
                said = page.evaluate("document.body.innerText")
                assert not re.search(r"\)\.Keep", said), kind
        finally:
            browser.close()


@pytest.mark.parametrize(
    ("name", "subject"),
    [
        ("Zoë Ångström", "Your turn — answer by Tue 3 Nov 16:00 UTC"),
        ('Ann "the, first" <x@y>', "Re: =?utf-8?q?Bcc=3A_x=40y?= " + "long " * 30),
        ("=?utf-8?q?Mallory?=", "Re: move Bcc: victim@example.com"),
    ],
)
def test_the_headers_written_per_mail_read_back_exactly_as_meant(name, subject):
    from email import message_from_bytes
    from email import policy as policies
    from email.message import EmailMessage

    from pbem.mail.writing import MAIL_POLICY, SMTP_POLICY, written, written_address

    message = EmailMessage(policy=MAIL_POLICY)
    message["Subject"] = written("Subject", subject)
    message["To"] = written_address("To", name, "ann@example.com")
    message.set_content("hello")
    data = message.as_bytes(policy=SMTP_POLICY)
    assert all(len(line) <= 78 for line in data.split(b"\r\n"))
    back = message_from_bytes(data, policy=policies.default)
    assert back["Subject"] == subject
    assert back["To"].addresses[0].display_name == name
    assert back["To"].addresses[0].addr_spec == "ann@example.com"
    assert back.get_all("Bcc") is None
    assert message["To"].addresses[0].addr_spec == "ann@example.com"  # read before sending


def test_the_game_over_mail_reads_at_72_columns_with_the_seed_hash_whole(table):
    parts, game, write = table
    service = parts.service
    while (state := service.state_at(game))["turn"] is not None:
        seat = state["turn"]
        link = next(s for s in service.seat_links(game) if s.seat == seat)
        service.submit_action(game, link.token, service.legal(game, seat)[0], state["seq"])
    text = write(Kind.GAME_OVER, 1, {}).get_body(("plain",)).get_content()
    long = [line for line in text.splitlines() if len(line) > 72 and not URL.search(line)]
    assert long == []
    assert service.state_at(game)["seed_sha256"] in text.splitlines()
