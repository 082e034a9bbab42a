"""The censor of hidden words blanks exactly what the pattern of the viewer's hidden
words finds, whether or not a text holds one (it compiles that pattern only for a
text that does)."""

from __future__ import annotations

import random

from pbem.games import get
from pbem.i18n import gettext as _
from pbem.service import PlayerSpec
from pbem.service.queries import _hidden_words


def test_the_censor_blanks_what_the_pattern_of_hidden_words_finds(make_parts, clock):
    parts = make_parts(clock)
    service = parts.service
    created = service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        None,
        {"seed": "a seed, (with) punctuation"},
    )
    game_id = created.game_id
    doc = service.state_at(game_id)
    rules = get(doc["game"])
    pick = random.Random(7)
    for seat in (None, 1, 2):
        censor = service.censor(game_id, seat)
        with service.db.reading() as conn:  # the secrets as the censor reads them
            state = service._ctx.state(conn, rules, service._ctx.row(conn, game_id))
        hidden = sorted((h for h in rules.secrets(state, seat) if h), key=len, reverse=True)
        assert hidden  # the supply's order and the seed are hidden from everyone
        pattern = _hidden_words(hidden)
        pieces = [*hidden[:8], "Burger Bar", "x-", "-", " ", "(", ")", "Ann", "took", "Z99", "'"]
        texts = ["", "Ann took a tile.", "a seed, (with) punctuation"]
        texts += [
            "".join(pick.choice(pieces) for _n in range(pick.randint(1, 9))) for _i in range(400)
        ]
        for text in texts:
            assert censor(text) == pattern.sub(lambda _found: _("(hidden)"), text), text
        assert censor(f"Burger Bar ({hidden[0]})") == _("(hidden)")
