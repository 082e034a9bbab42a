"""What a received mail's headers say, read so that no header can make it fail:
raw values (unfolded, not decoded), decoded text, the one sender, the recipients,
whether the mail is automatic, and whether the receiving server authenticated its
sender (Authentication-Results, RFC 8601)."""

from __future__ import annotations

import re
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import getaddresses

from pbem.service.addresses import address_key, domain_key

_ADDR_SPEC = re.compile(r"[^\s@<>()\[\],;:\"\\]{1,64}@[^\s@<>()\[\],;:\"\\]{1,253}")
_METHOD = re.compile(
    r"^\s*(?P<method>[a-z0-9_-]+)\s*=\s*(?P<result>[a-z0-9_-]+)(?P<props>.*)$", re.I | re.S
)
_PROPERTY = re.compile(r"(?P<name>[a-z0-9_-]+\.[a-z0-9_-]+)\s*=\s*\"?(?P<value>[^\s\";]+)", re.I)


def unfolded(value: str) -> str:
    return re.sub(r"[\r\n]+", "", value)


def raw(message: EmailMessage, name: str) -> list[str]:
    """The header's values as they came (unfolded, encoded words not decoded; raw
    UTF-8, as RFC 6532 allows, read as text): reading them can never fail."""
    return [unfolded(_utf8(str(v))) for k, v in message.raw_items() if k.lower() == name.lower()]


def _utf8(value: str) -> str:
    """A header value with the bytes the parser kept as they were (non-ASCII bytes
    come out of it as lone surrogates) read as UTF-8; a byte that is no UTF-8
    becomes U+FFFD."""
    if value.isascii():
        return value
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no parser of bytes makes
        return value.encode("utf-8", "replace").decode("utf-8")


def first(message: EmailMessage, name: str) -> str:
    found = raw(message, name)
    return found[0] if found else ""


def text(value: str) -> str:
    """A header's text, its encoded words decoded where they can be, with every
    control character (an encoded CR or LF, say) made a space."""
    try:
        decoded = str(make_header(decode_header(value)))
    except Exception:  # an encoded word that does not decode: keep it as written
        decoded = value
    return " ".join("".join(c if c.isprintable() else " " for c in decoded).split())


def sender(message: EmailMessage) -> str | None:
    """The one address in From, if it is a plain address (no control characters, no
    spaces), in the form a seat's address is compared in (lower case, its domain in
    ASCII: see addresses.address_key); else None."""
    found = [a for _, a in getaddresses(raw(message, "From")) if a]
    if len(found) != 1 or not _ADDR_SPEC.fullmatch(found[0]) or not found[0].isprintable():
        return None
    return address_key(found[0])


def recipients(message: EmailMessage) -> list[str]:
    """Every address the mail says it was for, the delivery headers first."""
    headers = [
        *raw(message, "Delivered-To"),
        *raw(message, "X-Original-To"),
        *raw(message, "To"),
        *raw(message, "Cc"),
    ]
    return [address for _, address in getaddresses(headers)]


def automatic(message: EmailMessage, domain: str = "") -> str | None:
    """Why a mail must not be answered (it is automatic, a list's, or ours), or None.
    `domain` is this server's mail domain: an X-Loop naming it is our own loop.
    X-Auto-Response-Suppress is not read: Exchange sets it on its own automatic
    mails, but also on people's mails that passed a list or a transport rule, and
    it asks for no automatic answer rather than saying the mail is one."""
    auto = text(first(message, "Auto-Submitted") or "no").lower()
    if auto != "no":
        return f"an automatic mail (Auto-Submitted: {auto[:40]})"
    precedence = text(first(message, "Precedence")).lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"a {precedence} mail"
    for name in _AUTOMATIC:
        found = raw(message, name)
        if found and text(found[0]).lower() not in ("no", "false", "0"):
            return f"an automatic mail ({name})"
    if raw(message, "X-Pbem-Kind"):
        return "one of this server's own mails"
    loops = [text(v).lower() for v in raw(message, "X-Loop")]
    if domain and any(domain.lower() in loop for loop in loops):
        return "one of this server's own mails (X-Loop)"
    if raw(message, "List-Id") or raw(message, "List-Unsubscribe"):
        return "a mailing list's mail"
    senders = [a.lower() for _, a in getaddresses(raw(message, "From"))]
    if any(s.startswith(("mailer-daemon@", "postmaster@")) for s in senders) or (
        first(message, "Return-Path").strip() == "<>"
    ):
        return "a bounce"
    subject = text(first(message, "Subject")).lower().lstrip("[( ")
    if subject.startswith(_AUTOMATIC_SUBJECTS):
        return "an automatic reply (its subject)"
    return None


# Headers that autoresponders and other machines mark their mails with.
_AUTOMATIC = (
    "X-Autoreply",
    "X-Autorespond",
    "X-Autogenerated",
    "X-AutoReply-From",
    "X-Mail-Autoreply",
    "X-FC-MachineGenerated",
)
# How autoresponders begin their subjects, in the languages of the common ones.
_AUTOMATIC_SUBJECTS = (
    "auto:",
    "autoreply",
    "auto-reply",
    "auto reply",
    "automatic reply",
    "auto response",
    "autoresponse",
    "auto-response",
    "automated reply",
    "out of office",
    "out of the office",
    "abwesenheitsnotiz",
    "automatische antwort",
    "réponse automatique",
    "absence du bureau",
    "respuesta automática",
    "fuera de la oficina",
    "automatisch antwoord",
    "afwezigheidsbericht",
    "risposta automatica",
    "fuori sede",
    "resposta automática",
    "odpowiedź automatyczna",
    "automatická odpověď",
    "автоматический ответ",
    "автоматична відповідь",
    "automatiskt svar",
    "autosvar",
    "automatisk svar",
    "automaattinen vastaus",
    "automatikus válasz",
    "otomatik yanıt",
    "otomatik cevap",
    "αυτόματη απάντηση",
    "自动回复",
    "自動回覆",
    "自動応答",
    "自動返信",
    "자동 회신",
    "자동 응답",
    "תשובה אוטומטית",
    "رد تلقائي",
    "răspuns automat",
    "balasan otomatis",
)


def authenticated(message: EmailMessage, sender: str) -> bool:
    """Whether the topmost Authentication-Results header (RFC 8601: the one our own
    receiving server added; those below it came with the mail and prove nothing)
    says dkim, spf or dmarc passed for the From address's domain."""
    found = raw(message, "Authentication-Results")
    if not found:
        return False
    domain = domain_key(sender.rpartition("@")[2])
    text = re.sub(r"\([^()]*\)", " ", found[0])  # comments
    for resinfo in text.split(";")[1:]:
        match = _METHOD.match(resinfo)
        if match is None or match["result"].lower() != "pass":
            continue
        props = {p["name"].lower(): p["value"].lower() for p in _PROPERTY.finditer(match["props"])}
        method = match["method"].lower()
        if method == "dkim":
            signer = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
        elif method == "spf":
            signer = props.get("smtp.mailfrom", "").rpartition("@")[2]
        elif method == "dmarc":
            signer = props.get("header.from", "").rpartition("@")[2]
        else:
            continue
        signer = domain_key(signer) if signer else ""
        if signer and (domain == signer or domain.endswith("." + signer)):
            return True
    return False
