"""What the reply reader keeps of the replies other reply-parsing projects collected
from real mail programs (email_reply_parser, mail-parser-reply, talon: see
mails/replies/README.md): the player's own lines, from the first to where the
quote, the original or the signature begins, never a line of what was quoted."""

from __future__ import annotations

import re
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from pbem.mail.reading import body_text, reply_lines

REPLIES = Path(__file__).parent / "mails" / "replies"

# fixture: (how many lines are kept, the first, the last)
KEPT = {
    "email_reply_parser/correct_sig.txt": (
        1,
        "this is an email with a correct -- signature.",
        "this is an email with a correct -- signature.",
    ),
    # "Hi," and "On ... wrote:" above a quote, the answer under it
    "email_reply_parser/email_1_2.txt": (
        17,
        "You can list the keys for the bucket and call delete for each. Or if you",
        'the keys in a bucket, you’ll need to delete them all individually."',
    ),
    "email_reply_parser/email_1_3.txt": (3, "Oh thanks.", "-Abhishek Kona"),
    "email_reply_parser/email_1_4.txt": (
        1,
        "Awesome! I haven't had another problem with it.",
        "Awesome! I haven't had another problem with it.",
    ),
    # an attribution wrapped over three lines
    "email_reply_parser/email_1_6.txt": (
        1,
        "I get proper rendering as well.",
        "I get proper rendering as well.",
    ),
    "email_reply_parser/email_1_7.txt": (1, ":+1:", ":+1:"),
    # bottom posting: the attribution at the top, answers between the quotes
    "email_reply_parser/email_1_8.txt": (2, "I will reply under this one", "and under this."),
    "email_reply_parser/email_2_1.txt": (1, "Outlook with a reply", "Outlook with a reply"),
    "email_reply_parser/email_2_2.txt": (
        1,
        "Outlook with a reply directly above line",
        "Outlook with a reply directly above line",
    ),
    "email_reply_parser/email_2_3.txt": (
        1,
        "Outlook with a reply directly above line",
        "Outlook with a reply directly above line",
    ),
    "email_reply_parser/email_BlackBerry.txt": (
        1,
        "Here is another email",
        "Here is another email",
    ),
    "email_reply_parser/email_bullets.txt": (5, "test 2 this should list second", "- and another"),
    "email_reply_parser/email_iPhone.txt": (1, "Here is another email", "Here is another email"),
    "email_reply_parser/email_multi_word_sent_from_my_mobile_device.txt": (
        1,
        "Here is another email",
        "Here is another email",
    ),
    "email_reply_parser/email_one_is_not_on.txt": (
        3,
        "Thank, this is really helpful.",
        "Locally (on development), when I run...",
    ),
    # "Sent from my desk, ..." is a sentence, yet reads as a footer: the reply ends
    "email_reply_parser/email_sent_from_my_not_signature.txt": (
        1,
        "Here is another email",
        "Here is another email",
    ),
    "email_reply_parser/email_sig_delimiter_in_middle_of_line.txt": (
        3,
        "Stuff happened.",
        "kthxbai",
    ),
    # a line starting "On" and ending with a colon is no attribution
    "email_reply_parser/greedy_on.txt": (
        4,
        "On your remote host you can run:",
        "fails, the tunnel is not working.",
    ),
    "email_reply_parser/pathological.txt": (
        2,
        "I think you're onto something. I will try to fix the problem as soon as I",
        "get back to a computer.",
    ),
    "mail_parser_reply/email_cs_wrap.txt": (
        3,
        "děkuji za zprávu. Podmínky mi vyhovují, ozvu se ti zítra dopoledne.",
        "B",
    ),
    "mail_parser_reply/email_danish_1.txt": (
        3,
        "Tak for din mail. Det lyder godt.",
        "Anders Andersen",
    ),
    "mail_parser_reply/email_danish_3.txt": (1, "Svar.", "Svar."),
    "mail_parser_reply/email_de_wrap.txt": (
        4,
        "danke für die Nachricht. Die Konditionen klingen passend, lass uns morgen",
        "B",
    ),
    "mail_parser_reply/email_de_wrap_inside.txt": (
        4,
        "danke für die Nachricht. Die Konditionen klingen passend, lass uns morgen",
        "B",
    ),
    "mail_parser_reply/email_es_wrap.txt": (
        4,
        "Gracias por escribirme. Las condiciones me parecen razonables, puedo hablar",
        "B",
    ),
    "mail_parser_reply/email_fr_wrap.txt": (
        4,
        "Merci pour votre message. Les conditions me semblent correctes, je serai",
        "B",
    ),
    "mail_parser_reply/email_gmail.txt": (
        1,
        "This is a test for inbox replying to a github message.",
        "This is a test for inbox replying to a github message.",
    ),
    "mail_parser_reply/email_headers_no_delimiter.txt": (
        1,
        "And another reply!",
        "And another reply!",
    ),
    # the original under a Hungarian attribution is not quoted: it is not read
    "mail_parser_reply/email_hu_1.txt": (
        4,
        "Az uj beallitasokat feltoltottem a szerverre, holnap tudod tesztelni.",
        "Anna",
    ),
    "mail_parser_reply/email_it_wrap.txt": (
        4,
        "grazie per il messaggio. Le condizioni mi sembrano corrette, possiamo",
        "B",
    ),
    "mail_parser_reply/email_ja_1_2.txt": (4, "田中様", "以上、よろしくお願いいたします"),
    "mail_parser_reply/email_nl_1_2.txt": (
        1,
        "Outlook met een antwoord",
        "Outlook met een antwoord",
    ),
    "mail_parser_reply/email_nl_wrap.txt": (
        4,
        "dank voor je bericht. De voorwaarden lijken passend; laten we morgen even",
        "B",
    ),
    "mail_parser_reply/email_sv_anon_1.txt": (
        5,
        "Berättar gärna. Enklast är om vi kan ta ett kort samtal under dagen. Jag är",
        "070-0000000",
    ),
    "mail_parser_reply/email_swedish_1.txt": (4, "Ursäkta mitt sena svar!", "Person B"),
    # a Chinese salutation ("安安：") is no greeting the reader knows: it stays
    "mail_parser_reply/email_zh_1.txt": (12, "安安：", "活动协调人"),
    "mail_parser_reply/email_zh_2.txt": (
        2,
        "安安：",
        "我这边没有别的补充了，按这个安排推进就可以。",
    ),
    "mail_parser_reply/multi_header.txt": (
        1,
        "No problem. I’ll just start a new order.",
        "No problem. I’ll just start a new order.",
    ),
    # the reply, then a German attribution wrapped inside the address
    "mail_parser_reply/multiline_on_de.txt": (1, "Am heutigen Tage", "Am heutigen Tage"),
    "mail_parser_reply/outlook.txt": (
        3,
        "What is the best way to clear a Riak bucket of all key, values after",
        "My number is: +00 0000 000 000",
    ),
}


@pytest.mark.parametrize("fixture", sorted(KEPT))
def test_the_reader_keeps_the_replys_own_lines(fixture):
    count, first, last = KEPT[fixture]
    kept = reply_lines((REPLIES / fixture).read_text(encoding="utf-8"))
    assert (len(kept), kept[0], kept[-1]) == (count, first, last), kept


def test_an_outlook_header_block_above_everything_ends_the_reading():
    # mail-parser-reply reads on under the block; an original kept unquoted may
    # follow such a block, so this reader takes nothing after it
    assert reply_lines((REPLIES / "mail_parser_reply/email_pl_1_2.txt").read_text()) == []


TALON = sorted(p.name for p in (REPLIES / "talon").glob("*.eml"))


def _talon_text(name: str) -> str:
    raw = (REPLIES / "talon" / name).read_bytes()
    return body_text(BytesParser(policy=policy.default).parsebytes(raw))


@pytest.mark.parametrize("name", TALON)
def test_talon_standard_replies_keep_the_reply_and_nothing_quoted(name):
    # each of these replies says "Hello" above or under the quote: a greeting, so
    # no command at all; written as a move instead, the move is all that is kept
    text = _talon_text(name)
    assert reply_lines(text) == []
    as_move, found = re.subn(r"^Hello[ \t]*$", "money L", text, count=1, flags=re.M)
    assert found == 1
    assert reply_lines(as_move) == ["money L"]
