"""What a received mail's headers say, read so that no header can make it fail:
raw values (unfolded, not decoded), decoded text, the one sender, the recipients,
whether the mail is automatic, and whether the receiving server authenticated its
sender (Authentication-Results, RFC 8601)."""

from __future__ import annotations

import logging
import re
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import getaddresses

from pbem.mail import authresults
from pbem.service.addresses import address_key, domain_key

log = logging.getLogger(__name__)
_warned = False  # whether this process said that PBEM_AUTHSERV_ID is not set

_ADDR_SPEC = re.compile(r"[^\s@<>()\[\],;:\"\\]{1,64}@[^\s@<>()\[\],;:\"\\]{1,253}")


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
    it asks for no automatic answer rather than saying the mail is one: see
    `no_answers`."""
    auto = text(first(message, "Auto-Submitted") or "no").lower()
    if auto != "no":
        return f"an automatic mail (Auto-Submitted: {auto[:40]})"
    precedence = text(first(message, "Precedence")).lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"a mail of precedence {precedence}"
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


def no_answers(message: EmailMessage) -> bool:
    """Whether the sender asks for no automatic answers (Microsoft's
    X-Auto-Response-Suppress naming All or AutoReply): the mail is read and acted on
    as any other, but this server's answer to it (an automatic reply) is not sent,
    so an autoresponder that marks its mails with this header alone starts no loop."""
    words = {
        w.strip().lower() for v in raw(message, "X-Auto-Response-Suppress") for w in v.split(",")
    }
    return bool(words & {"all", "autoreply"})


def authenticated(message: EmailMessage, sender: str, authserv_id: str = "") -> bool:
    """Whether the topmost Authentication-Results header (RFC 8601: the one our own
    receiving server added; those below it came with the mail and prove nothing)
    says dkim, spf or dmarc passed for the From address's domain. With
    `authserv_id` (PBEM_AUTHSERV_ID) it counts only when that header names our
    server; a header that cannot be read counts as no pass."""
    global _warned
    if not authserv_id and not _warned:
        _warned = True
        log.warning(
            "a game takes only authenticated mail but PBEM_AUTHSERV_ID is not set: the "
            "topmost Authentication-Results header counts whoever it names; set "
            "PBEM_AUTHSERV_ID to the authserv-id your receiving mail server writes"
        )
    found = raw(message, "Authentication-Results")
    if not found:
        return False
    try:
        header = authresults.parse(found[0])
    except authresults.Malformed:
        return False
    if authserv_id and domain_key(header.authserv_id) != domain_key(authserv_id):
        return False
    domain = domain_key(sender.rpartition("@")[2])
    return any(_passes_for(result, domain) for result in header.results)


# The property whose domain a method's pass is for (RFC 8601 section 2.7): the
# first one the result has, in this order.
_SIGNERS = {
    "dkim": ("header.d", "header.i"),
    "spf": ("smtp.mailfrom",),
    "dmarc": ("header.from",),
}


def _passes_for(result: authresults.Result, domain: str) -> bool:
    """Whether `result` is a pass of dkim, spf or dmarc for `domain` (or a domain
    above it): its signer's property must name one domain, outside any quoted
    string, and only one (a property given twice with two domains is no pass)."""
    if result.result != "pass" or result.method not in _SIGNERS:
        return False
    for name in _SIGNERS[result.method]:
        values = result.values(name)
        if not values:
            continue
        signers = {domain_key(v.domain() or "") for v in values}
        if len(signers) != 1 or "" in signers:
            return False
        signer = signers.pop()
        return domain == signer or domain.endswith("." + signer)
    return False
