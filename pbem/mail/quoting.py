"""What mail programs write around a reply, in the languages they speak: the
attribution line above a quote ("On ... wrote:", "Am ... schrieb ...:", "... 写道："),
the line or header block above an original kept unquoted ("-----Original
Message-----", "From:/Sent:/To:/Subject:" and its translations), mobile footers and
greetings. The patterns were gathered from the mail programs' own wording and from
mail-parser-reply (MIT), quotequail (MIT) and talon (Apache 2.0), whose lists cover
fewer languages; no pattern is copied verbatim."""

from __future__ import annotations

import re
import unicodedata

# Direction marks that right-to-left mail programs put around names and addresses.
_MARKS = dict.fromkeys([0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_COLON = r"\s*[:：]"
_LONGEST = 600  # characters of the longest line (or wrapped lines) read as a header
_ADDRESS = r"[^\s<>@()\[\]]+@[^\s<>@()\[\]]+"

# An attribution: the whole line (or the lines of a wrapped one, joined) matches.
_ATTRIBUTIONS = [
    rf"on\b.{{4,300}}wrote{_COLON}",  # English
    rf"le\b.{{4,300}}a\s+écrit{_COLON}",  # French
    rf"am\b.{{4,300}}schrieb\b.{{0,200}}{_COLON}",  # German
    rf".{{2,300}}\bschrieb\s+am\b.{{0,200}}{_COLON}",  # German: "Ann schrieb am ..."
    rf".{{2,300}}\bhat\s+am\b.{{2,200}}geschrieben{_COLON}",  # German webmails
    rf"el\b.{{4,300}}escribió{_COLON}",  # Spanish
    rf"op\b.{{4,300}}\b(schreef|geschreven|verzond)\b.{{0,200}}{_COLON}",  # Dutch
    rf"il\b.{{4,300}}ha\s+scritto{_COLON}",  # Italian
    rf".{{2,300}}\bescreveu{_COLON}",  # Portuguese
    rf".{{2,300}}\bnapisał(\(a\)|a)?{_COLON}",  # Polish
    rf".{{2,300}}\bnaps(a|á)l(\(a\)|a)?{_COLON}",  # Czech, Slovak
    rf".{{2,300}}\bnapísal(\(a\)|a)?{_COLON}",  # Slovak
    rf".{{2,300}}\b(пишет|написал(\(а\)|а)?){_COLON}",  # Russian
    rf".{{2,300}}\b(пише|писав(\(ла\)|ла)?|написав(\(ла\)|ла)?){_COLON}",  # Ukrainian
    rf".{{2,300}}\bskrev\b.{{0,200}}{_COLON}",  # Swedish, Danish, Norwegian
    rf".{{2,300}}\bkirjoitti{_COLON}",  # Finnish
    rf".{{2,300}}\b(ezt\s+)?írta\b.{{0,200}}{_COLON}",  # Hungarian
    rf".{{2,300}}\b(şunu\s+)?yazdı{_COLON}",  # Turkish
    rf".{{2,300}}\bέγραψε{_COLON}",  # Greek
    rf".{{2,300}}(書きました|のメッセージ|さんは書きました){_COLON}",  # Japanese
    rf".{{2,300}}(写道|寫道){_COLON}",  # Chinese
    rf".{{2,300}}(작성|작성하였습니다|님이\s*씀){_COLON}",  # Korean
    rf".{{2,300}}(כתב|כתבה|כתב/ה){_COLON}",  # Hebrew
    rf".{{0,300}}\bكتب\b.{{1,300}}{_COLON}",  # Arabic
    rf".{{2,300}}\ba\s+scris{_COLON}",  # Romanian
    rf".{{2,300}}\bmenulis{_COLON}",  # Indonesian, Malay
    rf".{{2,300}}\bđã\s+viết{_COLON}",  # Vietnamese
    rf".{{2,300}}\bsumulat\b.{{0,200}}{_COLON}",  # Filipino
]
_ATTRIBUTION = re.compile("|".join(f"(?:{p})" for p in _ATTRIBUTIONS), re.I)
# Or a date, then whoever wrote it with an address, then a colon (Gmail in Russian,
# Japanese, Hebrew...; "2016-10-24 15:36 GMT+02:00 Ann <ann@example.com>:").
_ADDRESSED = re.compile(rf"[<(]?{_ADDRESS}[>)]?{_COLON}$")

_OPENING = re.compile(r"\d[:.]\d\d|\b(19|20)\d\d\b")

# A line above an original that follows unquoted (Outlook, Yahoo, forwards).
_ORIGINALS = (
    "original message|reply message|forwarded message|ursprüngliche nachricht|"
    "weitergeleitete nachricht|message d'origine|message d’origine|message original|"
    "message transféré|mensaje original|mensaje reenviado|oorspronkelijk bericht|"
    "origineel bericht|doorgestuurd bericht|messaggio originale|messaggio inoltrato|"
    "mensagem original|mensagem encaminhada|wiadomość oryginalna|oryginalna wiadomość|"
    "wiadomość przekazana dalej|původní zpráva|přeposlaná zpráva|pôvodná správa|"
    "исходное сообщение|оригинальное сообщение|пересылаемое сообщение|"
    "вихідне повідомлення|оригінальне повідомлення|ursprungligt meddelande|"
    "vidarebefordrat meddelande|oprindelig meddelelse|videresendt meddelelse|"
    "opprinnelig melding|videresendt melding|alkuperäinen viesti|välitetty viesti|"
    "eredeti üzenet|továbbított üzenet|özgün ileti|orijinal mesaj|iletilen ileti|"
    "αρχικό μήνυμα|προωθημένο μήνυμα|原始邮件|原始郵件|转发的邮件|元のメッセージ|"
    "転送メッセージ|원본 메시지|전달된 메시지|ההודעה המקורית|הודעה שהועברה|"
    "الرسالة الأصلية|رسالة مُعاد توجيهها|mesaj original|mesajul original|pesan asli|thư gốc"
)
_ORIGINAL = re.compile(rf"-{{2,}}\s*({_ORIGINALS})\s*-{{2,}}|_{{8,}}|-{{8,}}", re.I)
_FORWARDED = re.compile(
    r"(begin forwarded message|anfang der weitergeleiteten (e-mail|nachricht)|"
    r"début du message (réexpédié|transféré)|inicio del mensaje reenviado|"
    r"begin doorgestuurd bericht|inizio messaggio inoltrato|início da mensagem reencaminhada)"
    rf"{_COLON}",
    re.I,
)

# The fields of the header block Outlook and webmails put above an unquoted original.
_FIELDS = (
    "from|sent|date|to|cc|subject|reply-to|von|gesendet|datum|an|betreff|antwort an|"
    "de|envoyé|envoyé le|à|a|objet|date d'envoi|enviado|enviado el|enviada em|fecha|"
    "para|asunto|data|assunto|van|verzonden|aan|onderwerp|da|inviato|oggetto|od|"
    "wysłano|wysłane|do|dw|temat|odesláno|odoslané|komu|kopie|předmět|predmet|"
    "от|отправлено|дата|кому|копия|тема|від|надіслано|копія|från|skickat|till|kopia|"
    "ämne|fra|sendt|dato|til|kopi|emne|lähettäjä|lähetetty|päivämäärä|vastaanottaja|"
    "kopio|aihe|feladó|elküldve|dátum|címzett|másolatot kap|tárgy|kimden|gönderildi|"
    "gönderilme|tarih|kime|bilgi|konu|από|στάλθηκε|ημερομηνία|προς|κοιν|θέμα|"
    "差出人|送信日時|日付|宛先|件名|发件人|发送时间|日期|收件人|抄送|主题|寄件者|寄件日期|"
    "收件者|副本|主旨|보낸 사람|보낸 날짜|받는 사람|참조|제목|מאת|נשלח|תאריך|אל|עותק|נושא|"
    "من|أرسل|تم الإرسال|التاريخ|إلى|نسخة|الموضوع|de la|trimis|către|subiect|dari|"
    "dikirim|kepada|perihal|subjek|từ|đã gửi|đến|chủ đề"
)
_FIELD = re.compile(rf"\*?({_FIELDS})\*?{_COLON}\*?(\s.*)?", re.I)
_FROM = re.compile(r"\*?from\*?:\*?\s.+", re.I)  # English Outlook's "From:" alone

# Footers mobile mail programs add under what was written.
_FOOTER = re.compile(
    r"(sent from my|sent from|get outlook for|gesendet von meinem|von meinem .{1,40} gesendet|"
    r"envoyé de mon|envoyé depuis|enviado desde mi|enviado do meu|enviado de meu|"
    r"verzonden (vanaf|met) mijn|inviato da|wysłane z (mojego )?|wysłano z|"
    r"odesláno z|отправлено с|надіслано з|skickat från|sendt fra|lähetetty|"
    r"elküldve|gönderildi|στάλθηκε από|发自我的|從我的|送信元|에서 보냄)\b.{0,60}",
    re.I,
)

_GREETING_WORDS = (
    "hi|hello|hey|heya|hiya|howdy|yo|dear|greetings|good\\s+(morning|afternoon|evening|day)|"
    "hallo|hi there|moin|servus|grüß gott|guten (morgen|tag|abend)|liebe|lieber|"
    "bonjour|bonsoir|salut|coucou|cher|chère|hola|buenos días|buenas( tardes| noches)?|"
    "querido|querida|ciao|salve|buongiorno|buonasera|caro|cara|olá|ola|oi|bom dia|"
    "boa tarde|hoi|hey hallo|goedemorgen|goedemiddag|beste|hej|hejsan|hei|moi|terve|"
    "cześć|dzień dobry|witam|ahoj|dobrý den|привет|здравствуйте|добрый день|"
    "привіт|вітаю|доброго дня|merhaba|selam|szia|sziasztok|jó napot|γεια( σας| σου)?|"
    "καλημέρα|こんにちは|你好|您好|안녕하세요|안녕|שלום|مرحبا|السلام عليكم|salam|namaste"
)
_GREETING = re.compile(rf"({_GREETING_WORDS})\b,?[\w\s'’.-]{{0,40}}", re.I)
_EMOTICON = re.compile(r"\s*([:;=8xX][-^'o]?[()\[\]DPpOo3/\\|*]+|<3|\^_?\^)$")


def plain(line: str) -> str:
    """The line without direction marks and with its spaces made single."""
    return " ".join(line.translate(_MARKS).split())


def attribution(text: str) -> bool:
    """Whether `text` (a line, or the lines of a wrapped one joined by spaces) says
    who wrote the quote under it."""
    if len(text) > 2 * _LONGEST:
        return False
    text = plain(text)
    if len(text) > _LONGEST or not text.endswith((":", "：")):
        return False
    if _ATTRIBUTION.fullmatch(text):
        return True
    addressed = _ADDRESSED.search(text) if "@" in text else None
    return addressed is not None and any(c.isdigit() for c in text[: addressed.start()])


def opening(line: str) -> bool:
    """Whether the line reads as the first piece of a wrapped attribution: it has an
    address, a time or a year, as no move has."""
    line = plain(line)
    return "@" in line or _OPENING.search(line) is not None


def original(line: str, following: str) -> bool:
    """Whether the line starts an original kept unquoted under the reply: an
    original-message or forwarded line, Outlook's rule, or a header block (a field
    line with another field line next, `following` being the next line written)."""
    if len(line) > 2 * _LONGEST:
        return False
    line = plain(line)
    if _ORIGINAL.fullmatch(line) or _FORWARDED.fullmatch(line) or _FROM.fullmatch(line):
        return True
    return bool(_FIELD.fullmatch(line) and _FIELD.fullmatch(plain(following)))


def footer(line: str) -> bool:
    """Whether the line is a mobile mail program's "Sent from my ..." footer."""
    return len(line) <= _LONGEST and _FOOTER.fullmatch(plain(line)) is not None


def greeting(line: str) -> bool:
    """Whether the line is only a greeting ("Hi,", "Hello Ann :-)", "Hallo!",
    "Hi Ann 👋"): words of greeting and a name, then punctuation, emoticons, emoji."""
    if len(line) > 80:
        return False
    core, before = plain(line), None
    while core != before:  # the decorations at its end, one by one
        before = core
        core = _EMOTICON.sub("", core)
        if core and _decoration(core[-1]):
            core = core[:-1].rstrip()
    return _GREETING.fullmatch(core) is not None


def _decoration(char: str) -> bool:
    """Punctuation, symbols (emoji among them), joiners and variation selectors."""
    kind = unicodedata.category(char)
    return kind[0] in "PS" or kind in ("Mn", "Cf")
