"""The site's pages in German: every page kind asked for with a German browser's
Accept-Language speaks German in the site's own words (the games' partials and the
service's sentences are their catalogs' business and are left out of the regions
checked here), English browsers keep the English pages, the footer switch's cookie
wins over the browser, and the JSON API stays English."""

from __future__ import annotations

import re

import lxml.html
import pytest
from german import english_left, visible_text

from pbem.service import PlayerSpec

from support import SHORT, feed_of

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
ENGLISH = {"Accept-Language": "en"}
PEOPLE = frozenset({"Anna", "Bernd", "Carla"})
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
# The regions of a page the site's own templates write (not a game's partials, not
# the service's log sentences or refusals).
FRAME = ["/html/head/title", "//header", "//footer"]
GAME_PAGE = [
    *FRAME,
    "//h1",
    "//p[@class='status']",
    "//*[@id='moved-on']",
    "//*[@id='since']",
    "//p[contains(@class, 'setup-chosen')]",
    "//div[@class='error']/p",
    "//section[@class='undo-request']",
    "//section[@class='undo-confirm']/*[not(self::ul)]",
    "//section[@class='results']",
    "//*[@id='turn-h']",
    "//p[@class='turn-clock']",
    "//section[@class='seat-tools']/*[not(contains(@class, 'seat-buttons'))]",
    "//section[@class='seat-tools']//button",
    "//section[@id='chat']",
    "//section[@id='spectators']",
    "//*[@id='log-h']",
    "//li[@class='marker']",
    "//span[@class='hint' and ancestor::ol[@class='events']]",
    "//details[@class='details']",
]

NEW_GAME_FORM = [  # a game's title, blurb and setup fields are the game's words
    *FRAME,
    "//h1",
    "//legend",
    "//fieldset[position() <= 3]//label[not(starts-with(@for, 'game-'))]",
    "//label[starts-with(@for, 'game-')]/span",
    "//fieldset[position() <= 3]//option",
    "//fieldset[position() <= 3]//span",
    "//button",
]


def regions(html: str, paths: list[str]) -> str:
    """The markup of the page's elements the paths select, one after another."""
    tree = lxml.html.document_fromstring(html)
    found = [element for path in paths for element in tree.xpath(path)]
    assert found, "no region selected: the page changed shape"
    return "\n".join(lxml.html.tostring(element, encoding="unicode") for element in found)


def english_in(html: str, paths: list[str] | None = None) -> list[str]:
    """English words left in the page (or in its regions the paths select)."""
    shown = html if paths is None else regions(html, paths)
    return english_left(visible_text(shown), allowed=PEOPLE)


def csrf(client, url: str) -> str:
    return CSRF.search(client.get(url, headers=GERMAN).get_data(as_text=True))[1]


def get(client, url: str, status: int = 200, headers: dict | None = None) -> str:
    answer = client.get(url, headers=GERMAN if headers is None else headers)
    assert answer.status_code == status, (url, answer.status_code)
    return answer.get_data(as_text=True)


def mall_game(parts, **options):
    created = parts.service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")],
        {"public": True, "hours_per_turn": 48, **options},
        SHORT,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def nim_game(parts, pile: int = 5):
    created = parts.service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")],
        {"public": True},
        {"pile": pile},
        game="nim",
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def seat_client(app, game_id: str, token: str):
    client = app.test_client()
    assert client.get(f"/g/{game_id}/{token}", headers=GERMAN).status_code == 302
    return client


def play_first(parts, game_id: str, tokens: dict[int, str]) -> None:
    doc = parts.service.state_at(game_id)
    seat = doc["turn"]
    action = parts.service.legal(game_id, seat)[0]
    parts.service.submit_action(game_id, tokens[seat], action, doc["seq"])


def test_the_home_new_game_and_rules_pages_speak_german(web):
    app, parts = web
    mall_game(parts)  # listed among the games open to watch
    client = app.test_client()
    home = get(client, "/")
    assert '<html lang="de">' in home
    assert "Eine neue Partie beginnen" in home and "Partien zum Zuschauen" in home
    assert english_in(home) == []  # the games' titles and blurbs included
    new = get(client, "/new")
    assert "Partie erstellen und Einladungen senden" in new
    assert english_in(new) == []
    for url in ("/rules", "/rules/mall", "/rules/nim"):
        page = get(client, url)
        assert "Regeln" in page
        assert english_in(page, [*FRAME, "//h1", "//main/p[last()]"]) == [], url
    assert english_in(get(client, "/rules/mall")) == []


def test_creating_a_game_and_its_refusals_speak_german(web):
    app, _parts = web
    client = app.test_client()
    form = {
        "csrf_token": csrf(client, "/new"),
        "game": "mall",
        "kind1": "person",
        "name1": "Anna",
        "email1": "anna@example.com",
        "kind2": "greedy",
        "kind3": "nobody",
        "kind4": "nobody",
        "public": "yes",
    }
    created = client.post("/new", data=form, headers=GERMAN, follow_redirects=True)
    page = created.get_data(as_text=True)
    assert created.status_code == 200
    assert "Platz 1, Anna: an anna@example.com" in page
    assert "Platz 2, Gieriger Bot: ein Bot, keine Mail" in page
    # The bot's own name is said in German too, and so is the rest of the page.
    assert "Greedy" not in page and english_in(page) == []

    blank = {**form, "csrf_token": csrf(client, "/new"), "kind2": "person", "name1": ""}
    blank.update(email1="")
    refused = client.post("/new", data=blank, headers=GERMAN)
    text = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "Platz 1 und Platz 2: eine Person braucht einen Namen" in text
    assert english_in(text, [*NEW_GAME_FORM, "//p[@class='error']"]) == []


def test_every_game_page_kind_speaks_german_in_the_sites_words(web):
    app, parts = web
    game_id, tokens = mall_game(parts)
    anna = seat_client(app, game_id, tokens[1])
    bernd = seat_client(app, game_id, tokens[2])
    parts.service.say(game_id, tokens[2], "Viel Glück!")
    parts.service.spectator_says(game_id, "Carla", "Spannend")

    yours = get(anna, f"/g/{game_id}")
    assert '<html lang="de">' in yours
    assert "du bist am Zug" in yours and "Du bist am Zug" in yours
    assert "bis " in yours and " UTC" in yours  # the countdown's words without JavaScript
    assert english_in(yours, GAME_PAGE) == []

    play_first(parts, game_id, tokens)
    waiting = get(bernd, f"/g/{game_id}")
    assert "Bernd" in waiting and "Tischgespräch" in waiting
    after = get(anna, f"/g/{game_id}")
    assert "Meinen letzten Zug zurücknehmen…" in after
    for page in (waiting, after):
        assert english_in(page, GAME_PAGE) == []
    # The page of the seat not to move has no typed-move examples (notation stays as
    # it is in every language): the game's board and the log's sentences are German too.
    idle = bernd if parts.service.state_at(game_id)["turn"] == 1 else anna
    assert english_in(get(idle, f"/g/{game_id}")) == []

    undo = anna.post(
        f"/g/{game_id}/undo", data={"csrf_token": csrf(anna, f"/g/{game_id}")}, headers=GERMAN
    )
    confirm = undo.get_data(as_text=True)
    assert undo.status_code == 200 and "Diese Züge zurücknehmen?" in confirm
    assert english_in(confirm, GAME_PAGE) == []

    watched = get(app.test_client(), f"/g/{game_id}/watch")
    assert "Du schaust zu." in watched and "Zuschauer-Chat" in watched
    assert english_in(watched) == []

    history = get(anna, f"/g/{game_id}/history?at=2")
    assert "Verlauf der Partie" in history
    paths = [*FRAME, "//h1", "//nav[@class='stepper']", "//main/p[@class='hint']"]
    paths += ["//details[@class='details']"]
    assert english_in(history, paths + ["//*[@id='log-h']"]) == []
    assert english_in(history) == []


def test_a_finished_game_says_who_won_and_the_points_in_german(web):
    app, parts = web
    game_id, tokens = nim_game(parts, pile=5)
    while parts.service.state_at(game_id)["turn"] is not None:
        play_first(parts, game_id, tokens)
    winner = parts.service.state_at(game_id)["winners"][0]
    page = get(seat_client(app, game_id, tokens[winner]), f"/g/{game_id}")
    assert "Die Partie ist vorbei." in page and "gewinnt." in page
    assert "Endergebnis" in page and "Sieger" in page
    assert english_in(page, GAME_PAGE) == []


def test_flash_messages_and_refusals_speak_german(web):
    app, parts = web
    game_id, tokens = mall_game(parts)
    anna = seat_client(app, game_id, tokens[1])
    token = csrf(anna, f"/g/{game_id}")
    shown = anna.post(
        f"/g/{game_id}/mail",
        data={"csrf_token": token, "turn": "every", "round": "none", "other": "digest"},
        headers=GERMAN,
        follow_redirects=True,
    ).get_data(as_text=True)
    told = "Zug: jedes Mal eine Mail; Runde: keine Mail; Sonstiges: eine Tageszusammenfassung"
    assert f"Ab jetzt: {told}." in shown
    stopped = anna.post(
        f"/g/{game_id}/vacation",
        data={"csrf_token": token, "days": "2"},
        headers=GERMAN,
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Deine Uhr hält für 2 Tage an; die anderen wurden benachrichtigt." in stopped

    empty = anna.post(f"/g/{game_id}/play", data={"csrf_token": token}, headers=GERMAN)
    text = empty.get_data(as_text=True)
    assert empty.status_code == 400 and "Nicht gespielt:</strong> wähle zuerst eine Aktion." in text

    private, _ = mall_game(parts, public=False)
    refused = get(app.test_client(), f"/g/{private}/watch", status=403)
    assert "Diese Partie ist privat" in refused
    assert english_in(refused) == []

    missing = get(app.test_client(), "/nowhere", status=404)
    assert "Das hat nicht geklappt" in missing and "Diese Seite gibt es nicht." in missing
    assert english_in(missing) == []
    no_rules = get(app.test_client(), "/rules/chess", status=404)
    assert english_in(no_rules) == []


def test_my_games_its_sign_in_and_its_feeds_speak_german(web):
    app, parts = web
    game_id, tokens = mall_game(parts)
    anna = seat_client(app, game_id, tokens[1])
    seat_client(app, game_id, tokens[2])  # Bernd has the page open too
    board = get(anna, "/my-games")
    assert "(1) Meine Partien" in board and "1 Partie wartet auf dich" in board
    assert "Du bist Anna, gegen Bernd." in board
    paths = [*FRAME, "//h1", "//h2", "//p", "//label", "//button", "//li/strong"]
    assert english_in(board, paths) == []
    assert english_in(board) == []

    stranger = app.test_client()
    asked = stranger.post(
        "/my-games",
        data={"csrf_token": csrf(stranger, "/my-games"), "email": "anna@example.com"},
        headers=GERMAN,
    ).get_data(as_text=True)
    assert "Falls anna@example.com hier Partien spielt" in asked
    assert english_in(asked) == []
    assert english_in(get(stranger, "/my-games")) == []
    sign_in = get(stranger, "/my-games/sign-in/some-token")
    assert "Bei Meine Partien anmelden" in sign_in and english_in(sign_in) == []
    out = stranger.post(
        "/my-games/sign-out-everywhere",
        data={"csrf_token": csrf(stranger, "/my-games"), "email": "anna@example.com"},
        headers=GERMAN,
    ).get_data(as_text=True)
    assert "in jedem Browser" in out and english_in(out) == []
    sign_out = get(stranger, "/my-games/sign-out-everywhere/some-token")
    assert "Überall abmelden" in sign_out and english_in(sign_out) == []
    signed_out = stranger.post(
        "/my-games/sign-out-everywhere/some-token",
        data={"csrf_token": csrf(stranger, "/my-games")},
        headers=GERMAN,
    )
    assert signed_out.status_code == 403
    assert "Abmeldelink ist abgelaufen" in signed_out.get_data(as_text=True)

    feed = feed_of(anna)
    atom = get(anna, f"/feeds/{feed}.atom")
    assert "Meine Fristen — Mall by mail" in atom and "du bist am Zug, bis " in atom
    calendar = get(anna, f"/feeds/{feed}.ics")
    assert "Meine Fristen — Mall by mail" in calendar and "du bist am Zug" in calendar


def test_the_mail_catcher_pages_speak_german(web):
    app, _parts = web
    page = get(app.test_client(), "/dev/mail")
    assert "Mails, die der lokale Fänger empfangen hat" in page
    assert english_in(page) == []


def test_an_english_browser_keeps_the_english_pages(web):
    app, parts = web
    game_id, tokens = mall_game(parts)
    anna = seat_client(app, game_id, tokens[1])
    page = get(anna, f"/g/{game_id}", headers=ENGLISH)
    assert '<html lang="en">' in page
    assert "<strong>your turn</strong>" in page and "Table talk" in page
    assert "Your seat" in page and "Forget my seat in this browser" in page
    assert "Tischgespräch" not in page and "am Zug" not in page
    home = get(app.test_client(), "/", headers=ENGLISH)
    assert "Start a new game" in home and "Eine neue Partie" not in home
    assert get(app.test_client(), "/", headers={}).count("Start a new game") == 1


def test_the_switch_cookie_wins_over_the_browser_language(web):
    app, _parts = web
    client = app.test_client()
    switched = client.get("/language/en?next=/new", headers=GERMAN)
    assert switched.status_code == 303 and switched.headers["Location"] == "/new"
    page = get(client, "/new")  # the browser still asks for German
    assert '<html lang="en">' in page and "A new game" in page
    client.get("/language/de?next=/", headers=ENGLISH)
    page = get(client, "/new", headers=ENGLISH)
    assert '<html lang="de">' in page and "Eine neue Partie" in page
    # the switch on a page leads back to the same page in the other language
    assert 'href="/language/en?next=/new"' in page


def test_an_unknown_language_is_no_page(web):
    app, _parts = web
    client = app.test_client()
    assert client.get("/language/xx", headers=GERMAN).status_code == 404
    assert client.get("/language/", headers=GERMAN).status_code == 404
    assert "lang=" not in client.get("/language/xx").headers.get("Set-Cookie", "")


@pytest.mark.parametrize(
    "next_",
    [
        "//evil.example",
        "https://evil.example",
        "/\\evil.example",
        "http:/evil.example",
        "///evil.example",
        "/\\/evil.example",
        "\\\\evil.example",
        "evil.example",
        "javascript:alert(1)",
        " //evil.example",
        "/\t/evil.example",
    ],
)
def test_the_switch_never_leads_off_the_site(web, next_):
    app, _parts = web
    answer = app.test_client().get("/language/de", query_string={"next": next_})
    assert answer.status_code in (303, 400)  # a control character is refused before
    if answer.status_code == 303:
        assert answer.headers["Location"] == "/"


def test_the_switch_leads_back_to_a_page_of_the_site(web):
    app, _parts = web
    answer = app.test_client().get("/language/de", query_string={"next": "/rules/mall?x=1"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/rules/mall?x=1"


def test_the_json_api_stays_english_for_a_german_browser(web):
    app, parts = web
    private, _ = mall_game(parts, public=False)
    client = app.test_client()
    refused = client.get(f"/api/games/{private}", headers=GERMAN)
    assert refused.status_code == 403
    assert refused.get_json()["error"].startswith("this game is private")
    missing = client.get("/api/nowhere", headers=GERMAN)
    assert missing.status_code == 404 and missing.get_json()["error"] == "there is no such page"
