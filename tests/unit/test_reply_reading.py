"""What the reply reader keeps of a reply written under or over a quote, as the
common mail programs write their attribution lines, header blocks and footers in
the twenty-odd most used languages: the player's own line, never a quoted one; and
when it cannot tell the quote from the reply, nothing (the reply is refused)."""

from __future__ import annotations

import pytest

from pbem.mail.reading import MAX_LINES, html_text, reply_lines

QUOTE = "> It is your turn.\n> Your legal actions:\n>   money R\n>   build L2 at 1,2\n"

# The attribution lines of Gmail, Apple Mail, Outlook, Thunderbird, the mobile and
# web mail programs, in the languages they write them.
ATTRIBUTIONS = {
    "en": "On Mon, Oct 24, 2016 at 3:36 PM, Ann Example <ann@example.com> wrote:",
    "en-apple": "On 24 Oct 2016, at 15:36, Ann Example <ann@example.com> wrote:",
    "de": "Am Mo., 24. Okt. 2016 um 15:36 Uhr schrieb Ann Example <ann@example.com>:",
    "de-webmail": "Ann Example <ann@example.com> hat am 24. Oktober 2016 um 15:36 geschrieben:",
    "fr": "Le lun. 24 oct. 2016 à 15:36, Ann Example <ann@example.com> a écrit :",
    "es": "El lun., 24 oct. 2016 a las 15:36, Ann Example (<ann@example.com>) escribió:",
    "pt": "Em seg., 24 de out. de 2016 às 15:36, Ann Example <ann@example.com> escreveu:",
    "it": "Il giorno lun 24 ott 2016 alle ore 15:36 Ann Example <ann@example.com> ha scritto:",
    "nl": "Op ma 24 okt. 2016 om 15:36 schreef Ann Example <ann@example.com>:",
    "pl": "pon., 24 paź 2016 o 15:36 Ann Example <ann@example.com> napisał(a):",
    "pl-dnia": "Dnia 24.10.2016 o 15:36 Ann Example napisał(a):",
    "ru": "пн, 24 окт. 2016 г. в 15:36, Ann Example <ann@example.com>:",
    "ru-pishet": "24.10.2016 15:36, Ann Example пишет:",
    "ru-napisal": "Ann Example написал(а):",
    "uk": "пн, 24 жовт. 2016 о 15:36 Ann Example <ann@example.com> пише:",
    "uk-pysav": "24.10.2016 15:36, Ann Example писав(ла):",
    "sv": "Den mån 24 okt. 2016 kl 15:36 skrev Ann Example <ann@example.com>:",
    "da": "Den 24. okt. 2016 kl. 15.36 skrev Ann Example <ann@example.com>:",
    "no": "man. 24. okt. 2016 kl. 15:36 skrev Ann Example <ann@example.com>:",
    "cs": "po 24. 10. 2016 v 15:36 odesílatel Ann Example <ann@example.com> napsal:",
    "cs-napsal-a": "Dne 24.10.2016 v 15:36 Ann Example napsal(a):",
    "tr": "24 Eki 2016 Pzt, 15:36 tarihinde Ann Example <ann@example.com> şunu yazdı:",
    "ja": "2016年10月24日(月) 15:36 Ann Example <ann@example.com>:",
    "ja-kakimashita": "2016/10/24 15:36、Ann Example <ann@example.com> は書きました:",
    "ja-message": "2016/10/24 15:36 Ann Example のメッセージ:",
    "zh": "Ann Example <ann@example.com> 于2016年10月24日周一 15:36写道：",
    "zh-tw": "Ann Example <ann@example.com> 於 2016年10月24日 週一 下午3:36 寫道：",
    "ko": "2016년 10월 24일 (월) 오후 3:36, Ann Example <ann@example.com>님이 작성:",
    "fi": "ma 24. lokak. 2016 klo 15.36 Ann Example (ann@example.com) kirjoitti:",
    "hu": "Ann Example <ann@example.com> ezt írta (időpont: 2016. okt. 24., H, 15:36):",
    "el": "Στις Δευ 24 Οκτ 2016 στις 3:36 μ.μ., ο/η Ann Example <ann@example.com> έγραψε:",
    "he": "\u202bבתאריך יום ב׳, 24 באוק׳ 2016 ב-15:36 מאת \u202aAnn Example\u202c\u200f "
    "<\u202aann@example.com\u202c\u200f>:\u202c",
    "he-katav": "Ann Example כתב:",
    "ar": "في الاثنين، 24 أكتوبر 2016 في 3:36 م، كتب Ann Example <ann@example.com>:",
    "ro": "În lun., 24 oct. 2016 la 15:36, Ann Example <ann@example.com> a scris:",
    "id": "Pada tanggal Sen, 24 Okt 2016 15.36, Ann Example <ann@example.com> menulis:",
    "vi": "Vào Th 2, 24 thg 10, 2016 lúc 15:36 Ann Example <ann@example.com> đã viết:",
    "date-first": "2016-10-24 15:36 GMT+02:00 Ann Example <ann@example.com>:",
    "unknown-language": "Ann Example kaj ŝia poŝto:",  # any line ending ":" above a quote
}


@pytest.mark.parametrize("language", sorted(ATTRIBUTIONS))
def test_a_reply_under_the_quote_plays_the_line_under_it(language):
    text = f"{ATTRIBUTIONS[language]}\n{QUOTE}\nmoney L\n"
    assert reply_lines(text) == ["money L"]


@pytest.mark.parametrize("language", sorted(ATTRIBUTIONS))
def test_a_reply_over_the_quote_ends_at_the_attribution(language):
    text = f"money L\n\n{ATTRIBUTIONS[language]}\n{QUOTE}\nSent from my phone\n"
    assert reply_lines(text) == ["money L"]


@pytest.mark.parametrize(
    "attribution",
    [
        # Gmail's wrapping, the address broken off
        "On Mon, Oct 24, 2016 at 3:36 PM, Ann Example <\nann@example.com> wrote:",
        # the wrapping put the end at the start of a line: it looks quoted
        "On Mon, Oct 24, 2016 at 3:36 PM, Ann Example <ann@example.com\n> wrote:",
        # a blank line inside the attribution
        "On Mon, Oct 24, 2016 at 3:36 PM, Ann Example\n\n<ann@example.com> wrote:",
        "Am Mo., 24. Okt. 2016 um 15:36 Uhr schrieb Ann Example <\nann@example.com>:",
        "pon., 24 paź 2016 o 15:36 Ann Example <ann@example.com>\nnapisał(a):",
        '02.04.2012 14:20 пользователь "ann@example.com" <\nann@example.com> написал:',
        "2016-10-24 15:36 GMT+02:00 Ann Example <\nann@example.com>:",
        "Le lun. 24 oct. 2016 à 15:36, Ann Example <ann@example.com>\na écrit :",
        "On Mon, Oct 24, 2016 at 3:36 PM,\nAnn Example <ann@example.com>\nwrote:",
    ],
)
def test_a_wrapped_attribution_is_passed_over_whole(attribution):
    assert reply_lines(f"{attribution}\n{QUOTE}\nmoney L\n") == ["money L"]
    assert reply_lines(f"money L\n{attribution}\n{QUOTE}") == ["money L"]


@pytest.mark.parametrize(
    "block",
    [
        "From: Mall <play@example.org>\nSent: Monday, October 24, 2016 3:36 PM\nTo: Ann",
        "Von: Mall <play@example.org>\nGesendet: Montag, 24. Oktober 2016 15:36\nAn: Ann\n"
        "Betreff: Dein Zug",
        "Gesendet: Montag, 24. Oktober 2016 um 15:36 Uhr\nVon: play@example.org\nAn: Ann",
        "De : Mall <play@example.org>\nEnvoyé : lundi 24 octobre 2016 15:36\nÀ : Ann\n"
        "Objet : À vous",
        "De: Mall <play@example.org>\nEnviado el: lunes, 24 de octubre de 2016 15:36\n"
        "Para: Ann\nAsunto: Tu turno",
        "Van: Mall <play@example.org>\nVerzonden: maandag 24 oktober 2016 15:36\nAan: Ann\n"
        "Onderwerp: Jouw beurt",
        "Da: Mall <play@example.org>\nInviato: lunedì 24 ottobre 2016 15:36\nA: Ann\n"
        "Oggetto: Tocca a te",
        "De: Mall <play@example.org>\nEnviada em: segunda-feira, 24 de outubro de 2016\n"
        "Para: Ann\nAssunto: Sua vez",
        "Od: Mall <play@example.org>\nWysłano: poniedziałek, 24 października 2016 15:36\n"
        "Do: Ann\nTemat: Twój ruch",
        "От: Mall <play@example.org>\nОтправлено: 24 октября 2016 г. 15:36\nКому: Ann",
        "Från: Mall <play@example.org>\nSkickat: den 24 oktober 2016 15:36\nTill: Ann",
        "Lähettäjä: Mall <play@example.org>\nLähetetty: 24. lokakuuta 2016 15.36",
        "Kimden: Mall <play@example.org>\nGönderildi: 24 Ekim 2016 Pazartesi 15:36",
        "差出人: Mall <play@example.org>\n送信日時: 2016年10月24日 15:36",
        "发件人: Mall <play@example.org>\n发送时间: 2016年10月24日 15:36",
        "*From:* Mall <play@example.org>\n*Sent:* Monday, October 24, 2016 3:36 PM",
        "-----Original Message-----",
        "-----Ursprüngliche Nachricht-----",
        "-----Message d'origine-----",
        "-----Mensaje original-----",
        "-----Oorspronkelijk bericht-----",
        "-----Messaggio originale-----",
        "-----Mensagem original-----",
        "-----Wiadomość oryginalna-----",
        "-----Исходное сообщение-----",
        "-----Původní zpráva-----",
        "-----Ursprungligt meddelande-----",
        "-----Alkuperäinen viesti-----",
        "---------- Forwarded message ---------",
        "________________________________",
        "Begin forwarded message:",
    ],
)
def test_an_original_block_ends_the_reply_and_nothing_under_it_is_read(block):
    original = f"{block}\n\nIt is your turn.\nYour legal actions:\n  money R\n"
    assert reply_lines(f"money L\n\n{original}") == ["money L"]
    # nothing written above it: the unquoted original is never read for a command
    assert reply_lines(f"Hi,\n\n{original}\nmoney L\n") == []


def test_an_attribution_with_no_quote_under_it_stops_the_reading():
    # the original was left unquoted (or in a box the reader does not know)
    text = "On Mon, Oct 24, 2016, Ann Example wrote:\n\nmoney R\n\nmoney L\n"
    assert reply_lines(text) == []


def test_a_line_written_right_over_an_attribution_stays_the_reply():
    assert reply_lines(f"money L\nAnn Example napisał(a):\n{QUOTE}") == ["money L"]
    assert reply_lines(f"build L2 at 1,3\n24.10.2016 15:36, Ann пишет:\n{QUOTE}") == [
        "build L2 at 1,3"
    ]


def test_an_html_reply_under_an_apple_mail_quote_plays_the_line_under_it():
    html = (
        "<html><body><div>On 24 Oct 2016, at 15:36, Mall &lt;play@example.org&gt; wrote:</div>"
        "<blockquote type='cite'><div>Your legal actions:</div><div>money R</div>"
        "</blockquote><div>money L</div></body></html>"
    )
    assert reply_lines(html_text(html)) == ["money L"]


@pytest.mark.parametrize(
    "greeting",
    [
        "Hey:)",
        "Hi!!",
        "Hello :-)",
        "Hallo!",
        "Hola,",
        "Bonjour :)",
        "Hi Ann 👋",
        "Hello Mall,",
        "Hi, Ben!",
        "Hej ;-)",
        "Привет!",
        "Ciao a tutti :D",
        "Hi 👋🏽",
        "Dear all,",
        "Good morning ❤️",
    ],
)
def test_a_greeting_with_emoticons_or_punctuation_is_passed_over(greeting):
    assert reply_lines(f"{greeting}\n\nmoney L\n\n{ATTRIBUTIONS['en']}\n{QUOTE}") == ["money L"]


@pytest.mark.parametrize("line", ["money L", "build L2 at 1,3", "status", "say hi :)"])
def test_a_command_is_no_greeting(line):
    assert reply_lines(f"{line}\nmoney R\n") == [line, "money R"]


def test_a_reply_is_read_up_to_max_lines():
    text = "money L\n" + "".join(f"line {n}\n" for n in range(MAX_LINES * 3))
    kept = reply_lines(text)
    assert len(kept) == MAX_LINES and kept[-1] == f"line {MAX_LINES - 2}"


def test_a_command_with_a_colon_over_a_quote_stays_the_command():
    assert reply_lines(f"status:\n{QUOTE}") == ["status:"]
