"""The languages players read: the site's and each game's gettext catalogs (English
as written, German translated), and the language of the moment — a page's request,
a mail's reader — that `gettext` translates into.

The catalogs are the `.po` files themselves, read once per process (no compiled
`.mo` to build or to go stale): the site's in `pbem/translations/<language>/`, each
game's in its package's `translations/<language>/`, so a new game brings its own.
The language of the moment is a context variable, so a web request, a mail being
written and a Celery task each speak their own without passing it down every call;
where none was chosen (the JSON API, the CLI, the logs) it is English."""

from __future__ import annotations

import functools
import io
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import LazyProxy, NullTranslations, Translations

LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch"}  # code -> its own name
DEFAULT = "en"  # the language the strings are written in
SITE = Path(__file__).resolve().parent / "translations"

_current: ContextVar[str] = ContextVar("pbem_language", default=DEFAULT)
_packages: list[str] = []  # games' packages whose translations/ folder is a catalog too
_loaded: dict[str, NullTranslations] = {}
_lock = threading.Lock()
_NONE = NullTranslations()  # English: the strings as written (one, shared: it holds nothing)


def register_package(package: str) -> None:
    """Read `package`'s `translations/` folder too (a game plugin's catalog); it is
    looked up when a language is first used, so registering imports nothing."""
    if package not in _packages:
        _packages.append(package)
        _loaded.clear()


def folders() -> list[Path]:
    """The catalog folders: the site's, then each registered game's."""
    found = [SITE]
    for package in _packages:
        folder = files(package).joinpath("translations")
        if isinstance(folder, Path) and folder.is_dir():
            found.append(folder)
    return found


def catalog_files(language: str) -> list[Path]:
    """Every `.po` file of `language`, the site's first."""
    return [po for folder in folders() for po in sorted((folder / language).glob("*.po"))]


def translations(language: str) -> NullTranslations:
    """`language`'s translations, all its catalogs merged (read once per process);
    English, and any language without catalogs, translates nothing."""
    if language == DEFAULT or language not in LANGUAGES:
        return _NONE
    found = _loaded.get(language)  # read without the lock once loaded: every word asks
    if found is not None:
        return found
    with _lock:
        if language not in _loaded:
            _loaded[language] = _read(language)
        return _loaded[language]


def _read(language: str) -> NullTranslations:
    merged: Translations | None = None
    for po in catalog_files(language):
        with po.open("rb") as source:
            catalog = read_po(source, locale=language)
        compiled = io.BytesIO()
        write_mo(compiled, catalog, use_fuzzy=False)
        compiled.seek(0)
        part = Translations(compiled)
        if merged is None:
            merged = part
        else:
            merged.merge(part)
    return merged if merged is not None else NullTranslations()


def language() -> str:
    """The language of the moment ("en" unless something chose another)."""
    return _current.get()


@contextmanager
def speaking(chosen: str | None) -> Iterator[str]:
    """Within the block, strings are translated into `chosen` (a code of
    LANGUAGES; None or an unknown code keeps the language of the moment)."""
    said = chosen if chosen in LANGUAGES else language()
    token = _current.set(said)
    try:
        yield said
    finally:
        _current.reset(token)


def begin(chosen: str) -> object:
    """Start speaking `chosen` until `end(token)` (for a request's hooks, which
    cannot wrap the request in a `with`)."""
    return _current.set(chosen if chosen in LANGUAGES else DEFAULT)


def end(token: object) -> None:
    """Go back to the language before the matching `begin`."""
    _current.reset(token)  # type: ignore[arg-type]


def gettext(message: str, **variables: Any) -> str:
    """`message` in the language of the moment, `%(name)s` filled from `variables`."""
    said = translations(language()).ugettext(message)
    return said % variables if variables else said


def ngettext(singular: str, plural: str, n: int, **variables: Any) -> str:
    """The singular or plural of a message for `n` things (`%(num)d` is `n`)."""
    said = translations(language()).ungettext(singular, plural, n)
    return said % {"num": n, **variables}


def pgettext(context: str, message: str, **variables: Any) -> str:
    """`message` in `context` (the same English word read two ways)."""
    said = translations(language()).upgettext(context, message)
    return said % variables if variables else said


def lazy_gettext(message: str, **variables: Any) -> Any:
    """A string translated when it is used, not when it is made: for module-level
    labels, which exist before anyone chose a language."""
    return LazyProxy(gettext, message, enable_cache=False, **variables)


def N_(message: str) -> str:
    """Mark `message` for the catalog without translating it now (it is translated
    where it is shown, with `gettext(variable)`)."""
    return message


_ = gettext


def best(accept_language: str | None, offered: Iterable[str] = LANGUAGES) -> str:
    """The offered language a browser's Accept-Language header likes best (by its
    q-values; "de-AT" counts as "de"); English when it names none of them."""
    if not accept_language:
        return DEFAULT
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:32]):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in offered and 0 < quality <= 1:
            ranked.append((-quality, index, primary))
    return min(ranked)[2] if ranked else DEFAULT


def locale() -> Locale:
    """The babel Locale of the language of the moment (for dates and numbers)."""
    try:
        return Locale.parse(language())
    except (ValueError, UnknownLocaleError):
        return Locale.parse(DEFAULT)


MOMENT = {"en": "EEE d MMM HH:mm", "de": "EEE d. MMM HH:mm"}  # CLDR patterns


def moment(when: datetime) -> str:
    """A moment in UTC as people of the language of the moment write it:
    "Tue 3 Dec 14:00 UTC", "Di. 3. Dez. 14:00 UTC". To the minute, as MOMENT's
    patterns say it: each minute is said once per language and process (babel's
    formatting costs a mail's deadline more than the rest of its sentence)."""
    return _said_at(language(), when.astimezone(UTC).replace(second=0, microsecond=0))


@functools.lru_cache(maxsize=1024)
def _said_at(code: str, minute: datetime) -> str:
    try:
        where = Locale.parse(code)
    except (ValueError, UnknownLocaleError):
        where = Locale.parse(DEFAULT)
    pattern = MOMENT.get(code, MOMENT[DEFAULT])
    return f"{format_datetime(minute, pattern, tzinfo=UTC, locale=where)} UTC"


def install(environment: Any, *, newstyle: bool = True) -> None:
    """Give a Jinja environment `_`, `gettext`, `ngettext`, `pgettext` and
    `{% trans %}` in the language of the moment (newstyle: `%(name)s` is filled
    and escaped by Jinja)."""
    if "jinja2.ext.InternationalizationExtension" not in environment.extensions:
        environment.add_extension("jinja2.ext.i18n")
    environment.policies["ext.i18n.trimmed"] = True
    callables: dict[str, Callable[..., str]] = {
        "gettext": lambda message: translations(language()).ugettext(message),
        "ngettext": lambda s, p, n: translations(language()).ungettext(s, p, n),
        "pgettext": lambda c, m: translations(language()).upgettext(c, m),
        "npgettext": lambda c, s, p, n: translations(language()).unpgettext(c, s, p, n),
    }
    environment.install_gettext_callables(newstyle=newstyle, **callables)
    environment.globals["current_language"] = language
    environment.globals["LANGUAGES"] = LANGUAGES
