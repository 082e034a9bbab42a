"""How a mail words what it tells, in its reader's language: moments and time left
as people say them, names listed with "and", and a plain-text part in format=flowed
that reads at 72 columns (players' names and "you" come with the service's sentences)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from babel.numbers import format_decimal

from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import ngettext


def when(moment: datetime) -> str:
    """A moment as a mail says it: "Tue 3 Dec 14:00 UTC", "Di. 3. Dez. 14:00 UTC"."""
    return i18n.moment(moment)


def time_left(left: timedelta) -> str:
    """How long is left, in the two largest units: "2 days 4 hours", "35 minutes",
    "2 Tage 4 Stunden"."""
    minutes = max(int(left.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    said = [
        said
        for n, said in (
            (days, ngettext("%(num)d day", "%(num)d days", days)),
            (hours, ngettext("%(num)d hour", "%(num)d hours", hours)),
            (minutes, ngettext("%(num)d minute", "%(num)d minutes", minutes)),
        )
        if n
    ]
    return " ".join(said[:2]) if said else _("no time")


def together(names: Iterable[object]) -> str:
    """Names (or numbers) one after another with "and": "Ann and Ben and Cy"."""
    listed = [str(name) for name in names]
    if not listed:
        return ""
    said = listed[0]
    for name in listed[1:]:
        said = _("%(first)s and %(second)s", first=said, second=name)
    return said


def number(value: float) -> str:
    """A number as the reader writes it: "2.5" in English (as Python's `g` format
    has it), "2,5" in German."""
    if i18n.language() == i18n.DEFAULT:
        return f"{value:g}"
    return format_decimal(value, format="0.######", locale=i18n.locale())


WIDTH = 72  # the columns a text part's lines keep to (a word longer stays whole)
_WORDS = re.compile(r"\S+\s*")
_MARKER = re.compile(r"(?:[-*•]|\d+\.|\(\w\))\s+")


def flowed(text: str) -> str:
    """The text part as format=flowed (RFC 3676, delsp=no) at 72 columns: a line
    of prose (one that begins at the margin) is wrapped with soft line breaks (a
    space at the end of each of its lines but the last), so that a client that
    knows the format reflows it to its width and one that does not shows it
    wrapped, with no line indented; an indented line (a list item, a move and
    what it does, the position) keeps its indent and goes on under its text after
    hard breaks; every line that begins with a space, ">" or "From " is stuffed
    with one space (the reader takes it off again); a word longer than a line,
    such as a URL, is never broken."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.rstrip(" ") == "--":
            lines.append("-- ")  # the signature's separator, the one line that ends in a space
            continue
        line = line.rstrip()  # a space at the end would make the break a soft one
        body = line.lstrip(" ")
        pieces = _prose(body) if body == line else _hanging(line, len(line) - len(body))
        lines += [_stuffed(piece) for piece in pieces]
    return "\n".join(lines) + "\n"


def unflowed(text: str) -> list[str]:
    """The lines a reader of format=flowed (delsp=no) sees in `text` before it
    wraps them to its width: each line unstuffed, a soft line break joined."""
    lines: list[str] = []
    joining = False
    for line in text.splitlines():
        if line != "-- " and line.startswith(" "):
            line = line[1:]
        if joining:
            lines[-1] += line
        else:
            lines.append(line)
        joining = line.endswith(" ") and line != "-- "
    return lines


def _prose(line: str) -> list[str]:
    """A line of prose cut at spaces into lines of at most WIDTH columns (each but
    the last ending in the space it was cut after, the soft break, counted in)."""
    if len(line) <= WIDTH:
        return [line]
    out: list[str] = []
    current = ""
    for word in _WORDS.findall(line):
        if current and len(current) + len(word) > WIDTH:  # its soft break's space too
            out.append(current)
            current = word
        else:
            current += word
    out.append(current)
    return out


def _hanging(line: str, indent: int) -> list[str]:
    """An indented line cut at spaces into lines of at most WIDTH columns once
    stuffed (one less before), each one
    after the first under the text of the first (after a list item's "-", "1."),
    or two columns further in; the breaks are hard (no space at a line's end)."""
    if len(line) < WIDTH:  # stuffed, it is one longer
        return [line]
    marker = _MARKER.match(line, indent)
    under = " " * (marker.end() if marker else indent + 2)
    out: list[str] = []
    current = line[:indent]
    for word in _WORDS.findall(line, indent):
        if current.strip() and len(current) + len(word.rstrip()) >= WIDTH:
            out.append(current.rstrip())
            current = under + word
        else:
            current += word
    out.append(current.rstrip())
    return out


def _stuffed(line: str) -> str:
    """A line as format=flowed writes it: one space before a line that begins with
    a space, ">" or "From " (RFC 3676, 4.4)."""
    return " " + line if line.startswith((" ", ">", "From ")) else line
