"""How a mail words what it tells, in its reader's language: moments and time left
as people say them, names listed with "and", and a plain-text part that reads at 72
columns (players' names and "you" come with the service's sentences)."""

from __future__ import annotations

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


def fit_72(text: str) -> str:
    """The text part wrapped at 72 columns for every client: a longer line is
    broken at spaces and goes on indented as it began, two more (a word longer
    than a line, such as a URL, is never broken)."""
    lines: list[str] = []
    for line in text.splitlines():
        if len(line) <= 72:
            lines.append(line)
        else:
            lines += _wrapped(line)
    return "\n".join(lines) + "\n"


def _wrapped(line: str) -> list[str]:
    """A long line broken at its last space before column 72 (its spacing kept,
    so that "money L  (takes ..." still reads as the move and what it does)."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    out: list[str] = []
    rest = line
    while len(rest) > 72:
        cut = rest.rfind(" ", len(indent) + 1, 73)
        if cut <= len(indent) + 2:  # one long word (a URL): it stays whole
            cut = rest.find(" ", 73)
            if cut == -1:
                break
        out.append(rest[:cut].rstrip(" "))
        rest = indent + "  " + rest[cut:].lstrip(" ")
    out.append(rest)
    return out
