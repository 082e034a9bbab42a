"""Replies written under the quote (bottom posting) by mail programs speaking other
languages, in their usual charsets, through the inbound handler: the line under the
quote is played, and the legal actions the quote lists never are. When the original
is kept unquoted under a header block, nothing of it is read: the reply is refused
as unreadable."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from support import Table

TURN = ["It is your turn.", "Your legal actions:", "  money R", "  build L2 at 1,2"]
QUOTED = "\n".join("> " + line for line in TURN)


@pytest.fixture
def table(web):
    return Table(web[1])


def _reply(table: Table, text: str, charset: str, number: int) -> bytes:
    mail = EmailMessage()
    mail["From"] = "Ann Example <ann@example.com>"
    mail["To"] = table.address(1)
    mail["Subject"] = "Re: Your turn"
    mail["Message-ID"] = f"<language-{number}@mail.example>"
    mail.set_content(
        text, charset=charset, cte="quoted-printable" if charset != "iso-2022-jp" else "7bit"
    )
    return mail.as_bytes()


BOTTOM = [
    ("nl", "Op ma 30 nov. 2026 om 10:00 schreef Mall <play@pbem.localhost>:", "utf-8"),
    (
        "it",
        "Il giorno lun 30 nov 2026 alle ore 10:00 Mall <play@pbem.localhost> ha scritto:",
        "iso-8859-1",
    ),
    (
        "pt",
        "Em seg., 30 de nov. de 2026 às 10:00, Mall <play@pbem.localhost> escreveu:",
        "iso-8859-1",
    ),
    ("pl", "pon., 30 lis 2026 o 10:00 Mall <play@pbem.localhost> napisał(a):", "iso-8859-2"),
    ("ru", "30.11.2026 10:00, Mall пишет:", "koi8-r"),
    ("uk", "пн, 30 лист. 2026 о 10:00 Mall <play@pbem.localhost> пише:", "koi8-u"),
    ("cs", "Dne 30.11.2026 v 10:00 Mall napsal(a):", "windows-1250"),
    ("tr", "30 Kas 2026 Pzt, 10:00 tarihinde Mall <play@pbem.localhost> şunu yazdı:", "iso-8859-9"),
    (
        "el",
        "Στις Δευ 30 Νοε 2026 στις 10:00 π.μ., ο/η Mall <play@pbem.localhost> έγραψε:",
        "iso-8859-7",
    ),
    ("ja", "2026年11月30日(月) 10:00 Mall <play@pbem.localhost>:", "iso-2022-jp"),
    ("zh", "Mall <play@pbem.localhost> 于2026年11月30日周一 10:00写道：", "gb18030"),
    ("ko", "2026년 11월 30일 (월) 오전 10:00, Mall <play@pbem.localhost>님이 작성:", "euc-kr"),
    ("fi", "ma 30. marrask. 2026 klo 10.00 Mall (play@pbem.localhost) kirjoitti:", "iso-8859-15"),
    (
        "hu",
        "Mall <play@pbem.localhost> ezt írta (időpont: 2026. nov. 30., H, 10:00):",
        "iso-8859-2",
    ),
    ("he", "Mall כתב:", "windows-1255"),
    (
        "ar",
        "في الاثنين، 30 نوفمبر 2026 في 10:00 ص، كتب Mall <play@pbem.localhost>:",
        "windows-1256",
    ),
]


@pytest.mark.parametrize(("language", "attribution", "charset"), BOTTOM, ids=[b[0] for b in BOTTOM])
def test_a_bottom_posted_reply_plays_the_line_under_the_quote(
    table, language, attribution, charset
):
    greeting = {"ru": "Привет!", "ja": "こんにちは", "he": "שלום"}.get(language, "Hi :)")
    text = f"{greeting}\n\n{attribution}\n{QUOTED}\n\nmoney L\n"
    handled = table.inbound.handle(_reply(table, text, charset, len(language)))
    assert handled.status == "accepted", handled.detail
    (move,) = [h.text for h in table.parts.service.history(table.game)][-1:]
    assert move == "Ann played Burger Bar (Y01) from L1 as money, gaining 1 note"


@pytest.mark.parametrize(
    ("block", "charset"),
    [
        (
            "Von: Mall <play@pbem.localhost>\nGesendet: Montag, 30. November 2026 10:00\n"
            "An: Ann\nBetreff: Dein Zug",
            "windows-1252",
        ),
        (
            "De : Mall <play@pbem.localhost>\nEnvoyé : lundi 30 novembre 2026 10:00\n"
            "À : Ann\nObjet : À vous",
            "iso-8859-15",
        ),
        (
            "-----Mensaje original-----\nDe: Mall\nEnviado el: lunes, 30 de noviembre de 2026",
            "iso-8859-1",
        ),
        (
            "-----Oorspronkelijk bericht-----\nVan: Mall\nVerzonden: maandag 30 november 2026",
            "utf-8",
        ),
    ],
)
def test_an_original_kept_unquoted_under_a_header_block_is_never_played(table, block, charset):
    # nothing written above the block, the turn mail under it unquoted, a move at
    # the bottom: the reader cannot tell the move from the original, so refuses
    text = f"Hallo!\n\n{block}\n\n" + "\n".join(TURN) + "\n\nmoney L\n"
    handled = table.inbound.handle(_reply(table, text, charset, 99))
    assert handled.status == "unreadable"
    assert table.answers()[0].payload["lines"][0] == "Your mail had no command in it."
    assert table.seq() == 1


def test_a_move_first_in_an_unquoted_original_is_never_played(table):
    # found by the abuse suite: the reader went past the original-message line
    # and its From: line, and played the original's first line
    text = "Hi,\n\n-----Original Message-----\nFrom: Mall <play@pbem.localhost>\n\nmoney R\n"
    handled = table.inbound.handle(_reply(table, text, "utf-8", 7))
    assert handled.status == "unreadable"
    assert table.seq() == 1
