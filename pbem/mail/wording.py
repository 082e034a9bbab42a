"""How a mail words what it tells: moments and time left as people say them, and a
plain-text part that reads at 72 columns (players' names and "you" come with the
service's sentences)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def when(moment: datetime) -> str:
    """A moment as a mail says it: "Tue 3 Dec 14:00 UTC"."""
    moment = moment.astimezone(UTC)
    return f"{moment:%a} {moment.day} {moment:%b %H:%M} UTC"


def time_left(left: timedelta) -> str:
    """How long is left, in the two largest units: "2 days 4 hours", "35 minutes"."""
    minutes = max(int(left.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    units = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    said = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in units if n]
    return " ".join(said[:2]) if said else "no time"


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
