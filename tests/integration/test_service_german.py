"""The service's words speak the language of the moment: inside `speaking("de")` (a
German page, a German reader's mail) the history's sentences, the dashboard's latest
line and the refusals a player can meet are German; outside they are English as
before, and the JSON API answers in English whatever the browser asks for."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from german import english_left

from pbem import i18n
from pbem.events import ActionTaken, TurnTimedOut
from pbem.games import get, plugin
from pbem.service import PlayerSpec, ServiceError, history

from support import SHORT

NAMES = frozenset({"Anna", "Bernd", "Cara", "Zoe"})
GERMAN_TOO = frozenset({"Minute"})  # German as well as English
SAID = "viel Glück und gute Züge"


def _both(call: Callable[[], Any]) -> tuple[Any, Any]:
    """What `call` gives in German, then in English."""
    with i18n.speaking("de"):
        german = call()
    return german, call()


def _refusal(call: Callable[[], Any]) -> str:
    with pytest.raises(ServiceError) as refused:
        call()
    return refused.value.message


def _refusals(call: Callable[[], Any]) -> tuple[str, str]:
    return _both(lambda: _refusal(call))


def _german_words_only(text: str) -> list[str]:
    """English left in `text`, not counting the machine keys it names (an option's
    snake_case name, a game's id)."""
    return english_left(re.sub(r"\b\w+_\w+\b", "", text), allowed=NAMES | GERMAN_TOO)


def _game(service, setup: dict | None = None, **options) -> tuple[str, dict[int, str]]:
    """A game of Anna and Bernd: a long one from a seed, unless `setup` is given."""
    created = service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")],
        options or None,
        setup or {"seed": "deutsch"},
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def _play(service, game: str, tokens: dict[int, str]) -> None:
    """The seat to move plays its first legal action."""
    doc = service.state_at(game)
    seat = doc["turn"]
    action = service.legal(game, seat)[0]
    service.submit_action(game, tokens[seat], action, doc["seq"])


def _a_game_with_every_sentence(service, clock) -> tuple[str, dict[int, str]]:
    """Moves, undo asked, granted, refused and lapsed (twice), chat, a mail
    preference, a vacation, a timeout that hands the seat to a bot, and a person
    taking the seat over."""
    game, tokens = _game(service, public=True, timeout_policy="replace", replace_after=1)
    _play(service, game, tokens)  # Anna
    _play(service, game, tokens)  # Bernd
    service.undo(game, tokens[1])
    service.answer_undo(game, tokens[2], True)  # granted: back before Anna's move
    _play(service, game, tokens)  # Anna
    _play(service, game, tokens)  # Bernd
    service.undo(game, tokens[1])
    service.answer_undo(game, tokens[2], False)  # refused
    service.undo(game, tokens[1])
    _play(service, game, tokens)  # Anna moves on: the request lapses
    _play(service, game, tokens)  # Bernd
    service.undo(game, tokens[2])
    clock.advance(hours=49)
    assert service.lapse_overdue_undo(game)  # not answered in time
    service.say(game, tokens[1], SAID)
    service.set_mail_preference(game, tokens[1], "digest")
    _play(service, game, tokens)  # Anna
    service.take_vacation(game, tokens[2], 2)
    doc = service.state_at(game)
    assert doc["turn"] == 2
    service.time_out(game, 2, doc["seq"])  # and a bot takes Bernd's seat
    service.replace_seat(game, 2, "human", name="Cara", email="cara@example.com")
    return game, tokens


def _frame(happened) -> str:
    """The service's own words of a sentence: for a move, the words before the
    game's narration of it (the game's catalog translates that)."""
    if isinstance(happened.event, ActionTaken | TurnTimedOut):
        return happened.text.partition(": ")[0]
    return happened.text


@pytest.mark.parametrize("viewer", [1, 2, None])
def test_every_sentence_of_the_history_is_german_for_a_german_reader(service, clock, viewer):
    game, _ = _a_game_with_every_sentence(service, clock)
    german, english = _both(lambda: service.history(game, viewer))
    assert [h.seq for h in german] == [h.seq for h in english]
    kinds = {h.type for h in german}
    wanted = {
        "GameCreated",
        "ActionTaken",
        "UndoRequested",
        "UndoAnswered",
        "UndoDone",
        "UndoLapsed",
        "TableTalk",
        "VacationStarted",
        "TurnTimedOut",
        "SeatReplaced",
    }
    assert wanted <= kinds, wanted - kinds
    assert ("MailPreferenceChanged" in kinds) == (viewer == 1)
    for de, en in zip(german, english, strict=True):
        assert de.text != en.text, en.text
        assert _frame(de) != _frame(en), en.text
        assert english_left(_frame(de), allowed=NAMES) == [], de.text
    # outside the block it is the English it always was
    said = [h.text for h in english if h.type == "TableTalk"]
    assert said == [f"{'You' if viewer == 1 else 'Anna'} said: {SAID}"]


def test_the_sentences_name_you_and_the_others_in_german(service, clock):
    game, _ = _a_game_with_every_sentence(service, clock)
    with i18n.speaking("de"):
        anna = [h.text for h in service.history(game, 1)]
        watched = [h.text for h in service.history(game, None)]
    assert "die Partie wurde für dich und Bernd erstellt" in anna
    assert "die Partie wurde für Anna und Bernd erstellt" in watched
    assert f"Du hast gesagt: {SAID}" in anna and f"Anna hat gesagt: {SAID}" in watched
    assert "Du hast eine Tageszusammenfassung gewählt" in anna
    assert any(t.startswith("Du hast gespielt: ") for t in anna)
    assert any(t.startswith("Bernd hat gespielt: ") for t in anna)
    assert "Der Platz von Bernd wird jetzt von einem Bot gespielt" in anna
    assert "Der Platz von Bernd wird jetzt von Cara gespielt" in anna
    assert any(t.startswith("Die Frist von Bernd ist abgelaufen") for t in anna)
    assert any("nicht innerhalb von 48 Stunden beantwortet" in t for t in anna)
    assert any("die Partie ging weiter" in t for t in anna)
    assert any(t.startswith("Bernd ist bis ") and "(2 Tage;" in t for t in anna)


def test_a_spectators_line_and_an_unreadable_event_are_told_in_german(service):
    game, _ = _game(service, public=True)
    said = service.spectator_says(game, "Zoe", "hallo")
    rules = get("mall")
    german, english = _both(lambda: history.describe(rules, said, None, None))
    assert english == "Zoe (watching) said: hallo"
    assert german == "Zoe (schaut zu) hat gesagt: hallo"


def test_the_dashboards_latest_line_is_german_for_a_german_reader(service):
    game, tokens = _game(service)
    service.take_vacation(game, tokens[2], 3)
    german, english = _both(lambda: service.seat_summary(game, 1)["last"])
    assert english.startswith("Bernd is on vacation until ") and "(3 days;" in english
    assert german.startswith("Bernd ist bis ") and "(3 Tage;" in german
    assert english_left(german, allowed=NAMES) == []


def test_a_move_taken_back_after_a_draw_is_told_in_german_too(service):
    """A move an undo took back after it drew a tile is told without its words."""
    game, tokens = _game(service, SHORT)
    service.submit_action(game, tokens[1], "money L", 1)  # draws a tile
    service.undo(game, tokens[1])
    service.answer_undo(game, tokens[2], True)
    german, english = _both(lambda: service.history(game, 2)[1].text)
    assert english == "Anna played a move that was taken back since"
    assert german == "Anna hat einen Zug gespielt, der inzwischen zurückgenommen wurde"


def _player_refusals(service, clock) -> dict[str, Callable[[], Any]]:
    """Every refusal a player can meet through the service, by what it is about."""
    game, tokens = _game(service, public=False)
    other, others = _game(service)
    over, overs = _game(service, SHORT)
    while service.state_at(over)["turn"] is not None:
        _play(service, over, overs)
    lapsed, lapseds = _game(service)
    _play(service, lapsed, lapseds)
    _play(service, lapsed, lapseds)
    service.undo(lapsed, lapseds[1])
    clock.advance(hours=49)
    fast, fasts = _game(service)
    for n in range(6):
        service.say(fast, fasts[1], f"Zeile {n}")
    watched, _ = _game(service, public=True)
    asked, askeds = _game(service)
    _play(service, asked, askeds)
    _play(service, asked, askeds)
    service.undo(asked, askeds[1])
    robot = service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Robo", bot=plugin("mall").bots[0])],
        None,
        SHORT,
    )
    service.submit_action(robot.game_id, robot.seats[0].token, "money L", 1)  # draws a tile
    service.play_bots(robot.game_id)
    head = service.state_at(game)["seq"]
    _play(service, game, tokens)
    return {
        "undo past a bot": lambda: service.undo(robot.game_id, robot.seats[0].token),
        "no game": lambda: service.state_at("nosuchgame"),
        "no such id": lambda: service.state_at("NOT A GAME"),
        "no seq": lambda: service.state_at(game, seq=999),
        "no token": lambda: service.submit_action(game, "", "money L"),
        "wrong token": lambda: service.submit_action(game, "nonsense", "money L"),
        "another game's token": lambda: service.submit_action(game, others[1], "money L"),
        "unknown seq": lambda: service.submit_action(game, tokens[2], "money L", 999),
        "stale": lambda: service.submit_action(game, tokens[2], "money L", head),
        "bad key": lambda: service.submit_action(game, tokens[2], "money L", None, "\x00"),
        "chat too long": lambda: service.say(game, tokens[1], "Ä" * 501),
        "chat empty": lambda: service.say(game, tokens[1], "   "),
        "chat not text": lambda: service.say(game, tokens[1], 5),
        "chat invisible": lambda: service.say(game, tokens[1], "abc\u202edef"),
        "chat too fast": lambda: service.say(fast, fasts[1], "noch eine"),
        "spectator private": lambda: service.spectator_says(game, "Zoe", "hallo"),
        "spectator no name": lambda: service.spectator_says(other, "  ", "hallo"),
        "spectator name not text": lambda: service.spectator_says(other, None, "hallo"),
        "spectators busy": lambda: [service.spectator_says(watched, "Zoe", "x") for _ in range(21)],
        "undo nothing": lambda: service.undo(other, others[1]),
        "undo game over": lambda: service.undo(over, overs[1]),
        "answer game over": lambda: service.answer_undo(over, overs[2], True),
        "answer nothing waiting": lambda: service.answer_undo(other, others[2], True),
        "answer own request": lambda: service.answer_undo(asked, askeds[1], True),
        "undo already waiting": lambda: service.undo(asked, askeds[1]),
        "answer lapsed": lambda: service.answer_undo(lapsed, lapseds[2], True),
        "sign-in link": lambda: service.sign_in("forged.link"),
        "sign-out link": lambda: service.sign_out_everywhere("forged.link"),
    }


def _creation_refusals(service) -> dict[str, Callable[[], Any]]:
    anna = [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")]

    def create(options: Any) -> Callable[[], Any]:
        return lambda: service.create_game(anna, options, SHORT)

    return {
        "options not an object": create([1]),
        "unknown option": create({"colour": "blue"}),
        "hours": create({"hours_per_turn": 0}),
        "reminders": create({"reminders": "soon"}),
        "reminder after deadline": create({"hours_per_turn": 10, "reminders": [20]}),
        "policy": create({"timeout_policy": "wait"}),
        "whole number": create({"vacation_days": 1.5}),
        "true or false": create({"public": "yes"}),
    }


def test_every_refusal_a_player_meets_is_german_for_a_german_reader(service, clock):
    refusals = {**_player_refusals(service, clock), **_creation_refusals(service)}
    for about, call in refusals.items():
        german, english = _refusals(call)
        assert german != english, (about, english)
        if about == "undo past a bot":  # what was shown is told in the game's words
            german = re.sub(r" \(.*?\)", "", german)
        if about == "stale":  # what happened since is told in brackets, a move's
            assert "(Ereignis 2: Anna hat gespielt: " in german  # narration by the game
            german = german.partition(" (")[0]
        assert _german_words_only(german) == [], (about, german)


def test_the_refusals_stay_english_outside_a_german_block(service, clock):
    refusals = _player_refusals(service, clock)
    assert _refusal(refusals["wrong token"]) == "this link is not valid (it may have been replaced)"
    assert _refusal(refusals["chat too long"]) == (
        "a chat line is at most 500 characters; this one has 501"
    )
    assert _refusal(refusals["undo game over"]) == "the game is over: no move can be taken back"
    with i18n.speaking("de"):
        assert _refusal(refusals["chat too long"]) == (
            "eine Chatzeile hat höchstens 500 Zeichen; diese hat 501"
        )


def test_an_address_that_is_no_address_is_refused_in_german(service):
    players = [PlayerSpec("Anna", "anna at example"), PlayerSpec("Bernd", "bernd@example.com")]
    german, english = _refusals(lambda: service.create_game(players, None, SHORT))
    assert english == (
        "'anna at example' is not an email address: it contains spaces or control characters"
    )
    assert german != english and _german_words_only(german) == []


ADMIN = {"Authorization": "Bearer admin-key"}
GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}


def test_the_json_api_answers_in_english_to_a_german_browser(web):
    app, _ = web
    client = app.test_client()
    players = [{"name": "Anna", "email": "anna@example.com"}, {"name": "Bernd", "email": "b@x.de"}]
    made = client.post("/api/games", json={"players": players, "setup": SHORT}, headers=ADMIN)
    game = made.json["id"]
    token = {s["seat"]: s["token"] for s in made.json["seats"]}[1]
    refused = client.post(
        f"/api/games/{game}/chat",
        json={"text": "x" * 501},
        headers={**GERMAN, "Authorization": f"Bearer {token}"},
    )
    assert refused.status_code == 400
    assert refused.json["error"] == "a chat line is at most 500 characters; this one has 501"
    forged = client.post(
        f"/api/games/{game}/actions",
        json={"action": "money L"},
        headers={**GERMAN, "Authorization": "Bearer nonsense"},
    )
    assert forged.status_code == 403
    assert forged.json["error"] == "this link is not valid (it may have been replaced)"
    missing = client.get("/api/games/nosuchgame", headers=GERMAN)
    assert missing.status_code == 404 and missing.json["error"] == "there is no game nosuchgame"


def test_a_german_browser_reads_the_log_and_a_refusal_in_german(web):
    app, parts = web
    game, tokens = _game(parts.service, public=True)
    parts.service.say(game, tokens[1], SAID)
    client = app.test_client()
    page = client.get(f"/g/{game}/watch", headers=GERMAN).get_data(as_text=True)
    assert "Die Partie wurde für Anna und Bernd erstellt" in page
    assert SAID in page  # in the chat panel; the history tells it as a sentence
    history = client.get(f"/g/{game}/history", headers=GERMAN).get_data(as_text=True)
    assert f"Anna hat gesagt: {SAID}" in history
    english = client.get(f"/g/{game}/watch").get_data(as_text=True)
    assert "The game was created for Anna and Bernd" in english
    missing = client.get("/g/nosuchgame/watch", headers=GERMAN)
    assert missing.status_code == 404
    assert "s gibt keine Partie nosuchgame" in missing.get_data(as_text=True)  # Es, es


def test_a_seats_refusals_are_german_for_a_german_reader(service):
    game, tokens = _game(service, SHORT, vacation_days=1)
    over, overs = _game(service, SHORT)
    while service.state_at(over)["turn"] is not None:
        _play(service, over, overs)
    refusals = {
        "mail choice": lambda: service.set_mail_preference(game, tokens[1], "often"),
        "mail topics": lambda: service.set_mail_preference(game, tokens[1], "turn=every"),
        "mail topic twice": lambda: service.set_mail_preference(
            game, tokens[1], "turn=every,turn=none,round=none"
        ),
        "vacation days": lambda: service.take_vacation(game, tokens[1], 0),
        "vacation left": lambda: service.take_vacation(game, tokens[1], 2),
        "vacation game over": lambda: service.take_vacation(over, overs[1], 1),
    }
    # the mail choices and topics are the values the API takes: named as typed
    machine = re.compile(r"\b(every|digest|none|turn|round|other)\b")
    for about, call in refusals.items():
        german, english = _refusals(call)
        assert german != english, (about, english)
        assert _german_words_only(machine.sub("", german)) == [], (about, german)
