"""Read an Authentication-Results header value (RFC 8601) with a real tokenizer:
quoted strings and nested comments (CFWS) are read as RFC 5322 defines them, so
text inside them never becomes a method, a result or a property.

Why not the `authres` package (the parser on PyPI, 1.2.0 of 2019): on hostile
input it raises RecursionError on deeply nested comments (its comment reader is
recursive), takes time quadratic in the header's length (it re-slices the rest of
the text at every token: 250 KB of results take seconds), silently accepts an
unterminated quoted string in a property (it swallows its own errors there), and
refuses UTF-8 (RFC 6532). `authheaders` is built on it. This reader is one pass
over the text, its comment depth a counter, and it raises only `Malformed`.

The grammar is RFC 8601's (section 2.2), read strictly where it matters and
leniently where real servers differ: Exchange Online writes no authserv-id
(its header starts with a result: `authserv_id` is then ""), and Microsoft and
Fastmail write properties without a ptype (`action=none`, `x-bits=2048`), which
are kept under their bare name; a value runs to the next space, comment or ";"
and may hold "/" and "=" (a base64 `header.b`). Anything else that does not fit
is `Malformed`."""

from __future__ import annotations

from dataclasses import dataclass

# Single characters that are tokens of their own; everything else that is no
# space, no control and none of these is part of an atom (RFC 6532: UTF-8 too).
_SPECIALS = frozenset(';=./@<>[]:,\\"()')
_SPACE = frozenset(" \t\r\n")


class Malformed(ValueError):
    """The header value does not follow RFC 8601's grammar."""


@dataclass(frozen=True)
class Token:
    kind: str  # "atom", "quoted", or the special character itself
    text: str  # an atom as written; a quoted string's content, unescaped
    spaced: bool  # whitespace or a comment came just before it


@dataclass(frozen=True)
class Value:
    """A property's value: its tokens as read (a quoted string stays one token)."""

    tokens: tuple[Token, ...]

    def domain(self) -> str | None:
        """The domain the value names: the part after its last "@" (or the whole
        value when it has none), only when that part is atoms and dots outside any
        quoted string: a domain inside a quoted string or a comment counts for none."""
        tokens = list(self.tokens)
        ats = [i for i, t in enumerate(tokens) if t.kind == "@"]
        if ats:
            tokens = tokens[ats[-1] + 1 :]
        if not tokens or any(t.kind not in ("atom", ".") for t in tokens):
            return None
        text = "".join(t.text for t in tokens)
        labels = text.split(".")
        if any(not label for label in labels):
            return None
        return text

    def __str__(self) -> str:
        return "".join(f'"{t.text}"' if t.kind == "quoted" else t.text for t in self.tokens)


@dataclass(frozen=True)
class Result:
    """One resinfo: `method=result`, its reason and properties (`ptype.property`,
    lower case, in the order written; a name may come more than once)."""

    method: str
    result: str
    reason: str | None
    properties: tuple[tuple[str, Value], ...]

    def values(self, name: str) -> list[Value]:
        return [value for key, value in self.properties if key == name]


@dataclass(frozen=True)
class Header:
    authserv_id: str  # lower case; "" when the header names none
    version: str | None
    results: tuple[Result, ...]  # empty for `none`


def tokens(value: str) -> list[Token]:
    """The value's tokens, comments (nested to any depth) and spaces left out."""
    found: list[Token] = []
    i, n = 0, len(value)
    spaced = False
    while i < n:
        c = value[i]
        if c in _SPACE:
            spaced = True
            i += 1
        elif c == "(":
            i = _comment_end(value, i)
            spaced = True
        elif c == '"':
            text, i = _quoted(value, i)
            found.append(Token("quoted", text, spaced))
            spaced = False
        elif c == ")":
            raise Malformed("a comment closed that was never opened")
        elif c in _SPECIALS:
            found.append(Token(c, c, spaced))
            spaced = False
            i += 1
        elif _control(c):
            raise Malformed("a control character")
        else:
            start = i
            while i < n and not (value[i] in _SPECIALS or value[i] in _SPACE or _control(value[i])):
                i += 1
            found.append(Token("atom", value[start:i], spaced))
            spaced = False
    return found


def _control(c: str) -> bool:
    return c < " " or c == "\x7f"


def _comment_end(value: str, i: int) -> int:
    """Where the comment opening at `i` ends (just past its closing parenthesis)."""
    depth = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Malformed("a comment that is never closed")


def _quoted(value: str, i: int) -> tuple[str, int]:
    """The content of the quoted string opening at `i` (quoted pairs undone) and
    where it ends."""
    out: list[str] = []
    i += 1
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\":
            if i + 1 >= n:
                break
            out.append(value[i + 1])
            i += 2
        elif c == '"':
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise Malformed("a quoted string that is never closed")


class _Reader:
    def __init__(self, value: str) -> None:
        self.tokens = tokens(value)
        self.at = 0

    def peek(self, ahead: int = 0) -> Token | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, kind: str) -> Token:
        token = self.peek()
        if token is None or token.kind != kind:
            raise Malformed(f"expected {kind!r}")
        self.at += 1
        return token

    def is_next(self, kind: str) -> bool:
        token = self.peek()
        return token is not None and token.kind == kind

    def dotted(self) -> str:
        """atom *("." atom) written without space: a domain, a dotted keyword."""
        parts = [self.take("atom").text]
        while self.is_next(".") and not self.tokens[self.at].spaced:
            dot = self.peek(1)
            if dot is None or dot.kind != "atom" or dot.spaced:
                raise Malformed("a dot with no label after it")
            self.at += 2
            parts.append(dot.text)
        return ".".join(parts)

    def header(self) -> Header:
        authserv_id, version = "", None
        if not self.starts_with_result():  # (Exchange Online names no authserv-id)
            authserv_id = self.take("quoted").text if self.is_next("quoted") else self.dotted()
            if not authserv_id:
                raise Malformed("an empty authserv-id")
            token = self.peek()
            if token is not None and token.kind == "atom" and token.text.isdigit():
                version = token.text
                self.at += 1
            self.take(";")
            token = self.peek()
            if token is not None and token.kind == "atom" and token.text.lower() == "none":
                self.at += 1
                if self.peek() is not None:
                    raise Malformed("text after 'none'")
                return Header(authserv_id.lower(), version, ())
        results: list[Result] = []
        while self.peek() is not None:
            results.append(self.resinfo())
            if self.peek() is None:
                break
            self.take(";")
            while self.is_next(";"):  # an empty resinfo, as some servers leave
                self.at += 1
        if not results:
            raise Malformed("no result")
        return Header(authserv_id.lower(), version, tuple(results))

    def starts_with_result(self) -> bool:
        """Whether the header opens with `method=` or `method/version` (an
        authserv-id, a token, can hold neither "=" nor "/")."""
        second = self.peek(1)
        return self.is_next("atom") and second is not None and second.kind in ("=", "/")

    def resinfo(self) -> Result:
        method = self.take("atom").text.lower()
        if self.is_next("/"):
            self.at += 1
            if not self.take("atom").text.isdigit():
                raise Malformed("a method version that is no number")
        self.take("=")
        result = self.take("atom").text.lower()
        reason: str | None = None
        properties: list[tuple[str, Value]] = []
        while self.peek() is not None and not self.is_next(";"):
            name = self.take("atom").text.lower()
            if self.is_next("."):
                self.at += 1
                name = f"{name}.{self.take('atom').text.lower()}"
            self.take("=")
            value = self.pvalue()
            if name == "reason" and reason is None and not properties:
                reason = str(value)
            else:
                properties.append((name, value))
        return Result(method, result, reason, tuple(properties))

    def pvalue(self) -> Value:
        """The tokens up to the next space, comment or ";" (the first one may be
        spaced: RFC 8601 allows CFWS before a value)."""
        found: list[Token] = []
        while True:
            token = self.peek()
            if (
                token is None
                or token.kind == ";"
                or (found and token.spaced)
                or token.kind not in ("atom", "quoted", "@", ".", "/", "=")
            ):
                break
            found.append(token)
            self.at += 1
        return Value(tuple(found))


def parse(value: str) -> Header:
    """The header value read; Malformed when it does not follow the grammar."""
    return _Reader(value).header()
