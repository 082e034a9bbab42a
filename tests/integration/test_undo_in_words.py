"""An undo request says which move it takes back in the game's own words (its
narration, translated), never "every move after seq N": on the game page of the
seat asked, in the mail that asks them (English and German) and in the history."""

from __future__ import annotations

import html
import re

import pytest
from test_names_not_numbers import enter, game, history_of

from pbem.i18n import speaking
from pbem.service.notices import Kind

from support import MailWriter

MOVE = "Burger Bar (Y01) from L1 at 0,2"  # what Ann's "build L1 at 0,2" is, in words
GERMAN = "Ann hat gebeten, den eigenen Zug „Burger-Bar (Y01) aus L1 bei 0,2"


def _asked(parts):
    """Ann builds, Ben takes money, then Ann asks to take back her move (and Ben's
    after it: Ben must agree)."""
    game_id, tokens = game(parts)
    service = parts.service
    service.submit_action(game_id, tokens[1], "build L1 at 0,2", 1)
    service.submit_action(game_id, tokens[2], "money R", 2)
    request = service.undo(game_id, tokens[1])
    assert request.type == "UndoRequested"
    return game_id, tokens, request.seq


def test_the_history_tells_the_move_an_undo_request_takes_back(web):
    app, parts = web
    game_id, tokens, seq = _asked(parts)
    told = {h.seq: h.text for h in parts.service.history(game_id, 2)}
    played = told[2].removeprefix("Ann played ")  # the game's own words for the move
    assert played.startswith(MOVE)
    assert told[seq] == f"Ann asked to take back their move “{played}” and the 1 move after it"
    mine = {h.seq: h.text for h in parts.service.history(game_id, 1)}[seq]
    assert mine == f"You asked to take back your move “{played}” and the 1 move after it"
    page = history_of(app.test_client(), game_id, tokens[2])
    assert f"asked to take back their move “{MOVE}" in page
    assert "after seq" not in page


def test_the_page_of_the_seat_asked_names_the_move(web):
    app, parts = web
    game_id, tokens, _seq = _asked(parts)
    page = html.unescape(enter(app.test_client(), game_id, tokens[2]))
    section = re.search(r'<section class="undo-request".*?</section>', page, re.S)[0]
    said = re.sub(r"<[^>]+>", "", section)
    assert f"Their move “{MOVE}" in said and "and the 1 move after it" in said
    assert "seq" not in said
    waiting = parts.service.pending_undo(game_id, 2)
    assert waiting is not None and waiting["move"].startswith(MOVE) and waiting["later"] == 1


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_undo_request_mail_names_the_move_in_its_readers_language(web, clock, language):
    _app, parts = web
    game_id, _tokens, seq = _asked(parts)
    writer = MailWriter(parts, clock, game_id)
    mail = writer.compose(
        Kind.UNDO_REQUEST, 2, "ben@example.com", {"asked_by": 1}, seq=seq, language=language
    )
    with speaking(language):
        told = {h.seq: h.text for h in parts.service.history(game_id, 2)}[seq]
    start = {"en": f"Ann asked to take back their move “{MOVE}", "de": GERMAN}[language]
    assert told.startswith(start)
    for part in ("plain", "html"):
        said = html.unescape(mail.get_body((part,)).get_content())
        said = " ".join(said.split())  # the text part is wrapped
        assert told in said, part
        assert "seq" not in said.split("Details")[0] and "Ereignis" not in said, part
