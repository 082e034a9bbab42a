"""No move is ever read from quoted text: replies generated from what the player
writes, quotes under attributions in many languages, and originals kept unquoted
under a header block, in any order a mail program or a hostile sender could give
them. The quoted and original text lists "money R"; the player's own lines never
do; whatever the mix, no line the reader keeps holds it, in plain text or HTML
(under an attribution in no language it knows, with no quote, only the first)."""

from __future__ import annotations

from html import escape

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.reading import html_text, reply_lines

from abuse import examples

QUOTED_MOVE = "money R"
ATTRIBUTIONS = [
    "On Mon, 30 Nov 2026 at 10:00, Mall <play@pbem.localhost> wrote:",
    "On Mon, 30 Nov 2026 at 10:00, Mall <\nplay@pbem.localhost> wrote:",
    "On Mon, 30 Nov 2026 at 10:00, Mall <play@pbem.localhost\n> wrote:",
    "Am Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Mall <play@pbem.localhost>:",
    "Le lun. 30 nov. 2026 à 10:00, Mall <play@pbem.localhost> a écrit :",
    "Op ma 30 nov. 2026 om 10:00 schreef Mall <play@pbem.localhost>:",
    "30.11.2026 10:00, Mall пишет:",
    "Mall <play@pbem.localhost> 于2026年11月30日周一 10:00写道：",
    "2026年11月30日(月) 10:00 Mall <play@pbem.localhost>:",
    "pon., 30 lis 2026 o 10:00 Mall <play@pbem.localhost> napisał(a):",
    "Mall kirjoitti:",
]
# a line in no language the reader knows: an attribution only above a quote
UNKNOWN = "Somebody somewhere said:"
BLOCKS = [
    "-----Original Message-----",
    "-----Ursprüngliche Nachricht-----",
    "-----Message d'origine-----",
    "________________________________",
    "From: Mall <play@pbem.localhost>\nSent: Monday, 30 November 2026 10:00",
    "Von: Mall <play@pbem.localhost>\nGesendet: Montag, 30. November 2026 10:00",
    "De : Mall\nEnvoyé : lundi 30 novembre 2026 10:00",
    "Od: Mall\nWysłano: poniedziałek, 30 listopada 2026 10:00",
    "---------- Forwarded message ---------",
]
QUOTE_MARKS = st.sampled_from(["> ", ">", ">> ", "> > ", " > ", "\t> ", "\u00a0> "])
# what the player writes: any words and commands, never the quoted move
OWN = st.text(
    alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz LR0123456789,.:;!?()-'")),
    max_size=60,
).filter(lambda line: "money r" not in line.lower())
ORIGINAL = st.lists(
    st.one_of(st.just(QUOTED_MOVE), st.just("  " + QUOTED_MOVE), OWN), min_size=1, max_size=6
)


@st.composite
def quotes(draw) -> str:
    """An attribution and a quote holding the move."""
    lines = draw(ORIGINAL) + [QUOTED_MOVE]
    mark = draw(QUOTE_MARKS)
    head = draw(st.sampled_from([*ATTRIBUTIONS, UNKNOWN]))
    return head + "\n" + "\n".join(mark + x for x in lines)


@st.composite
def originals(draw) -> str:
    """An original kept unquoted: under a header block, or under an attribution."""
    head = draw(st.sampled_from(BLOCKS + ATTRIBUTIONS))
    return head + "\n\n" + "\n".join(draw(ORIGINAL) + [QUOTED_MOVE])


@st.composite
def replies(draw) -> str:
    parts = draw(
        st.lists(
            st.one_of(quotes(), st.lists(OWN, max_size=4).map("\n".join)), min_size=1, max_size=6
        )
    )
    if draw(st.booleans()):
        parts.append(draw(originals()))  # nothing of the mail comes after it
    return draw(st.sampled_from(["\n", "\n\n", "\r\n"])).join(parts)


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(text=replies())
def test_no_line_kept_from_a_plain_reply_is_quoted(text):
    assert not any(QUOTED_MOVE.lower() in line.lower() for line in reply_lines(text))


@settings(max_examples=examples(100), deadline=None, derandomize=True)
@given(own=st.lists(OWN, max_size=4), original=ORIGINAL)
def test_an_unknown_attribution_over_an_unquoted_original_is_never_played(own, original):
    # the reader cannot tell such an original from the player's text, and may name
    # its lines back as ignored; but the command, the first line, is never one
    text = "\n".join([UNKNOWN, "", *original, QUOTED_MOVE, *own])
    assert reply_lines(text)[0] == UNKNOWN


@settings(max_examples=examples(150), deadline=None, derandomize=True)
@given(
    own=st.lists(OWN, max_size=4),
    quoted=ORIGINAL,
    where=st.sampled_from(
        [
            "<blockquote type='cite'>{}</blockquote>",
            "<div class='gmail_quote'>{}</div>",
            "<div class='yahoo_quoted'>{}</div>",
            "<div id='divRplyFwdMsg'>{}</div>",
            "<hr>{}",
        ]
    ),
    above=st.booleans(),
    attribution=st.sampled_from(ATTRIBUTIONS),
)
def test_no_line_kept_from_an_html_reply_is_quoted(own, quoted, where, above, attribution):
    body = "".join(f"<div>{escape(x)}</div>" for x in [*quoted, QUOTED_MOVE])
    quote = f"<div>{escape(attribution)}</div>" + where.format(body)
    written = "".join(f"<p>{escape(x)}</p>" for x in own)
    html = (
        f"<html><body>{quote}{written}</body></html>"
        if above
        else (f"<html><body>{written}{quote}</body></html>")
    )
    assert not any(QUOTED_MOVE.lower() in line.lower() for line in reply_lines(html_text(html)))
