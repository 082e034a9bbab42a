"""Every mail in its reader's language: each kind of notice written for a German
reader has no English left in its subject, text or HTML (players' names, the
game's name and what a player types to play are the same in both languages), its
deadline and time left are said the German way, its text still reads at 72
columns, and the same row in English, or of no language, is the English mail."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from german import english_left, visible_text
from jinja2 import ChoiceLoader, DictLoader

from pbem import i18n
from pbem.events import timestamp
from pbem.games import GAMES
from pbem.mail.compose import GAME_PARTIALS, Composer, mails_of
from pbem.mail.wording import time_left, together
from pbem.service import PlayerSpec
from pbem.service.notices import Kind

from support import MailWriter, claim_alone

GERMAN = ("Anna", "Bernd", "Clara", "Dieter", "Emil", "Frieda", "Gustav")
NAMES = frozenset(GERMAN)
BOTH = frozenset({"Minute"})  # German words English spells the same
SAY = frozenset({"say", "yes"})  # reply commands (table talk, a rematch answer), read as written
_ALT = re.compile(r'alt="([^"]*)"')
_LINK = re.compile(r"https?://\S+")  # addresses are read by browsers, not people


class Reader(MailWriter):
    """Mails of any kind for one game, written in German unless asked otherwise."""

    def row(self, kind, seat, to, payload, *, language="de", **how):
        return super().row(kind, seat, to, payload, language=language, **how)

    def mail(self, kind, seat, to, payload, **how) -> EmailMessage:
        return self.compose(kind, seat, to, payload, **how)


class Unsaid:
    """A row as it reads without a language (a row written before rows had one)."""

    def __init__(self, row: Any, language: str | None) -> None:
        self._row, self.language = row, language

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, name)


def _parts_of(message: EmailMessage) -> dict[str, str]:
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    return {
        "subject": str(message["Subject"]),
        "text": plain.get_content(),
        "html": html.get_content(),
    }


def _typed(game: str) -> frozenset[str]:
    """The words a player types to play (the game's notation) and the commands the
    server reads: the same in every language."""
    mails = mails_of(GAMES[game])
    typed = [mails.NOTATION, "status legal undo help agree refuse"]
    typed += [line.strip().split("  ")[0] for line in mails.HELP if line.startswith("  ")]
    return frozenset(re.findall(r"[A-Za-z][A-Za-z']*", " ".join(typed)))


def _english(message: EmailMessage, allowed: frozenset[str]) -> dict[str, list[str]]:
    """The English words left in each part of a mail, and in its picture's words."""
    found = {}
    for name, said in _parts_of(message).items():
        text = _LINK.sub(" ", visible_text(said) if name == "html" else said)
        words = english_left(text, allowed=allowed)
        if name == "html":
            words += english_left(" ".join(_ALT.findall(said)), allowed=allowed)
        if words:
            found[name] = words
    return found


def _every_kind(parts, clock, game: str) -> tuple[str, dict[Kind, EmailMessage]]:
    """The game's own example played to its end, its players Anna, Bernd and more
    who read German, and a mail of every kind to Anna or Bernd."""
    service = parts.service
    example = next(e for e in GAMES[game].examples() if e.ends)
    names = GERMAN[: len(example.players)]
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com", language="de") for n in names],
        {"public": True, "hours_per_turn": 48, "reminders": [24, 2]},
        dict(example.setup),
        game=game,
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    first = service.state_at(game_id)["seq"]  # after the readers' languages were chosen
    (seat, move), *rest = example.moves
    moved = service.submit_action(game_id, tokens[seat], move, first)
    reader = Reader(parts, clock, game_id)
    answer = {
        "lines": ["ok"],
        "ignored": ["hallo"],
        "in_reply_to": "",
        "subject": "",
        "status": "help",
    }
    mine = {"seats": [[game_id, 1]]}
    written = {
        Kind.INVITATION: reader.mail(Kind.INVITATION, 2, "bernd@example.com", {}),
        Kind.YOUR_TURN: reader.mail(Kind.YOUR_TURN, 2, "bernd@example.com", {}),
        Kind.REMINDER: reader.mail(Kind.REMINDER, 2, "bernd@example.com", {"hours": 24}),
        Kind.TIMED_OUT: reader.mail(Kind.TIMED_OUT, 1, "anna@example.com", {}, seq=moved.seq),
        Kind.UNDO_REQUEST: reader.mail(Kind.UNDO_REQUEST, 2, "bernd@example.com", {"asked_by": 1}),
        Kind.UNDO_LAPSED: reader.mail(
            Kind.UNDO_LAPSED,
            2,
            "bernd@example.com",
            {"asked_by": 1, "reason": "it was not answered within 48 hours"},
        ),
        Kind.VACATION: reader.mail(
            Kind.VACATION, 2, "bernd@example.com", {"who": 1, "until": timestamp(clock())}
        ),
        Kind.ANSWER: reader.mail(Kind.ANSWER, 1, "anna@example.com", answer),
        Kind.MY_GAMES: reader.mail(Kind.MY_GAMES, None, "anna@example.com", mine, game=False),
        Kind.DIGEST: reader.mail(Kind.DIGEST, None, "anna@example.com", mine, game=False),
        Kind.SIGN_IN: reader.mail(
            Kind.SIGN_IN,
            None,
            "anna@example.com",
            {"nonce": "0123456789abcdef", **mine},
            game=False,
        ),
        Kind.SIGN_OUT: reader.mail(
            Kind.SIGN_OUT,
            None,
            "anna@example.com",
            {"nonce": "0123456789abcdef", **mine},
            game=False,
        ),
    }
    talk = service.say(game_id, tokens[1], "gut gespielt")
    written[Kind.CHAT] = reader.mail(Kind.CHAT, 2, "bernd@example.com", {}, seq=talk.seq)
    for seat, move in rest:
        service.submit_action(game_id, tokens[seat], move)
    assert service.state_at(game_id)["status"] == "finished"
    closed = next(e.seq for e in service.history(game_id, 1) if e.closes_round)
    written[Kind.ROUND_SCORED] = reader.mail(
        Kind.ROUND_SCORED, 1, "anna@example.com", {"round": 1}, seq=closed
    )
    written[Kind.GAME_OVER] = reader.mail(Kind.GAME_OVER, 1, "anna@example.com", {})
    written[Kind.RESIGNED] = reader.mail(Kind.RESIGNED, 2, "bernd@example.com", {"who": 1})
    offered = service.offer_rematch(game_id, tokens[1])
    written[Kind.REMATCH_OFFER] = reader.mail(
        Kind.REMATCH_OFFER, 2, "bernd@example.com", {"by": 1}, seq=offered.seq
    )
    table = service.open_table(
        [PlayerSpec("Anna", "anna@example.com")], GAMES[game].seats[0] - 1, game=game
    )
    joining = {"nonce": "0123456789abcdef", "table": table.table_id, "name": "Bernd"}
    written[Kind.JOIN_CONFIRM] = reader.mail(
        Kind.JOIN_CONFIRM, None, "bernd@example.com", joining, game=False
    )
    assert set(written) == set(Kind)
    return game_id, written


def _without_the_games_words(monkeypatch) -> None:
    """Mails without what other parts of the server word: each game's partials
    render nothing, the service's sentences are blank, a game's tagline and its
    picture's words are German already."""
    stubs = {
        f"{name}/mail/{partial}.{ending}": ""
        for name in GAMES
        for partials in GAME_PARTIALS.values()
        for partial in partials
        for ending in ("txt", "html")
    }
    made = Composer.__init__
    history = Composer._history

    def init(self, service, settings):
        made(self, service, settings)
        self.templates.loader = ChoiceLoader([DictLoader(stubs), self.templates.loader])

    def blank_history(self, row, seat, now):
        return [replace(e, text="") for e in history(self, row, seat, now)]

    monkeypatch.setattr(Composer, "__init__", init)
    for plugin in GAMES.values():
        mails = mails_of(plugin)
        monkeypatch.setattr(mails, "TAGLINE", "ein Spiel")
        if hasattr(mails, "PICTURE_ALT"):
            monkeypatch.setattr(mails, "PICTURE_ALT", "ein Bild")
    monkeypatch.setattr(Composer, "_history", blank_history)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_kind_says_its_own_words_in_german(make_parts, clock, monkeypatch, game):
    """What the mails themselves say (the subjects, greetings, sentences around the
    game's own partials, the footers), for every kind and both games."""
    _without_the_games_words(monkeypatch)
    parts = make_parts(clock)
    _game_id, written = _every_kind(parts, clock, game)
    left = {kind: _english(m, NAMES | SAY) for kind, m in written.items()}
    assert {kind: words for kind, words in left.items() if words} == {}
    for message in written.values():
        assert message["Content-Language"] == "de"
        assert '<html lang="de">' in _parts_of(message)["html"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_kind_of_mail_is_all_german_for_a_german_reader(make_parts, clock, game):
    """The whole mail, the game's partials and the service's sentences too."""
    parts = make_parts(clock)
    _game_id, written = _every_kind(parts, clock, game)
    with i18n.speaking("de"):
        title = i18n.gettext(GAMES[game].title)
    allowed = NAMES | SAY | {title} | _typed(game)
    left = {kind: _english(m, allowed) for kind, m in written.items()}
    assert {kind: words for kind, words in left.items() if words} == {}


def test_a_german_turn_mail_says_its_deadline_and_time_left_the_german_way(make_parts, clock):
    parts = make_parts(clock)
    service = parts.service
    created = service.create_game(
        [
            PlayerSpec("Bernd", "bernd@example.com"),
            PlayerSpec("Anna", "anna@example.com", language="de"),
        ],
        {"hours_per_turn": 38, "reminders": [1]},
        {"pile": 7},
        game="nim",
    )
    game_id = created.game_id
    seq = service.state_at(game_id)["seq"]
    moved = service.submit_action(game_id, created.seats[0].token, "take 1", seq).seq
    reader = Reader(parts, clock, game_id)
    with i18n.speaking("de"):
        title = i18n.gettext("Nim")
    turn = reader.mail(Kind.YOUR_TURN, 2, "anna@example.com", {})
    # Sunday 1 Nov 2026 12:00 UTC and 38 hours: Tuesday 3 Nov, 02:00
    assert turn["Subject"] == (
        "Bernd gegen Anna: Du bist am Zug (Runde 1) — Antwort bis Di. 3. Nov. 02:00 UTC"
    )
    assert title not in turn["Subject"] and game_id not in turn["Subject"]
    text = _parts_of(turn)["text"]
    assert "Antwort bis Di. 3. Nov. 02:00 UTC: noch 1 Tag 14 Stunden." in text
    clock.advance(hours=37)
    reminder = reader.mail(Kind.REMINDER, 2, "anna@example.com", {"hours": 1})
    assert reminder["Subject"] == "Bernd gegen Anna — Erinnerung: noch 1 Stunde für deinen Zug"
    clock.advance(minutes=58)
    reminder = reader.mail(Kind.REMINDER, 2, "anna@example.com", {"hours": 0.5}, seq=moved)
    assert reminder["Subject"].endswith("Erinnerung: noch 2 Minuten für deinen Zug")
    # the English reader of the same game is told in English, as before
    english = reader.mail(Kind.REMINDER, 2, "anna@example.com", {"hours": 0.25}, language="en")
    assert english["Subject"] == "Bernd vs Anna — reminder: 2 minutes left for your turn"
    assert english["Content-Language"] == "en"


@pytest.mark.parametrize(
    ("left", "english", "german"),
    [
        (timedelta(hours=1), "1 hour", "1 Stunde"),
        (timedelta(hours=2), "2 hours", "2 Stunden"),
        (timedelta(days=1, hours=1), "1 day 1 hour", "1 Tag 1 Stunde"),
        (timedelta(days=3, minutes=5), "3 days 5 minutes", "3 Tage 5 Minuten"),
        (timedelta(minutes=1, seconds=30), "1 minute", "1 Minute"),
        (timedelta(seconds=-5), "no time", "keine Zeit mehr"),
    ],
)
def test_time_left_takes_each_languages_plural(left, english, german):
    assert time_left(left) == english
    with i18n.speaking("de"):
        assert time_left(left) == german


def test_names_are_listed_with_each_languages_and():
    assert together(["Ann", "Ben", "Cy"]) == "Ann and Ben and Cy"
    assert together([24, 2]) == "24 and 2"
    with i18n.speaking("de"):
        assert together(["Anna", "Bernd"]) == "Anna und Bernd"
        assert together(["Anna"]) == "Anna"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_german_text_part_still_reads_at_72_columns(make_parts, clock, game):
    parts = make_parts(clock)
    _game_id, written = _every_kind(parts, clock, game)
    for kind, message in written.items():
        for line in _parts_of(message)["text"].splitlines():
            # longer only where one word (a link, the log's head) is longer than a line
            assert len(line) <= 72 or " " not in line.strip(), (kind, line)


def test_the_same_row_in_english_or_no_language_is_the_english_mail(make_parts, clock):
    parts = make_parts(clock)
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, "public": True},
        {"seed": "same row"},
    )
    game_id, tokens = created.game_id, {s.seat: s.token for s in created.seats}
    service = parts.service
    service.submit_action(game_id, tokens[1], service.legal(game_id, 1)[0], 1)
    reader = Reader(parts, clock, game_id)
    for kind, seat, to, payload in [
        (Kind.YOUR_TURN, 2, "ben@example.com", {}),
        (Kind.INVITATION, 1, "ann@example.com", {}),
        (Kind.UNDO_REQUEST, 1, "ann@example.com", {"asked_by": 2}),
    ]:
        row = reader.row(kind, seat, to, payload, language="de")
        german = _parts_of(reader.composer.compose(row))
        said = [_parts_of(reader.composer.compose(Unsaid(row, x))) for x in ("en", None, "xx")]
        assert said[0] == said[1] == said[2] != german
        with i18n.speaking("de"):  # the language of the moment is not the row's
            assert _parts_of(reader.composer.compose(Unsaid(row, None))) == said[0]
        if kind is Kind.YOUR_TURN:
            assert said[0]["subject"] == (
                "Ann vs Ben: your turn (round 1) — answer by Tue 3 Nov 12:00 UTC"
            )
            assert "It is your turn in game" in said[0]["text"]
            assert "Du bist am Zug in Partie" in german["text"]


@pytest.fixture
def german_table(web, monkeypatch):
    """A game of Ann, who reads German, and Ben, and the handler their replies reach
    (the mall's notation help in German already: the game words it)."""
    from support import SHORT, Table

    parts = web[1]
    table = Table(parts)
    created = parts.service.create_game(
        [
            PlayerSpec("Ann", "ann@example.com", language="de"),
            PlayerSpec("Ben", "ben@example.com"),
        ],
        None,
        SHORT,
    )
    table.game, table.tokens = created.game_id, {s.seat: s.token for s in created.seats}
    help_lines = ("  pass                nur wenn nichts anderes geht",)
    monkeypatch.setattr(mails_of(GAMES["mall"]), "HELP", help_lines)
    return table


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("help", "help"),
        ("flieg zum Mond", "unreadable"),
        ("undo", "undo"),
        ("agree", "undo"),
        ("\n".join(f"say {n}" for n in range(12)), "refused"),
    ],
)
def test_a_german_players_mail_is_answered_in_german(german_table, body, status):
    table = german_table
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", body))
    assert handled.status == status
    assert handled.detail.isascii()  # what was done, for the log, stays English
    (row,) = table.answers()
    assert row.language == "de"
    composer = Composer(table.parts.service, table.parts.settings)
    claimed = claim_alone(table.parts.outbox, row.id, composer.message_id)
    answer = composer.compose(claimed)
    allowed = frozenset({"Ann", "Ben"}) | SAY | _typed("mall") | BOTH
    left = _english(answer, allowed)
    # the subject is the one the player answered ("Re: ..."), as they wrote it
    assert answer["Subject"] == claimed.payload["subject"]
    assert {part: words for part, words in left.items() if part != "subject"} == {}


def test_no_sentence_of_a_mail_carries_a_line_break_of_its_own():
    """The text part is format=flowed: its writer wraps prose at 72 columns, and a
    mail program reflows it. A line break written into a sentence stays hard in
    every mail program ("You will get a mail" / "when it is."), so no sentence of a
    mail's templates has one, in English or in German; a break only ever follows a
    placeholder that stands on a line of its own (a move's example)."""
    from pbem import catalogs

    inside = re.compile(r"(?<!\)[sd])\n")
    checked = 0
    for area in catalogs.areas():
        path = area.po("de")
        for message in catalogs.read(path, "de"):
            where = [place for place, _line in message.locations]
            if not message.id or not any("mail/" in place for place in where):
                continue
            texts = message.id if isinstance(message.id, tuple) else (message.id,)
            texts += message.string if isinstance(message.string, tuple) else (message.string,)
            for text in texts:
                assert inside.search(text) is None, (path, where, text)
            checked += 1
    assert checked > 100  # every mail's sentences were read


def test_an_id_is_not_read_as_english_words():
    """A random game id between the words ("k3of7...") is no English "of"; the words
    around it still are read."""
    from german import english_left

    assert english_left("Du bist am Zug in Mall k3of7the2and5 (Runde 1)") == []
    assert english_left("Your turn in Mall k3of7the2and5 of") == ["Your", "turn", "of"]
