"""Two languages: every catalog complete for German, no template with words outside
gettext, and the language of the moment chosen and restored as documented."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment

from pbem import catalogs, i18n, resources
from pbem.games import GAMES

# Words that read the same in every language (units, names of things, the brand's
# parts are translated like any other words and are not here).
SAME_IN_EVERY_LANGUAGE = {"UTC", "SVG", "PNG", "JSON", "API", "ID", "iCal", "Atom", "pbem"}
ATTRIBUTES = re.compile(
    r"""\b(?:title|alt|aria-label|aria-description|placeholder|label)\s*=\s*(["'])(.*?)\1""",
    re.S,
)


def _templates() -> list[Path]:
    found = sorted(resources.TEMPLATES.rglob("*.html")) + sorted(resources.TEMPLATES.rglob("*.txt"))
    for plugin in GAMES.values():
        folder = Path(str(plugin.templates))
        found += sorted(folder.rglob("*.html")) + sorted(folder.rglob("*.txt"))
    return found


def _environment() -> Environment:
    env = Environment(trim_blocks=True, lstrip_blocks=True)
    i18n.install(env)
    return env


def template_words(source: str, html: bool) -> list[str]:
    """The words a template shows that no gettext call or {% trans %} block carries."""
    text: list[str] = []
    inside_trans = False
    after_block_begin = False
    for _line, kind, value in _environment().lex(source):
        if kind == "block_begin":
            after_block_begin = True
            continue
        if after_block_begin and kind == "name":
            if value == "trans":
                inside_trans = True
            elif value == "endtrans":
                inside_trans = False
        if kind != "whitespace":
            after_block_begin = False
        if kind == "data" and not inside_trans:
            text.append(value)
    shown = " \x00 ".join(text)
    if html:
        shown = re.sub(r"<!--.*?-->", " ", shown, flags=re.S)
        shown = re.sub(r"<(script|style)\b.*?</\1>", " ", shown, flags=re.S | re.I)
        attributes = [value for _quote, value in ATTRIBUTES.findall(shown)]
        shown = re.sub(r"<[^>]*>", " ", shown) + " " + " ".join(attributes)
        shown = re.sub(r"&#?\w+;", " ", shown)
    words = re.findall(r"[A-Za-z][A-Za-z'’]*[A-Za-z]", shown)
    return [word for word in words if word not in SAME_IN_EVERY_LANGUAGE]


@pytest.mark.parametrize("path", _templates(), ids=lambda p: str(p.relative_to(resources.CHECKOUT)))
def test_a_template_shows_no_word_outside_gettext(path: Path) -> None:
    words = template_words(path.read_text(encoding="utf-8"), html=path.suffix == ".html")
    assert not words, f"{path.name} shows words no catalog translates: {words[:20]}"


def test_the_check_finds_words_outside_gettext() -> None:
    """The check above can fail: plain words, a title attribute and a .txt line are
    found; gettext calls, {% trans %}, tags and scripts are not."""
    html = (
        '<p class="x">Your turn</p><a title="Open the game">{{ _("Go") }}</a>'
        "{% trans %}Hello {{ name }}{% endtrans %}<script>var shown = 1;</script>"
    )
    assert template_words(html, html=True) == ["Your", "turn", "Open", "the", "game"]
    assert template_words("Round {{ n }} is scored\n", html=False) == ["Round", "is", "scored"]
    assert template_words("{{ _('Round %(n)s', n=n) }}\n", html=False) == []


def test_every_catalog_is_complete_for_german() -> None:
    left = catalogs.problems("de")
    assert not left, "untranslated or broken:\n" + "\n".join(left[:40])


def test_the_completeness_check_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source string with no German, a German string with a placeholder the
    English lacks, and one that lost the English markup, are all reported."""
    source = tmp_path / "page.html"
    source.write_text(
        "{{ _('A new word') }} {{ _('Hello %(name)s', name=n) }} {{ _('<b>Bold</b> move') }}",
        "utf-8",
    )
    (tmp_path / "de").mkdir()
    (tmp_path / "de" / "probe.po").write_text(
        'msgid "Hello %(name)s"\nmsgstr "Hallo %(nom)s"\n\n'
        'msgid "<b>Bold</b> move"\nmsgstr "<b>Kühner Zug"\n',
        encoding="utf-8",
    )
    area = catalogs.Area("probe", tmp_path, (source,))
    monkeypatch.setattr(catalogs, "areas", lambda: [area])
    assert catalogs.problems("de") == [
        "probe.po: untranslated 'A new word'",
        "probe.po: placeholders differ in 'Hello %(name)s'",
        "probe.po: markup differs in '<b>Bold</b> move'",
    ]


def test_german_is_spoken_only_inside_its_block() -> None:
    assert i18n.language() == "en"
    assert i18n.gettext("New game") == "New game"
    with i18n.speaking("de"):
        assert i18n.language() == "de"
        assert i18n.gettext("New game") != "New game"
        with i18n.speaking("xx"):  # unknown: the language of the moment stays
            assert i18n.language() == "de"
    assert i18n.gettext("New game") == "New game"


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        (None, "en"),
        ("", "en"),
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-GB,en;q=0.9,de;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,de;q=0.5,en;q=0.4", "de"),
        ("fr, it", "en"),
        ("de;q=0, en;q=0.1", "en"),
        ("de;q=abc, en", "en"),
        ("*", "en"),
        ("DE-at", "de"),
        ("en;q=0.5, de;q=0.7", "de"),
        (",;;=q,,de;q=2", "en"),
    ],
)
def test_the_browser_language_is_read_from_accept_language(header: str | None, chosen: str) -> None:
    assert i18n.best(header) == chosen


def test_a_moment_is_written_the_readers_way() -> None:
    from datetime import UTC, datetime

    moment = datetime(2026, 12, 3, 14, 0, tzinfo=UTC)
    assert i18n.moment(moment) == "Thu 3 Dec 14:00 UTC"
    with i18n.speaking("de"):
        assert i18n.moment(moment).startswith("Do.")
        assert i18n.moment(moment).endswith("14:00 UTC")


@given(
    st.datetimes(
        min_value=datetime(2000, 1, 1),
        max_value=datetime(2100, 1, 1),
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30))]),
    ),
    st.sampled_from([*i18n.LANGUAGES, "xx"]),
)
def test_a_moment_is_said_as_babel_says_it_to_the_minute(when, language) -> None:
    """Each minute is said once (a cache): the same words as babel's for any second
    of it, in every language (an unknown one in English)."""
    from babel.dates import format_datetime

    pattern = i18n.MOMENT.get(language, i18n.MOMENT[i18n.DEFAULT])
    with i18n.speaking(language):
        expected = format_datetime(when.astimezone(UTC), pattern, tzinfo=UTC, locale=i18n.locale())
        assert i18n.moment(when) == f"{expected} UTC"


@pytest.mark.parametrize(
    ("hours", "english", "german"),
    [(24, "24", "24"), (2.5, "2.5", "2,5"), (0.25, "0.25", "0,25"), (1000, "1000", "1000")],
)
def test_a_number_of_hours_is_written_the_readers_way(hours, english, german) -> None:
    from pbem.mail.wording import number

    assert number(hours) == english == f"{hours:g}"  # English as it always was
    with i18n.speaking("de"):
        assert number(hours) == german
