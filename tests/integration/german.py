"""What a German page or mail still says in English: the words of a rendered page's
or mail's visible text that are English and never German (a check for strings that
reach players without passing through gettext)."""

from __future__ import annotations

import re
from functools import cache

# Words common in this site's English that German never uses. Not here: words both
# languages share ("Details", "Link", "Bot", "Mall", "Start", "in", "an", "so", "was",
# "will", "Minute") and the brand's words ("Mall by mail" reads the same in both).
ENGLISH = frozenset(
    [
        "the",
        "your",
        "you",
        "yours",
        "and",
        "with",
        "is",
        "are",
        "has",
        "have",
        "this",
        "that",
        "these",
        "those",
        "of",
        "to",
        "for",
        "it",
        "its",
        "were",
        "would",
        "not",
        "turn",
        "turns",
        "round",
        "rounds",
        "game",
        "games",
        "player",
        "players",
        "move",
        "moves",
        "moved",
        "points",
        "seat",
        "seats",
        "when",
        "what",
        "who",
        "which",
        "here",
        "there",
        "from",
        "they",
        "their",
        "them",
        "our",
        "we",
        "his",
        "her",
        "yes",
        "play",
        "played",
        "plays",
        "back",
        "next",
        "new",
        "open",
        "only",
        "each",
        "every",
        "other",
        "after",
        "before",
        "until",
        "now",
        "waiting",
        "wait",
        "ends",
        "ended",
        "over",
        "score",
        "scored",
        "scores",
        "standings",
        "history",
        "rules",
        "hello",
        "answer",
        "time",
        "days",
        "hours",
        "minutes",
        "day",
        "hour",
        "ago",
        "left",
        "take",
        "takes",
        "took",
        "build",
        "built",
        "money",
        "customer",
        "customers",
        "store",
        "stores",
        "floor",
        "attraction",
        "attractions",
        "balloon",
        "balloons",
        "docking",
        "bay",
        "bays",
        "entrance",
        "nobody",
        "anything",
        "said",
        "says",
        "say",
        "vacation",
        "reminder",
        "sign",
        "invited",
        "invitation",
        "watch",
        "watching",
        "finished",
        "winner",
        "won",
        "please",
        "can",
        "cannot",
        "could",
        "should",
        "must",
        "been",
        "being",
        "get",
        "got",
        "see",
        "seen",
        "shows",
        "show",
        "choose",
        "chosen",
        "chose",
        "pick",
        "mirror",
        "pass",
        "your",
        "you're",
        "isn't",
        "don't",
        "can't",
        "won't",
    ]
)
HIDDEN = re.compile(r"<(script|style)\b.*?</\1>|<!--.*?-->", re.S | re.I)
# What a reader is told besides the text: a tooltip, a screen reader's name for a
# control or a drawing, an image's words.
SAID = re.compile(r"""\s(?:aria-label|title|alt|placeholder)=(?:"([^"]*)"|'([^']*)')""")


def visible_text(html: str) -> str:
    """A page's text as a reader sees it (no tags, scripts or styles): its drawings'
    words, titles and descriptions included, and what its attributes say to a
    screen reader or in a tooltip."""
    text = HIDDEN.sub(" ", html)
    said = " ".join(one or other for one, other in SAID.findall(text))
    text = re.sub(r"<[^>]+>", " ", text) + " " + said
    return re.sub(r"&#?\w+;", " ", text)


# Letters and digits together are an id (a game's, a token, a tile's "R13.2"), not
# words: a game id "k3of7..." holds no "of" to translate.
_IDS = re.compile(r"\w*\d\w*")


def english_left(text: str, *, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The English words in `text` (pass a page through visible_text first); words
    in `allowed` (players' names, what they typed) are left out, and so are ids."""
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)*", _IDS.sub(" ", text))  # "höher": one
    return [w for w in words if w.lower() in ENGLISH and w not in allowed]


# -- the games' own words ----------------------------------------------------------------

# Words of a bot's name and of the mall's drawings that are English only.
_GAME_WORDS = ("Greedy bot", "Random bot", "costs", "floor", "floors", "empty", "column")
_GAME_WORDS += ("base plate", "platform", "tile", "tiles", "wants", "satisfied", "note", "notes")
# Words of the mall's English names that German writes too ("eine Station").
_BOTH = frozenset({"Station"})
_BROKEN = re.compile(r"([^\W\d_])-\s+([^\W\d_])")  # "Burger- Bar": a word over two lines
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*[^\W_])?")  # "Zero-G", "Founder's": one word


def _words(text: str) -> set[str]:
    return set(_WORD.findall(_IDS.sub(" ", text)))


@cache
def game_english() -> frozenset[str]:
    """The English words of the games' vocabulary that their German never uses: the
    mall's shop, bay and attraction names, its categories, the bots' names, and what
    its drawings say ("costs", "floor"); a word both languages write ("Hobby",
    "Mall") is left out. Case counts: "hobby" is English, "Hobby" German."""
    from pbem import i18n
    from pbem.games.mall import load
    from pbem.games.mall.explain import attraction_name
    from pbem.games.names import BOT_NAMES

    content = load()
    english = [s.name for s in content.elements.values() if s.name]
    english += [b.name for b in content.bays.values()]
    english += [attraction_name(a) for a in content.attractions]
    english += [*content.categories, "Main Entrance", "docking bay", *BOT_NAMES.values()]
    german: set[str] = set()
    with i18n.speaking("de"):
        for phrase in english:
            german |= _words(i18n.gettext(phrase))
        german |= _words(" ".join(attraction_name(a) for a in content.attractions))
    words = _words(" ".join([*english, *_GAME_WORDS]))
    return frozenset(words - german - _BOTH)


def game_english_left(text: str, *, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The words of the games' English vocabulary (`game_english`) left in `text`
    (pass a page through visible_text first). A drawing breaks a long name after
    its hyphen ("Burger-" over "Bar"): read so, it is one word again."""
    vocabulary = game_english()
    text = _BROKEN.sub(r"\1-\2", _IDS.sub(" ", text))
    return [w for w in _WORD.findall(text) if w in vocabulary and w not in allowed]
