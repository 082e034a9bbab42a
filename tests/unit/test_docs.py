"""The repository documents itself: no tracked file points to a document outside it
(the design, rules and style documents that once lived beside the checkout), and
every relative link in docs/ and the README reaches a file of the repository (and,
into a Markdown file, one of its headings)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A name of one of the old outside documents, unless it is a path into docs/; the
# folder beside the checkout they lived in; the file of the published rules summary.
OUTSIDE = re.compile(
    r"(?<!docs/)\b(?:DESIGN|RULES|STYLE)\.md\b"
    r"|\.\./shared\b"
    r"|\bshared/(?:DESIGN|RULES|STYLE|seeds|hooks)\b"
    r"|\bseeds/\d{3}_[0-9a-f]{16}\.txt\b"
)
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def tracked() -> list[Path]:
    """The files git tracks in this checkout."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout, or no git: {error}")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def text_of(path: Path) -> str | None:
    """A file's text, or None for a binary file (or a file the index lists that the
    work tree no longer has)."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_references(text: str) -> list[str]:
    """Each line that points to a document outside the repository, numbered."""
    return [
        f"{n}: {line.strip()[:120]}"
        for n, line in enumerate(text.splitlines(), start=1)
        if OUTSIDE.search(line)
    ]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation (but - and _)
    dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings (outside code blocks)."""
    prose = FENCE.sub("", text)
    return {slug(m[1]) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, re.M)}


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def broken_links(path: Path, text: str) -> list[str]:
    """The relative links of a Markdown file (outside code) that reach no file of
    the repository, or no heading of the Markdown file they reach."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    targets = [m[1] for m in LINK.finditer(prose)] + [m[1] for m in REFERENCE.finditer(prose)]
    wrong = []
    for target in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # a URL (https:, mailto:), not a file of the repository
        name, _, anchor = target.partition("#")
        name = name.partition("?")[0]
        reached = (path.parent / name).resolve()
        if not name:
            if anchor not in anchors(text):
                wrong.append(f"{target}: no heading #{anchor} here")
        elif not reached.is_relative_to(ROOT):
            wrong.append(f"{target}: outside the repository")
        elif not reached.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and reached.suffix == ".md" and anchor not in anchors(_read(reached)):
            wrong.append(f"{target}: no heading #{anchor} in {reached.name}")
    return wrong


def markdown_documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_checks_see_what_they_check():
    files = tracked()
    assert ROOT / "pbem" / "games" / "base.py" in files
    assert ROOT / "docs" / "design.md" in markdown_documents()
    # a name of an outside document, bare or by the old folder, is found; a path
    # into docs/ is not
    outside = "RULES" + ".md section 11"
    assert outside_references(f"hidden (see {outside})") == [f"1: hidden (see {outside})"]
    assert outside_references("../" + "shared/" + "DESIGN" + ".md")
    assert outside_references("docs/DESIGN" + ".md") == []
    assert outside_references("docs/games/mall.md section 11, docs/design.md") == []
    # a link to a missing file, out of the repository or to a missing heading is
    # broken; a URL, a link in code and a link that resolves are not
    page = ROOT / "docs" / "page.md"
    text = (
        "# A page\n[ok](#a-page) [gone](missing.md) [out](../../../../etc/passwd)\n"
        "[here](#no-part) [up](../README.md#two-commands)\n"
        "[web](https://example.org/x.md) `[code](nothere.md)`\n"
        "```\n[fenced](nothere.md)\n```\n"
    )
    assert broken_links(page, text) == [
        "missing.md: no such file",
        "../../../../etc/passwd: outside the repository",
        "#no-part: no heading #no-part here",
    ]
    design = (ROOT / "docs" / "README.md").resolve()
    assert broken_links(design, "[d](design.md#layers-imports-point-down-only)") == []
    assert broken_links(design, "[d](design.md#no-such-part)") == [
        "design.md#no-such-part: no heading #no-such-part in design.md"
    ]


def test_no_tracked_file_points_outside_the_repository():
    found = {}
    for path in tracked():
        text = text_of(path)
        if text is not None and outside_references(text):
            found[str(path.relative_to(ROOT))] = outside_references(text)
    assert not found, f"point into docs/ instead: {found}"


@pytest.mark.parametrize("path", markdown_documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert not broken_links(path, path.read_text(encoding="utf-8"))
