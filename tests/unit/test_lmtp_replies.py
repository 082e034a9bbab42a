"""What the LMTP listener answers a recipient, by what became of its mail: the
enhanced status codes a mail server acts on, and never an address."""

from __future__ import annotations

import pytest

from pbem.mail import handled as why
from pbem.mail.handled import Handled
from pbem.mail.lmtp import reply


@pytest.mark.parametrize(
    ("handled", "code"),
    [
        (Handled("accepted", "Played: ..."), "250 2.0.0 accepted"),
        (Handled("refused", "x does not play seat 1"), "250 2.0.0 refused"),
        (Handled("ignored", "an automatic mail"), "250 2.0.0 ignored"),
        (Handled("duplicate", "handled already"), "250 2.0.0 duplicate"),
        (Handled("in hand", "being handled now", retry=True), "451 4.3.0 "),
        (Handled("refused", "", bounce=True, reason=why.NO_ADDRESS), "550 5.1.1 "),
        (Handled("refused", "", bounce=True, reason=why.FORGED), "550 5.1.1 "),
        (Handled("refused", "", bounce=True, reason=why.TOO_LARGE), "552 5.3.4 "),
        (Handled("refused", "", bounce=True, reason=why.MALFORMED), "550 5.6.0 "),
        (Handled("refused", "", bounce=True, reason=why.UNREADABLE), "550 5.6.0 "),
        (Handled("refused", "", bounce=True), "550 5.7.1 "),
    ],
)
def test_each_outcome_has_its_reply(handled, code):
    assert reply(handled).startswith(code)


def test_a_reply_never_repeats_the_detail_or_an_address():
    detail = "play+abcdefghijklmnop.1.1.abcdefghijklmnopqrstuvwx@pbem.localhost is forged"
    said = reply(Handled("refused", detail, bounce=True, reason=why.FORGED))
    assert "play+" not in said and said.isascii()
