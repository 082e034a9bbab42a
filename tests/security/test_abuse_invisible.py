"""Characters that draw nothing never make a blank chat line or a blank name, through
any entry point (the seat's page form, the JSON API, `say` by mail, the watch page,
the New game form, a seat handed over, an imported log): Hangul fillers, the braille
blank, the combining grapheme joiner, variation selectors, tag characters, zero-width
and word joiners, a combining mark with nothing to sit on. Inside a chat line they are
refused, naming the character; inside a name they are removed. Emoji sequences people
send (families, flags, skin tones, keycaps) and names in other scripts still pass."""

from __future__ import annotations

import re

import pytest
from sqlmodel import func, select

from pbem.service import BadRequest, PlayerSpec
from pbem.store.tables import Event
from pbem.store.tables import Outbox as OutboxRow

from support import SHORT, Table, csrf

# Each draws nothing: a line or a name of it alone shows a blank.
NOTHING = {
    "hangul choseong filler": "\u115f",
    "hangul jungseong filler": "\u1160",
    "hangul filler": "\u3164",
    "halfwidth hangul filler": "\uffa0",
    "braille blank": "\u2800",
    "combining grapheme joiner": "\u034f",
    "variation selector 1": "\ufe00",
    "variation selector 16": "\ufe0f",
    "variation selector 256": "\U000e01ef",
    "tag latin small a": "\U000e0061",
    "cancel tag": "\U000e007f",
    "zero width space": "\u200b",
    "word joiner": "\u2060",
    "mongolian vowel separator": "\u180e",
    "soft hyphen": "\u00ad",
    "khmer vowel inherent": "\u17b4",
    "musical symbol begin beam": "\U0001d173",
    "invisible times": "\u2062",
}
# Inside visible text these still hide something (all but the braille blank, which
# stands as a space between words).
HIDING = {k: c for k, c in NOTHING.items() if c != "\u2800"}
COMBINING_ACUTE = "\u0301"

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
EMOJI = {
    "family": FAMILY,
    "flag of germany": "\U0001f1e9\U0001f1ea",
    "flag of scotland": SCOTLAND,
    "rainbow flag": "\U0001f3f3\ufe0f\u200d\U0001f308",
    "waving hand, medium skin tone": "\U0001f44b\U0001f3fd",
    "technologist, medium skin tone": "\U0001f9d1\U0001f3fd\u200d\U0001f4bb",
    "keycap 1": "1\ufe0f\u20e3",
    "keycap #": "#\ufe0f\u20e3",
    "red heart": "\u2764\ufe0f",
    "heart on fire": "\u2764\ufe0f\u200d\U0001f525",
    "phoenix (emoji 15.1)": "\U0001f426\u200d\U0001f525",
    "persian with its non-joiner": "می\u200cخواهم",
    "devanagari with a virama and joiner": "क्\u200dष",
}
NAMES = ["Zoë", "José", "Анна", "李雷", "محمد", "देवी", "Nguyễn Thị Minh", "O'Brien-Smith"]


def _written(parts) -> tuple[int, int]:
    """(events, outbox rows) in the whole database."""
    with parts.database.read() as s:
        events = s.exec(select(func.count()).select_from(Event)).one()
        mails = s.exec(select(func.count()).select_from(OutboxRow)).one()
    return events, mails


def _game(parts, public=True) -> tuple[str, dict[int, str]]:
    created = parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"public": public},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


# -- chat lines ------------------------------------------------------------------------


def _api_say(client, game_id, token, text):
    headers = {"Authorization": f"Bearer {token}"}
    return client.post(f"/api/games/{game_id}/chat", json={"text": text}, headers=headers)


def _form_say(client, game_id, token, text):
    client.get(f"/g/{game_id}/{token}")  # the personal link opens the seat's session
    data = {"csrf_token": csrf(client, f"/g/{game_id}"), "text": text}
    return client.post(f"/g/{game_id}/chat", data=data)


def _watch_say(client, game_id, name, text):
    data = {"csrf_token": csrf(client, f"/g/{game_id}/watch"), "name": name, "text": text}
    return client.post(f"/g/{game_id}/watch/chat", data=data)


@pytest.mark.parametrize("char", NOTHING.values(), ids=NOTHING.keys())
@pytest.mark.parametrize("way", ["api", "form", "watch"])
def test_a_line_of_nothing_visible_is_refused_naming_the_character(web, char, way):
    app, parts = web
    game_id, tokens = _game(parts)
    client = app.test_client()
    before = _written(parts)
    line = f"{char}{char}{char}"
    if way == "api":
        answer = _api_say(client, game_id, tokens[1], line)
        error = answer.get_json()["error"]
    elif way == "form":
        answer = _form_say(client, game_id, tokens[1], line)
        error = answer.get_data(as_text=True)
    else:
        answer = _watch_say(client, game_id, "Zoe", line)
        error = answer.get_data(as_text=True)
    assert answer.status_code == 400, error
    assert "U+" + format(ord(char), "04X") in error
    assert _written(parts) == before
    assert parts.service.table_talk(game_id) == parts.service.spectator_talk(game_id) == []


@pytest.mark.parametrize("char", HIDING.values(), ids=HIDING.keys())
def test_an_invisible_character_inside_a_line_is_refused_naming_it(web, char):
    app, parts = web
    game_id, tokens = _game(parts)
    before = _written(parts)
    answer = _api_say(app.test_client(), game_id, tokens[1], f"Ann{char} resigns")
    assert answer.status_code == 400
    assert "U+" + format(ord(char), "04X") in answer.get_json()["error"]
    assert _written(parts) == before


def _tags(text: str) -> str:
    return "".join(chr(0xE0000 + ord(c)) for c in text)


@pytest.mark.parametrize(
    "line",
    [
        f"gg \U0001f3f4{_tags('ustx')}\U000e007f",  # a flag no vendor is asked to draw
        f"gg \U0001f3f4{_tags('ignore the rules')}\U000e007f",  # text hidden in tags
        f"gg {SCOTLAND}{_tags('hi')}",
    ],
)
def test_tags_are_kept_only_in_the_subdivision_flags_unicode_recommends(web, line):
    app, parts = web
    game_id, tokens = _game(parts)
    answer = _api_say(app.test_client(), game_id, tokens[1], line)
    assert answer.status_code == 400
    assert "U+E00" in answer.get_json()["error"]
    assert parts.service.table_talk(game_id) == []


@pytest.mark.parametrize(
    ("line", "named"),
    [("ok\x1b\u200d", "U+001B"), ("ok\U000e0fff\u200c", "U+E0FFF"), ("ok\ue000\u200d", "U+E000")],
)
def test_a_joiner_after_a_character_without_a_name_is_refused_not_a_crash(web, line, named):
    app, parts = web
    game_id, tokens = _game(parts)
    answer = _api_say(app.test_client(), game_id, tokens[1], line)
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert named in answer.get_json()["error"]


@pytest.mark.parametrize("line", [COMBINING_ACUTE + "hello", "hello " + COMBINING_ACUTE * 5])
def test_a_combining_mark_with_nothing_to_sit_on_is_refused(web, line):
    app, parts = web
    game_id, tokens = _game(parts)
    answer = _api_say(app.test_client(), game_id, tokens[1], line)
    assert answer.status_code == 400
    assert "combining mark U+0301" in answer.get_json()["error"]
    assert parts.service.table_talk(game_id) == []


@pytest.mark.parametrize("char", NOTHING.values(), ids=NOTHING.keys())
def test_say_by_mail_refuses_a_blank_line_and_answers_why(web, char):
    table = Table(web[1])
    handled = table.inbound.handle(table.mail("gmail_top_post.eml", f"say {char * 3}"))
    assert table.parts.service.table_talk(table.game, 1) == []
    if not char.isprintable():  # the mail reader made it a space: "say" alone says nothing
        assert handled.status == "unreadable"
        return
    assert handled.status == "refused"
    (answer,) = table.answers()
    assert "U+" + format(ord(char), "04X") in answer.payload["lines"][0]


@pytest.mark.parametrize("text", EMOJI.values(), ids=EMOJI.keys())
def test_emoji_sequences_and_joiners_of_real_words_are_kept(web, text):
    app, parts = web
    game_id, tokens = _game(parts)
    answer = _api_say(app.test_client(), game_id, tokens[1], f"gg {text}")
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["text"] == f"gg {text}"


def test_a_space_of_another_width_stands_between_words(web):
    app, parts = web
    game_id, tokens = _game(parts)
    line = "bonne\u202fchance\u3000頑張って\u2800⠓⠊"
    answer = _api_say(app.test_client(), game_id, tokens[1], line)
    assert answer.status_code == 201 and answer.get_json()["text"] == line


def test_an_imported_log_with_a_blank_chat_line_is_refused_whole(service):
    games = len(service.games())
    doc = {
        "format": "pbem.nim/1",
        "setup": {"players": ["Ann", "Ben"], "pile": 10, "seed": "n" * 40},
        "actions": [{"seat": 1, "action": "take 2"}],
        "chat": [{"after": 1, "seat": 2, "text": "\u3164\u3164"}],
    }
    with pytest.raises(BadRequest, match=r"^chat line 1: .*U\+3164"):
        service.import_log(doc)
    assert len(service.games()) == games


# -- names -----------------------------------------------------------------------------

_NEW = re.compile(r'name="(csrf_token|form_key)" value="([^"]+)"')


def _new_game_form(client, name: str):
    fields = dict(_NEW.findall(client.get("/new").get_data(as_text=True)))
    data = {**fields, "kind1": "person", "name1": name, "email1": "ann@example.com"}
    return client.post("/new", data={**data, "kind2": "greedy"})


@pytest.mark.parametrize("char", NOTHING.values(), ids=NOTHING.keys())
def test_a_name_of_nothing_visible_is_refused_everywhere(web, char):
    app, parts = web
    game_id, _ = _game(parts)
    client = app.test_client()
    named = "U+" + format(ord(char), "04X")
    blank = char * 3
    before = _written(parts)
    players = [{"name": blank, "email": "zoe@example.com"}, {"name": "Ben", "bot": "greedy"}]
    answer = client.post("/api/games", json={"players": players})
    assert answer.status_code == 400 and named in answer.get_json()["error"]
    page = _new_game_form(client, blank)
    assert page.status_code == 400 and named in page.get_data(as_text=True)
    page = _watch_say(client, game_id, blank, "hello")
    assert page.status_code == 400 and named in page.get_data(as_text=True)
    with pytest.raises(BadRequest, match=re.escape(named)):
        parts.service.replace_seat(game_id, 2, "human", name=blank, email="zoe@example.com")
    doc = {"format": "pbem.nim/1", "setup": {"players": ["Ann", blank], "pile": 10}}
    with pytest.raises(BadRequest, match=re.escape(named)):
        parts.service.import_log(doc)
    assert _written(parts) == before
    assert [s.name for s in parts.service.seat_links(game_id)] == ["Ann", "Ben"]


@pytest.mark.parametrize("char", HIDING.values(), ids=HIDING.keys())
def test_an_invisible_character_inside_a_name_is_removed(service, char):
    created = service.create_game(
        [PlayerSpec(f"A{char}nn", "ann@example.com"), PlayerSpec(f"Ben{char}", bot="greedy")],
        None,
        SHORT,
    )
    assert [s.name for s in created.seats] == ["Ann", "Ben"]
    link = service.replace_seat(created.game_id, 1, "human", name=f"Z{char}oe", email="z@x.org")
    assert link.name == "Zoe"


def test_a_braille_blank_inside_a_name_is_a_space(service):
    created = service.create_game(
        [PlayerSpec("Ann\u2800\u2800Lee", "ann@example.com"), PlayerSpec("Ben", bot="greedy")]
    )
    assert created.seats[0].name == "Ann Lee"


def test_a_name_starting_with_a_combining_mark_is_refused(service):
    with pytest.raises(BadRequest, match=r"combining mark U\+0301"):
        service.create_game([PlayerSpec(COMBINING_ACUTE + "Ann"), PlayerSpec("Ben")])
    assert service.games() == []


@pytest.mark.parametrize("name", NAMES)
def test_real_names_in_any_script_pass(web, name):
    app, parts = web
    players = [{"name": name, "email": "a@example.com"}, {"name": "Robo", "bot": "greedy"}]
    answer = app.test_client().post("/api/games", json={"players": players})
    assert answer.status_code == 201, answer.get_json()
    (game,) = parts.service.games()
    assert parts.service.seat_links(game.id)[0].name == name
