"""Every HTML page for every game in the registry: home, the New game form and what it
creates, the game page as each seat and as a spectator, watch, history at several
seqs, my games, the error pages — each answers 200 (or its error status) and shows
the game's own board; a nim page says nothing of the mall."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from html.parser import HTMLParser

import pytest

from pbem.games import GAMES, bot_name
from pbem.games.base import Pages
from pbem.service import PlayerSpec

from support import csrf

# The words of the mall game.
MALL_WORDS = re.compile(r"mall|tile|balloon|dispenser|attraction|rainbow", re.I)
NAMES = ["Ann", "Ben", "Cy", "Di", "Eve", "Fay", "Gus"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_gives_the_web_all_of_its_pages(game):
    pages = GAMES[game].part("pages")
    members = set(Pages.__annotations__) | {
        name for name in vars(Pages) if callable(getattr(Pages, name)) and name[0] != "_"
    }
    assert {"partials", "script", "board", "turn", "changed", "setup"} <= members
    missing = sorted(m for m in members if not hasattr(pages, m))
    assert not missing, f"{game}'s pages lack {missing}"
    assert {"board", "turn"} <= set(pages.partials)
    for name in pages.partials.values():
        assert GAMES[game].templates.joinpath(name).is_file(), name
    if pages.script or pages.stylesheet:
        folder = GAMES[game].templates.parent.joinpath("static")  # beside templates/
        for name in filter(None, (pages.script, pages.stylesheet)):
            assert folder.joinpath(name).is_file(), name


@pytest.fixture
def web(make_parts, clock):
    """The web app (dev mode) of a site named without a game's words: a nim page must
    then say no word of the mall."""
    from pbem.web.app import create_app

    parts = make_parts(clock, dev=True, site_name="Board games by mail")
    app = create_app(parts)
    app.testing = True
    return app, parts


def new_game(parts, game: str, seats: int, pile: int = 7):
    setup = {"pile": pile} if game == "nim" else {"seed": f"pages-{seats}"}
    created = parts.service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES[:seats]],
        {"public": True},
        setup,
        game=game,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def play_to_the_end(parts, game_id: str, tokens: dict[int, str]) -> None:
    service = parts.service
    while (doc := service.state_at(game_id))["turn"] is not None:
        seat = doc["turn"]
        action = service.legal(game_id, seat)[0]
        service.submit_action(game_id, tokens[seat], action, doc["seq"])


def get_ok(client, url: str) -> str:
    answer = client.get(url)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 200, (url, answer.status_code, text[-500:])
    styles_allowed(answer)
    return text


class Styles(HTMLParser):
    """The tags with a style attribute, and the text of every <style> element."""

    def __init__(self) -> None:
        super().__init__()
        self.attributes: list[str] = []
        self.elements: list[str] = []
        self._inside: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if any(name == "style" for name, _ in attrs):
            self.attributes.append(tag)
        if tag == "style":
            self._inside = []

    def handle_endtag(self, tag) -> None:
        if tag == "style" and self._inside is not None:
            self.elements.append("".join(self._inside))
            self._inside = None

    def handle_data(self, data) -> None:
        if self._inside is not None:
            self._inside.append(data)


def styles_allowed(answer) -> None:
    """The page's Content Security Policy applies every style it has: no style
    attribute (none is allowed), and each <style> allowed by its hash."""
    policy = dict(
        (d.strip().split(" ", 1) + [""])[:2]
        for d in answer.headers["Content-Security-Policy"].split(";")
    )
    assert (
        "'unsafe-inline'" not in policy["style-src"]
        and "'unsafe-hashes'" not in policy["style-src"]
    )
    found = Styles()
    found.feed(answer.get_data(as_text=True))
    found.close()
    assert found.attributes == [], f"style attributes on {found.attributes}"
    for text in found.elements:
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy["style-src"].split(), text[:200]


def every_page_of(app, parts, game: str, game_id: str, tokens: dict[int, str]) -> list[str]:
    """Every page of one game, as each seat and as a stranger; each must show the board."""
    pages = []
    head = parts.service.state_at(game_id)["seq"]
    for seat, token in tokens.items():
        client = app.test_client()
        entered = client.get(f"/g/{game_id}/{token}")
        assert entered.status_code == 302
        page = get_ok(client, f"/g/{game_id}")
        assert f"seat {seat}" in page
        pages.append(page)
        for at in sorted({1, 2, head // 2 or 1, head}):
            pages.append(get_ok(client, f"/g/{game_id}/history?at={min(at, head)}"))
        pages.append(get_ok(client, f"/g/{game_id}/watch"))
    stranger = app.test_client()
    pages.append(get_ok(stranger, f"/g/{game_id}/watch"))
    pages.append(get_ok(stranger, f"/g/{game_id}"))
    pages.append(get_ok(stranger, f"/g/{game_id}/history"))
    pages.append(get_ok(stranger, f"/g/{game_id}/history?at=1"))
    for page in pages:
        assert GAMES[game].part("pages").marker in page
        for other in set(GAMES) - {game}:
            assert GAMES[other].part("pages").marker not in page
        assert "You are watching." in page or "seat" in page
    return pages


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        (name, seats)
        for name, plugin in sorted(GAMES.items())
        for seats in range(plugin.seats[0], plugin.seats[1] + 1)
    ],
)
def test_every_page_of_a_game_in_play_shows_its_board(web, game, seats):
    app, parts = web
    game_id, tokens = new_game(parts, game, seats)
    first = parts.service.state_at(game_id)["waiting"][0]
    parts.service.submit_action(game_id, tokens[first], parts.service.legal(game_id, first)[0], 1)
    pages = every_page_of(app, parts, game, game_id, tokens)
    if game == "nim":
        for page in pages:
            assert not MALL_WORDS.search(page), MALL_WORDS.search(page)


def example_game(parts, game: str, example):
    """A public game of `example` (its players with addresses), its moves played."""
    created = parts.service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in example.players],
        {"public": True},
        dict(example.setup),
        game=game,
    )
    tokens = {s.seat: s.token for s in created.seats}
    for seat, move in example.moves:
        parts.service.submit_action(created.game_id, tokens[seat], move)
    return created.game_id, tokens


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_page_of_a_finished_game_shows_its_board_and_its_result(web, game):
    app, parts = web
    example = next(e for e in GAMES[game].examples() if e.ends)
    game_id, tokens = example_game(parts, game, example)
    doc = parts.service.state_at(game_id)
    assert doc["status"] == "finished"
    pages = every_page_of(app, parts, game, game_id, tokens)
    names = dict(enumerate(example.players, start=1))
    first = GAMES[game].standings(doc)[0]  # the standings put a winner first
    assert first in doc["winners"]
    winner = names[first]
    assert "The game is over." in pages[0] and winner in pages[0]
    standings = pages[0][pages[0].index('class="standings"') :]
    rows = re.findall(r'<th scope="row">(.*?)</th>', standings, re.S)
    assert [re.sub(r"<.*?>|\s+", " ", r).split()[0] for r in rows] == [
        names[s] for s in GAMES[game].standings(doc)
    ]
    assert rows[0].startswith(winner) and "winner" in rows[0]
    assert 'name="action"' not in pages[0]  # nobody's turn
    if game == "nim":
        for page in pages:
            assert not MALL_WORDS.search(page)


def test_the_nim_turn_panel_lists_the_takes_and_plays_without_a_script(web):
    app, parts = web
    game_id, tokens = new_game(parts, "nim", 2)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    page = get_ok(client, f"/g/{game_id}")
    assert re.findall(r'name="action" value="([^"]+)"', page) == ["take 1", "take 2", "take 3"]
    assert '<script src="/games/' not in page  # nim's turn needs no script of its own
    assert "7 tokens" in page
    answer = client.post(
        f"/g/{game_id}/play",
        data={
            "csrf_token": csrf(client, f"/g/{game_id}"),
            "action": "take 2",
            "expected_seq": "1",
            "key": "nim-k1",
        },
    )
    assert answer.status_code == 302
    page = get_ok(client, f"/g/{game_id}")
    assert "You played take 2; 5 left." in page and "5 tokens" in page
    assert 'name="action"' not in page  # Ben's turn now
    ben = app.test_client()
    ben.get(f"/g/{game_id}/{tokens[2]}")
    assert re.findall(r'name="action" value="([^"]+)"', get_ok(ben, f"/g/{game_id}")) == [
        "take 1",
        "take 2",
        "take 3",
    ]


def test_the_mall_page_serves_its_turn_script_from_the_game_package(web):
    app, parts = web
    game_id, tokens = new_game(parts, "mall", 2)
    client = app.test_client()
    client.get(f"/g/{game_id}/{tokens[1]}")
    page = get_ok(client, f"/g/{game_id}")
    (script,) = re.findall(r'<script src="(/games/[^"]+)"', page)
    assert script.startswith("/games/mall/")
    answer = client.get(script)
    assert answer.status_code == 200 and b"turn-data" in answer.data
    assert "script-src 'self'" in answer.headers["Content-Security-Policy"]


def test_home_and_new_game_list_every_game_with_its_blurb(web):
    app, _ = web
    client = app.test_client()
    home = get_ok(client, "/")
    new = get_ok(client, "/new")
    for name, plugin in GAMES.items():
        assert plugin.blurb in home and plugin.blurb in new
        assert f'name="game" value="{name}"' in new
        for bot in plugin.bots:
            assert f'value="{bot}"' in new
    assert 'name="nim_pile"' in new
    new_game(web[1], "nim", 2)
    assert re.search(r"</a>: Nim, playing, round 1</li>", get_ok(client, "/"))
    assert get_ok(client, "/my-games")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_new_game_form_creates_the_chosen_game(web, game):
    app, parts = web
    client = app.test_client()
    plugin = GAMES[game]
    fewest, most = plugin.seats[0], max(p.seats[1] for p in GAMES.values())
    bot = plugin.bots[0]  # every seat but the first: the game's first bot
    seats = {f"kind{n}": bot for n in range(2, fewest + 1)}
    seats |= {f"kind{n}": "nobody" for n in range(fewest + 1, most + 1)}
    page = client.post(
        "/new",
        data={
            "csrf_token": csrf(client, "/new"),
            "game": game,
            "kind1": "person",
            "name1": "Ann",
            "email1": "ann@example.com",
            **seats,
            "nim_pile": "9",
            "public": "yes",
        },
        follow_redirects=True,
    )
    assert page.status_code == 200, page.get_data(as_text=True)
    assert f"seat 2, {bot_name(bot)}: a bot, no mail" in page.get_data(as_text=True)
    (row,) = parts.service.games()
    assert row.game == game
    doc = parts.service.state_at(row.id)
    if game == "nim":
        assert doc["pile"] == 9
    watched = get_ok(app.test_client(), f"/g/{row.id}/watch")
    assert GAMES[game].part("pages").marker in watched


def test_an_unknown_game_or_a_pile_out_of_bounds_comes_back_with_the_form(web):
    app, parts = web
    client = app.test_client()
    base = {
        "kind1": "person",
        "name1": "Ann",
        "email1": "ann@example.com",
        "kind2": "random",
        "kind3": "nobody",
        "kind4": "nobody",
    }
    for extra, said in (
        ({"game": "chess"}, "There is no game called 'chess' here; choose Mall, Nim or Diplomacy."),
        ({"game": "nim", "nim_pile": "0"}, "the pile is a whole number from 1 to 10000"),
        ({"game": "nim", "nim_pile": "many"}, "the pile is a whole number from 1 to 10000"),
    ):
        answer = client.post("/new", data={"csrf_token": csrf(client, "/new"), **base, **extra})
        text = html.unescape(answer.get_data(as_text=True))
        assert answer.status_code == 400, extra
        assert said in text, (said, text[:3000])
        assert 'value="ann@example.com"' in text  # the form keeps what was typed
    assert parts.service.games() == []


def test_the_error_pages_answer_in_words(web):
    app, parts = web
    game_id, _ = new_game(parts, "nim", 2)
    client = app.test_client()
    missing = client.get("/g/nosuchgame/watch")
    assert missing.status_code == 404 and "That did not work" in missing.get_data(as_text=True)
    wrong = client.get(f"/g/{game_id}/not-a-real-token")
    assert wrong.status_code == 403 and "This link is not valid" in wrong.get_data(as_text=True)
    beyond = client.get("/no/such/page")
    assert beyond.status_code == 404 and "There is no such page" in beyond.get_data(as_text=True)
    for answer in (missing, wrong, beyond):
        styles_allowed(answer)


def test_the_rules_pages_and_the_game_list_apply_every_style_they_have(web):
    app, parts = web
    new_game(parts, "mall", 2)
    client = app.test_client()
    for url in ("/rules", *(f"/rules/{name}" for name in GAMES), "/", "/new", "/my-games"):
        page = get_ok(client, url)  # get_ok holds each to the policy
        if url == "/rules/mall":
            assert "<svg" in page and "<style>" in page  # the attractions' shapes
            assert '<svg class="swatch"' in page  # the kinds' colours, as drawings


def test_the_style_check_sees_what_it_checks():
    found = Styles()
    found.feed('<p style="x"><svg><style>.a{b:c}</style><rect style="d"/></svg></p>')
    assert found.attributes == ["p", "rect"] and found.elements == [".a{b:c}"]


def test_the_api_document_names_every_game_and_bot_and_each_state_fits_it(web):
    import jsonschema_rs  # schemathesis's validator

    app, parts = web
    client = app.test_client()
    spec = client.get("/api/openapi.json").json
    body = spec["paths"]["/api/games"]["post"]["requestBody"]["content"]["application/json"]
    fields = body["schema"]["properties"]
    assert fields["game"]["enum"] == list(GAMES)
    bots = fields["players"]["items"]["properties"]["bot"]["enum"]
    assert set(bots) == {bot for plugin in GAMES.values() for bot in plugin.bots}
    assert {"pile", "supply", "seed"} <= set(fields["setup"]["properties"])
    ok = spec["paths"]["/api/games/{game_id}"]["get"]["responses"]["200"]
    state = ok["content"]["application/json"]["schema"]
    validator = jsonschema_rs.Draft202012Validator(state)
    for game in sorted(GAMES):
        example = next(e for e in GAMES[game].examples() if not e.ends)
        game_id, _ = example_game(parts, game, example)
        doc = client.get(f"/api/games/{game_id}").json
        validator.validate(doc)
        for other in set(GAMES) - {game}:
            wrong = {**doc, "game": other}
            assert not validator.is_valid(wrong), game  # each game's document is its own
