"""The turn mail's legal actions: two moves that do the same thing in words (two
customers alike, from the same entrance, wanting the same) are offered once, as on
the page; different outcomes all stay."""

from __future__ import annotations

import pytest

from pbem.mail.templating import environment

ALIKE = "Burger Bar (Y04) from L1 at 1,3; a customer wanting food moves from Entrance (R01)"
OPTIONS = [
    {
        "text": "build L1 at 1,3 for M2.1",
        "preview": "Burger Bar (Y04) from L1 at 1,3; from the Main Entrance",
    },
    {"text": "build L1 at 1,3 for R01.1", "preview": ALIKE},
    {"text": "build L1 at 1,3 for R01.2", "preview": ALIKE},
    {"text": "money L", "preview": "takes 3 bank notes"},
]


@pytest.mark.parametrize("part", ["_turn.txt", "_turn.html"])
def test_moves_alike_in_words_are_offered_once(part):
    mail = (
        environment("Mall by mail")
        .get_template(f"mall/mail/{part}")
        .render(since=[], position="(the malls)", options=OPTIONS, link="https://mall.example/g/x")
    )
    assert mail.count("for R01.1") == 1
    assert "for R01.2" not in mail
    assert mail.count("Main Entrance") == 1 and "money L" in mail
