"""How a test looks for hidden information in what a reader gets: a short id of a
tile or a card as a person or a program meets it, never by chance inside a random
value."""

from __future__ import annotations

import re

# The characters of the server's random values (token_urlsafe, hex): an id is found
# only where none of them sits beside it, as a person or a program reads it.
_RANDOM = "A-Za-z0-9_-"


def shows(text: str, shown_id: str) -> bool:
    """Whether `text` (a page, a mail, an answer's JSON) shows the short id of a
    tile or a card (`"O3"`, `"B04"`) as a reader meets it: on its own (`O3`, `"O3"`,
    `>O3<`, `O3,`) or as a page's name for it (`tile-O3`, `common-O3`). Never inside
    a random value (a seat's token, a key, a nonce), which a bare substring search
    matched by chance once in a few hundred pages."""
    alone = rf"(?<![{_RANDOM}])(?:[a-z]+-)?{re.escape(shown_id)}(?![{_RANDOM}])"
    return re.search(alone, text) is not None
