"""The translation catalogs' upkeep: which sources feed which catalog (the pages, the
mails, the service's sentences, each game's own), extracting their strings, bringing
each language's `.po` files up to date, and saying what is still untranslated.

`python -m pbem.catalogs update [CATALOG]` (or `make translations`) adds new strings
to every catalog (or the one named), untranslated, and drops the ones no source
uses; `python -m pbem.catalogs check` lists what a translator still has to do and
exits 1 while anything is left (the test suite runs the same check)."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from pbem import i18n, resources

PACKAGE = Path(__file__).resolve().parent
KEYWORDS = {
    "_": None,
    "gettext": None,
    "lazy_gettext": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}
JINJA = {"trimmed": "true", "extensions": "jinja2.ext.i18n"}
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]


@dataclass(frozen=True)
class Area:
    """One catalog: its name (the `.po` file's stem), the folder holding
    `<language>/<name>.po`, and the files whose strings it carries."""

    name: str
    folder: Path
    sources: tuple[Path, ...]

    def po(self, language: str) -> Path:
        return self.folder / language / f"{self.name}.po"


def _files(root: Path, *patterns: str) -> list[Path]:
    return sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})


def areas() -> list[Area]:
    """Every catalog and its sources: the site's three, then one per game."""
    templates = resources.TEMPLATES
    found = [
        Area(
            "pages",
            i18n.SITE,
            tuple(_files(templates, "*.html") + _files(PACKAGE / "web", "**/*.py")),
        ),
        Area(
            "mails",
            i18n.SITE,
            tuple(
                _files(templates / "mail", "*.html", "*.txt")
                + _files(PACKAGE / "mail", "*.py")
                + _files(PACKAGE / "push", "*.py")  # the pushes' words
            ),
        ),
        Area(
            "service",
            i18n.SITE,
            tuple(
                _files(PACKAGE / "service", "*.py")
                + _files(PACKAGE / "games", "*.py")
                + _files(PACKAGE / "store", "**/*.py")
            ),
        ),
    ]
    for game in sorted(p for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").is_file()):
        sources = _files(game, "**/*.py", "templates/**/*.html", "templates/**/*.txt")
        sources += _files(game, "*.json")
        found.append(Area(game.name, game / "translations", tuple(sources)))
    return found


def _method(path: Path) -> str:
    if path.suffix == ".py":
        return "python"
    if path.suffix == ".json":
        return "pbem.catalogs:extract_content"
    return "jinja2.ext:babel_extract"


def extract_content(
    fileobj: BinaryIO, keywords: object, comment_tags: object, options: object
) -> Iterator[tuple[int, None, str, list[str]]]:
    """A content set's names (its JSON's "name" values and its "names" lists): the
    words a game's data shows players."""
    import orjson

    data = orjson.loads(fileobj.read())

    def walk(node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "name" and isinstance(value, str) and node is not data:
                    yield value
                elif key.endswith("names") and isinstance(value, list):
                    yield from (v for v in value if isinstance(v, str))
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for name in walk(data):
        yield 1, None, name, []


def extract(area: Area) -> Catalog:
    """The strings `area`'s sources mark for translation, with where they are."""
    catalog = Catalog(domain=area.name)
    for path in area.sources:
        options = JINJA if _method(path).startswith("jinja2") else {}
        for lineno, message, comments, context in extract_from_file(
            _method(path), path, keywords=KEYWORDS, options=options
        ):
            shown = (
                path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path
            )
            where = [(str(shown), lineno)]
            catalog.add(message, None, where, auto_comments=comments, context=context)
    return catalog


def read(path: Path, language: str) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=language)


def update(language: str, only: str | None = None) -> list[Path]:
    """Bring `language`'s catalogs (or only the one named `only`) up to date with
    the sources; the files written."""
    written = []
    for area in areas():
        if only is not None and area.name != only:
            continue
        template = extract(area)
        if not len(template) and not area.po(language).exists():
            continue
        path = area.po(language)
        if path.exists():
            catalog = read(path, language)
        else:
            catalog = Catalog(locale=language, domain=area.name)
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        catalog.obsolete.clear()
        catalog.project, catalog.version = "pbem", ""
        catalog.msgid_bugs_address = ""
        catalog.copyright_holder = ""
        catalog.fuzzy = False
        catalog.last_translator = "pbem"
        catalog.language_team = i18n.LANGUAGES[language]
        path.parent.mkdir(parents=True, exist_ok=True)
        out = io.BytesIO()
        write_po(out, catalog, width=100, sort_output=True, include_lineno=False)
        path.write_bytes(out.getvalue())
        written.append(path)
    return written


PLACEHOLDER = re.compile(r"%\((\w+)\)[sdfr]")
TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*")  # the markup a translation must keep


def problems(language: str) -> list[str]:
    """What a translator still has to do for `language`: strings a source uses that
    its catalog lacks, leaves empty or marks fuzzy, and translations whose
    placeholders or markup (HTML tags) differ from the English ones."""
    found: list[str] = []
    for area in areas():
        template = extract(area)
        path = area.po(language)
        catalog = read(path, language) if path.exists() else Catalog(locale=language)
        for message in template:
            if not message.id:
                continue
            said = catalog.get(message.id, message.context)
            where = f"{area.name}.po"
            if said is None or not said.string or said.fuzzy:
                found.append(f"{where}: untranslated {_show(message.id)}")
                continue
            english = message.id if isinstance(message.id, tuple) else (str(message.id),)
            german = said.string if isinstance(said.string, tuple) else (str(said.string),)
            wanted = set(PLACEHOLDER.findall(" ".join(english)))
            for form in german:
                if not form or set(PLACEHOLDER.findall(form)) - wanted - {"num"}:
                    found.append(f"{where}: placeholders differ in {_show(message.id)}")
                    break
                if sorted(TAG.findall(form)) != sorted(TAG.findall(english[0])):
                    found.append(f"{where}: markup differs in {_show(message.id)}")
                    break
    return found


def _show(message_id: object) -> str:
    first = message_id[0] if isinstance(message_id, tuple) else message_id
    return repr(first)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        only = argv[1] if len(argv) > 1 else None
        if only is not None and only not in {area.name for area in areas()}:
            print(f"no catalog is named {only!r}", file=sys.stderr)
            return 2
        for language in TRANSLATED:
            for path in update(language, only):
                print(path.relative_to(PACKAGE.parent))
        return 0
    if command == "check":
        left = [p for language in TRANSLATED for p in problems(language)]
        print("\n".join(left) if left else "every string is translated")
        return 1 if left else 0
    print("usage: python -m pbem.catalogs [update [CATALOG] | check]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
