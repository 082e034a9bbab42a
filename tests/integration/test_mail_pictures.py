"""The pictures in the mails: a turn mail's shows what its reader chooses from, the
Dispenser and their own mall, with words large enough to read at a mail's 600 px
(none under 11 px), and none of what is hidden; its HTML part leaves the position
as text to the text part; the game-over mail shows the final malls."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import test_mail_looks as looks

from pbem.games.mall import mails as mall_mails
from pbem.service.notices import Kind

table = looks.table  # Ann and Ben a few rounds in, and a writer of their mails
turn_mail = looks.turn_mail

SVG = "{http://www.w3.org/2000/svg}"
TILE_ID = re.compile(r"\b[YBGR]\d\d\b")


def _smallest_words(svg: str) -> float:
    """The smallest font size in the drawing, in CSS pixels as the mail shows it
    (each drawing placed inside at its own scale)."""
    root = ElementTree.fromstring(svg)
    smallest = float("inf")
    for inner in root.iter(f"{SVG}svg"):
        if inner is root:
            continue
        box = [float(v) for v in inner.get("viewBox", "").split()]
        scale = float(inner.get("width", box[2])) / box[2]
        for text in inner.iter(f"{SVG}text"):
            smallest = min(smallest, float(text.get("font-size", "16")) * scale)
    return smallest


def _related(mail):
    related = next(p for p in mail.walk() if p.get_content_type() == "multipart/related")
    html = related.get_body(("html",)).get_content()
    (image,) = [p for p in related.iter_parts() if p.get_content_type() == "image/png"]
    return html, image


def test_the_turn_picture_is_the_dispenser_and_the_readers_mall_readable_at_600_px(table):
    parts, game, _write = table
    mail = turn_mail(table)
    html, _image = _related(mail)
    reader = parts.service.state_at(game)["turn"]
    public = parts.service.state_at(game, None, None)
    svg = mall_mails.turn_picture(public, reader)
    assert svg is not None
    width = int(re.search(r'<img [^>]*width="(\d+)"', html)[1])
    assert width <= 576  # shown at its size inside a 600 px mail
    assert _smallest_words(svg) >= 11
    dispenser = {t for column in public["dispenser"].values() for t in column if t}
    assert dispenser and all(f">{t}<" in svg for t in dispenser)  # every slot, by id
    mine = next(p for p in public["players"] if p["seat"] == reader)
    others = [p for p in public["players"] if p["seat"] != reader]
    assert all(f">{t['id']}<" in svg for t in mine["tiles"] if t["kind"] != "attraction")
    theirs = {t["id"] for p in others for t in p["tiles"]} - dispenser
    assert not any(f">{t}<" in svg for t in theirs)  # only the reader's own mall
    # nothing hidden: every tile id drawn is one everyone may see, no secret card
    seen = {t["id"] for p in public["players"] for t in p["tiles"]} | dispenser
    assert set(TILE_ID.findall(svg)) <= seen
    for seat in (1, 2):
        secret = parts.service.state_at(game, None, seat)["players"][seat - 1]["secret"]
        assert secret not in svg


def test_the_turn_mails_html_leaves_the_position_as_text_to_the_text_part(table):
    mail = turn_mail(table)
    html, _image = _related(mail)
    assert "<pre" not in html and "+----" not in html
    text = mail.get_body(("plain",)).get_content()
    assert "+----" in text  # the position, drawn in text, for text-only readers


def test_the_game_over_mail_shows_the_final_malls(table):
    parts, game, write = table
    service = parts.service
    while (state := service.state_at(game))["turn"] is not None:
        seat = state["turn"]
        link = next(s for s in service.seat_links(game) if s.seat == seat)
        service.submit_action(game, link.token, service.legal(game, seat)[0], state["seq"])
    mail = write(Kind.GAME_OVER, 1, {})
    html, image = _related(mail)
    cid = image["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html and 'alt="The malls at the end of the game"' in html
    final = mall_mails.picture(service.state_at(game, None, None))
    assert final is not None and _smallest_words(final) >= 11
