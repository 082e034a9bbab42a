"""Generated Authentication-Results headers: whatever the text, reading it raises
nothing but Malformed and deciding on it raises nothing; in a well-formed header
whose only mention of the seat's domain is text a sender wrote inside quoted
strings and comments, no pass is found for that domain, while the passes the
header does give (for the sender's own domain) are found."""

from __future__ import annotations

import contextlib
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_abuse_authentication_results import REAL

from pbem.mail import authresults, headers

from abuse import examples

OURS = "mx.pbem.test"
VICTIM = "ann@example.com"
ATTACKER = "eve@attacker.test"
FUZZ = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# What a sender puts into the parts of the header it controls.
_PIECES = [
    ";",
    "(",
    ")",
    '"',
    "\\",
    "=",
    ".",
    "@",
    " ",
    "\t",
    "dkim=pass",
    "spf=pass",
    "dmarc=pass",
    " header.d=",
    " header.i=@",
    " smtp.mailfrom=",
    " header.from=",
    "example.com",
    "EXAMPLE.COM",
    "ann@example.com",
    OURS,
]
PAYLOAD = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.characters(codec="utf-8", exclude_characters="\r\n")),
    max_size=30,
).map("".join)


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def comment(text: str, depth: int) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return "(" * depth + escaped + ")" * depth


@st.composite
def hidden(draw) -> str:
    """A sender's text in a comment (nested up to four deep)."""
    return comment(draw(PAYLOAD), draw(st.integers(1, 4)))


QUOTED = PAYLOAD.map(quoted)


SIGNERS = {"dkim": ("header.d", "header.i"), "spf": ("smtp.mailfrom",), "dmarc": ("header.from",)}


@st.composite
def resinfo(draw) -> tuple[str, bool]:
    """One result naming only attacker.test outside quotes and comments, and
    whether it is a pass for attacker.test."""
    method = draw(st.sampled_from(["dkim", "spf", "dmarc", "arc", "iprev", "DKIM", "Spf"]))
    result = draw(st.sampled_from(["pass", "fail", "none", "PASS", "softfail"]))
    parts = [f"{method}={result}"]
    if draw(st.booleans()):
        parts.append(f"reason={draw(QUOTED)}" if draw(st.booleans()) else draw(hidden()))
    signed = False
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 6))
        if kind == 0:
            parts.append("header.d=attacker.test")
            signed = signed or method.lower() == "dkim"
        elif kind == 1:
            parts.append("header.i=@attacker.test")
            signed = signed or method.lower() == "dkim"
        elif kind == 2:
            parts.append(f"smtp.mailfrom={draw(QUOTED)}@attacker.test")
            signed = signed or method.lower() == "spf"
        elif kind == 3:
            parts.append("header.from=Attacker.Test")
            signed = signed or method.lower() == "dmarc"
        elif kind == 4:
            parts.append(f"header.s={draw(QUOTED)}")
        elif kind == 5:
            parts.append(draw(hidden()))
        else:
            parts.append(f"policy.x={draw(QUOTED)} {draw(hidden())}")
    spaces = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    return spaces.join(parts), signed and result.lower() == "pass"


@st.composite
def header(draw) -> tuple[str, bool]:
    results = draw(st.lists(resinfo(), min_size=1, max_size=5))
    opening = draw(st.sampled_from([OURS, OURS.upper(), f"{OURS} 1", quoted(OURS)]))
    if draw(st.booleans()):
        opening += " " + draw(hidden())
    separator = draw(st.sampled_from(["; ", ";", " ;\t", ";  "]))
    value = opening + "".join(separator + text for text, _ in results)
    return value, any(passed for _, passed in results)


def message(value: str) -> EmailMessage:
    raw = f"Authentication-Results: {value}\r\nFrom: <{VICTIM}>\r\n\r\nmoney L\r\n"
    return BytesParser(policy=policy.default).parsebytes(raw.encode("utf-8"))


@FUZZ
@given(generated=header())
def test_a_domain_only_in_quoted_strings_and_comments_never_passes(generated):
    value, attacker_passes = generated
    authresults.parse(value)  # well formed: it is read, and not merely refused
    mail = message(value)
    for authserv_id in (OURS, ""):
        assert headers.authenticated(mail, VICTIM, authserv_id) is False
        assert headers.authenticated(mail, ATTACKER, authserv_id) is attacker_passes


HOSTILE = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=400),
    st.lists(
        st.one_of(st.sampled_from([*_PIECES, "none", "/", "1", "\x00", "\u2028"]), PAYLOAD),
        max_size=60,
    ).map("".join),
    st.integers(1, 20_000).map(lambda n: f"{OURS}; dkim=pass " + "(" * n + ")" * (n - 1)),
)


@FUZZ
@given(value=HOSTILE, authserv_id=st.sampled_from([OURS, ""]))
def test_any_text_is_read_or_malformed_and_never_raises_out(value, authserv_id):
    with contextlib.suppress(authresults.Malformed):
        authresults.parse(value)
    mail = message(value.replace("\r", " ").replace("\n", " "))
    assert headers.authenticated(mail, VICTIM, authserv_id) in (True, False)


@FUZZ
@given(
    sample=st.sampled_from(list(REAL.values())),
    edits=st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.sampled_from(_PIECES)), max_size=6),
)
def test_a_real_header_mangled_never_raises_out(sample, edits):
    authserv_id, value = sample
    for where, insert, piece in edits:
        at = int(where * len(value))
        value = value[:at] + piece + value[at:] if insert else value[:at] + value[at + 1 :]
    with contextlib.suppress(authresults.Malformed):
        authresults.parse(value)
    mail = message(value.replace("\r", " ").replace("\n", " "))
    assert headers.authenticated(mail, VICTIM, authserv_id or "") in (True, False)
